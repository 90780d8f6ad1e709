//! Fuzz target `grammar`: the properties of [`freshgp_fuzz::grammar`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::grammar(data));
