//! Fuzz target `model`: the properties of [`freshgp_fuzz::model`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::model(data));
