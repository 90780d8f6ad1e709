//! Fuzz target `experiment`: the properties of [`freshgp_fuzz::experiment`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::experiment(data));
