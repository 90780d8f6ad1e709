//! Fuzz target `warc`: the properties of [`freshgp_fuzz::warc`] (a WARC file).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::warc(data));
