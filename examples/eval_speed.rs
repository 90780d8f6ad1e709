//! The compiled evaluator's speed over columns, for comparison with the Python module's
//! `Formula.eval` on the same data (`python/bench/eval_speed.py` writes the columns and
//! runs this example):
//!
//! ```text
//! cargo run --release --example eval_speed -- DIR FORMULA [REPEATS]
//! ```
//!
//! `DIR` holds one file a terminal the formula reads, `<terminal>.f64`: the values, one
//! page after the other, as little-endian f64. Prints the best of `REPEATS` (default 5)
//! wall-clock seconds of `Program::eval_batch` over every page, one thread, and a checksum
//! of the scores (their sum) so that the two sides can be seen to compute the same thing.

use freshgp::eval::{Columns, Program, Scratch};
use freshgp::formula::{Formula, Grammar};
use std::error::Error;
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, text, rest @ ..] = args.as_slice() else {
        return Err("usage: eval_speed DIR FORMULA [REPEATS]".into());
    };
    let repeats: usize = rest.first().map_or(Ok(5), |r| r.parse())?;
    let grammar = Grammar::every();
    let formula = Formula::parse(text, &grammar).map_err(|e| e.quoted(text))?;
    let program = Program::compile(&formula, grammar.closure());
    let mut loaded = Vec::new();
    for terminal in formula.terminals() {
        let path = Path::new(dir).join(format!("{terminal}.f64"));
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let values: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("invariant: chunks of 8")))
            .collect();
        loaded.push((terminal, values));
    }
    let pages = loaded.first().map_or(0, |(_, v)| v.len());
    let mut columns = Columns::new(pages);
    for (terminal, values) in &loaded {
        if values.len() != pages {
            return Err(
                format!("{terminal}.f64 holds {} values, not {pages}", values.len()).into(),
            );
        }
        columns = columns.with(*terminal, values);
    }
    let mut out = vec![0.0; pages];
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let start = Instant::now();
        program.eval_batch(&columns, &mut out, &mut Scratch::new());
        best = best.min(start.elapsed().as_secs_f64());
    }
    let checksum: f64 = out.iter().sum();
    println!(
        "{{\"pages\": {pages}, \"nodes\": {}, \"seconds\": {best}, \"checksum\": {checksum}}}",
        formula.len()
    );
    Ok(())
}
