//! Fuzz target `state`: the properties of [`freshgp_fuzz::state`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::state(data));
