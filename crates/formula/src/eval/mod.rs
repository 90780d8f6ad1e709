//! Evaluating formulas on page statistics.
//!
//! A formula compiles once ([`Program::compile`]) into a small register program that
//! scores many pages at a time from column arrays of terminal values ([`Columns`]),
//! chunk by chunk, writing into the caller's buffer and allocating nothing per call
//! ([`Program::eval_batch`]); [`Program::eval_one`] scores a single page.
//! [`interpret`] is the plain interpreter (one [`Formula::fold`](crate::formula::Formula::fold))
//! the tests hold both against: the three agree bit for bit, because all of them call the
//! closure's scalar functions.
//!
//! ```
//! use freshgp_formula::eval::{Columns, Program, Scratch};
//! use freshgp_formula::formula::{Closure, Formula, Terminal};
//!
//! let f: Formula = "X / n * t".parse().unwrap();
//! let program = Program::compile(&f, Closure::Paper);
//! let n = [1.0, 2.0, 0.0];
//! let x = [1.0, 1.0, 0.0];
//! let t = [3.0, 4.0, 5.0];
//! let columns = Columns::new(3).with(Terminal::N, &n).with(Terminal::X, &x).with(Terminal::T, &t);
//! let mut scores = [0.0; 3];
//! program.eval_batch(&columns, &mut scores, &mut Scratch::new());
//! assert_eq!(scores, [3.0, 2.0, 0.0]);
//! ```
//!
//! **Invariant:** evaluation never allocates per page and never returns NaN.

mod interp;
mod program;

pub use crate::formula::Scope;
pub use interp::interpret;
pub use program::Split;
pub use program::{Columns, Program, Scratch, CHUNK};
