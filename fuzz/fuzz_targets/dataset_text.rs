//! Fuzz target `dataset_text`: the properties of [`freshgp_fuzz::dataset_text`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::dataset_text(data));
