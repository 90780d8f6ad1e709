//! Fuzz target `nutch_dump`: the properties of [`freshgp_fuzz::nutch_dump`] (a Nutch
//! CrawlDb dump).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::nutch_dump(data));
