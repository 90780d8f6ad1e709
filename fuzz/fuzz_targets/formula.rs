//! Fuzz target `formula`: the properties of [`freshgp_fuzz::formula`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::formula(data));
