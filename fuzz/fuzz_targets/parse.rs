//! Fuzzes the formula parser: arbitrary UTF-8 must never make it panic; an error must
//! point inside the text on a char boundary; a formula that parses must print as text
//! that parses back to the same formula, and printing it again gives the same text.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run parse` (see `fuzz/README.md`).

#![no_main]

use freshgp::formula::{Formula, Grammar};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The grammars, read once (building one parses RON).
fn grammars() -> &'static [Grammar; 2] {
    static GRAMMARS: OnceLock<[Grammar; 2]> = OnceLock::new();
    GRAMMARS.get_or_init(|| [Grammar::all(), Grammar::basic()])
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for grammar in grammars() {
        match Formula::parse(text, grammar) {
            Ok(f) => {
                let printed = f.to_string();
                let back = Formula::parse(&printed, grammar)
                    .unwrap_or_else(|e| panic!("{text:?} printed {printed:?}, which fails: {e}"));
                assert_eq!(back, f, "{text:?} -> {printed:?}");
                assert_eq!(back.to_string(), printed);
            }
            Err(e) => {
                assert!(e.offset <= text.len(), "{text:?}: offset {}", e.offset);
                assert!(
                    text.is_char_boundary(e.offset),
                    "{text:?}: offset {}",
                    e.offset
                );
            }
        }
    }
});
