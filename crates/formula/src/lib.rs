//! # freshgp-formula
//!
//! The formula language of [freshgp](https://crates.io/crates/freshgp): the formulas a
//! crawler scores its known pages with, over page statistics such as `n` (visits), `X`
//! (detected changes) and `t` (cycles since the last visit).
//!
//! - [`formula`]: the language: a flat postfix tree, its parser and printer (exact
//!   inverses), simplifier, rank equivalence and grammars.
//! - [`eval`]: a formula compiled into a program that scores many pages at once, bit for bit
//!   as the interpreter does.
//! - [`export`]: a formula as a self-contained Python, C, Java, Rust or SQL function.
//! - [`place`]: where in a user's text an error is; [`hash`]: the stable 64-bit mixer.
//!
//! ```
//! use freshgp_formula::formula::{Formula, Terminal};
//!
//! let f: Formula = "X / (n + 1)".parse().unwrap();
//! assert_eq!(f.to_string(), "X / (n + 1)");
//! assert!(f.terminals().contains(&Terminal::X));
//! ```

pub mod eval;
pub mod export;
pub mod formula;
pub mod hash;
pub mod place;
