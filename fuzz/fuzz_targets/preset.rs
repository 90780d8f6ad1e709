//! Fuzz target `preset`: the properties of [`freshgp_fuzz::preset`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::preset(data));
