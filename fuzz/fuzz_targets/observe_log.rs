//! Fuzz target `observe_log`: the properties of [`freshgp_fuzz::observe_log`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| freshgp_fuzz::observe_log(data));
