//! Fuzz target `cdx`: the properties of [`freshgp_fuzz::cdx`] (a CDX or CDXJ index).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::cdx(data));
