//! Fuzz target `crawl_log`: the properties of [`freshgp_fuzz::crawl_log`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::crawl_log(data));
