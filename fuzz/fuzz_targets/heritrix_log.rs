//! Fuzz target `heritrix_log`: the properties of [`freshgp_fuzz::heritrix_log`] (a Heritrix crawl.log).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::heritrix_log(data));
