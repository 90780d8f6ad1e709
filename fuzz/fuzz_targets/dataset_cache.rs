//! Fuzz target `dataset_cache`: the properties of [`freshgp_fuzz::dataset_cache`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::dataset_cache(data));
