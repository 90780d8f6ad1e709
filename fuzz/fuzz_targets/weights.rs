//! Fuzz target `weights`: the properties of [`freshgp_fuzz::weights_file`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::weights_file(data));
