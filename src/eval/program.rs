//! The compiled evaluator: a register program run chunk by chunk over column arrays.
//!
//! Compilation is one [`Formula::fold`] over a virtual stack. Leaves emit nothing: an
//! operator reads terminal columns and constants directly as operands, and writes its
//! result into register `depth` (the stack slot it would occupy), so the first operand
//! of a binary operator is always either that same register (updated in place) or a leaf,
//! and the second is either the next register or a leaf. Constant subtrees are folded with
//! the closure's own functions, so folding changes no result.
//!
//! At run time each instruction is one tight loop over a chunk of [`CHUNK`] pages, which
//! the compiler vectorises for the arithmetic operators.

use crate::formula::ops::{self, BinaryKind, Kind, UnaryKind};
use crate::formula::{Closure, Formula, Terminal, Visit};

/// Pages evaluated per instruction dispatch.
pub const CHUNK: usize = 256;

/// Where an operand comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    /// A register (the instruction's own destination, or the one after it).
    Reg,
    /// A terminal's column.
    Col(Terminal),
    /// A constant.
    Imm(f64),
}

/// One instruction: `dst = op(a, b)` (`b` unused for unary operators); `op` is `None`
/// for `dst = a` (only in programs whose formula is a single leaf).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Instr {
    op: Option<Kind>,
    dst: u32,
    a: Src,
    b: Src,
}

/// The terminal values of a batch of pages, one slice per terminal a program reads.
///
/// ```
/// use freshgp::eval::Columns;
/// use freshgp::formula::Terminal;
///
/// let t = [1.0, 2.0];
/// let columns = Columns::new(2).with(Terminal::T, &t);
/// assert_eq!(columns.len(), 2);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    len: usize,
    columns: [Option<&'a [f64]>; Terminal::COUNT],
}

impl<'a> Columns<'a> {
    /// No columns yet, for `len` pages.
    pub fn new(len: usize) -> Columns<'a> {
        Columns {
            len,
            columns: [None; Terminal::COUNT],
        }
    }

    /// Adds the values of `terminal`.
    ///
    /// # Panics
    /// If `values` holds fewer than `len` values.
    pub fn with(mut self, terminal: Terminal, values: &'a [f64]) -> Columns<'a> {
        assert!(
            values.len() >= self.len,
            "column {terminal} has {} values, need {}",
            values.len(),
            self.len
        );
        self.columns[terminal.index()] = Some(values);
        self
    }

    /// Number of pages.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no pages.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn column(&self, terminal: Terminal) -> &'a [f64] {
        self.columns[terminal.index()]
            .unwrap_or_else(|| panic!("the program reads {terminal}, but no column was given"))
    }
}

/// Registers for [`Program::eval_batch`], reusable across calls and programs.
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    registers: Vec<f64>,
}

impl Scratch {
    /// Empty scratch space; it grows to what the largest program needs, once.
    pub fn new() -> Scratch {
        Scratch::default()
    }
}

/// A formula compiled for fast evaluation.
#[derive(Debug, Clone)]
pub struct Program {
    code: Vec<Instr>,
    registers: usize,
    terminals: Vec<Terminal>,
}

impl Program {
    /// Compiles `formula` under `closure`.
    pub fn compile(formula: &Formula, closure: Closure) -> Program {
        let mut code = Vec::new();
        let mut registers = 1;
        // Each node's result is where its value is: a leaf, a folded constant, or the
        // register of its stack slot.
        let root = formula.fold_slots(|slot, node| {
            let (op, a, b) = match node {
                Visit::Const(c) => return Src::Imm(c),
                Visit::Var(t) => return Src::Col(t),
                Visit::Unary(op, Src::Imm(c)) => return Src::Imm(closure.unary(op, c)),
                Visit::Binary(op, Src::Imm(x), Src::Imm(y)) => {
                    return Src::Imm(closure.binary(op, x, y))
                }
                Visit::Unary(op, a) => (Kind::Unary(UnaryKind::of(op, closure)), a, Src::Imm(0.0)),
                Visit::Binary(op, a, b) => (Kind::Binary(BinaryKind::of(op, closure)), a, b),
            };
            code.push(Instr {
                op: Some(op),
                dst: slot as u32,
                a,
                b,
            });
            // A binary operator's second operand may sit in the register after its own.
            let used = if matches!(op, Kind::Binary(_)) { 2 } else { 1 };
            registers = registers.max(slot + used);
            Src::Reg
        });
        if root != Src::Reg {
            code.push(Instr {
                op: None,
                dst: 0,
                a: root,
                b: Src::Imm(0.0),
            });
        }
        Program {
            code,
            registers,
            terminals: formula.terminals(),
        }
    }

    /// The terminals the program reads (their columns must be given).
    pub(crate) fn terminals(&self) -> &[Terminal] {
        &self.terminals
    }

    /// The score of one page whose terminal values are `terminals`.
    pub fn eval_one(&self, terminals: &[f64; Terminal::COUNT]) -> f64 {
        const INLINE: usize = 32;
        let mut inline = [0.0f64; INLINE];
        let mut heap;
        let regs: &mut [f64] = if self.registers <= INLINE {
            &mut inline[..]
        } else {
            heap = vec![0.0; self.registers];
            &mut heap[..]
        };
        let fetch = |src: Src, reg: f64| match src {
            Src::Reg => reg,
            Src::Col(t) => terminals[t.index()],
            Src::Imm(c) => c,
        };
        for ins in &self.code {
            let d = ins.dst as usize;
            let a = fetch(ins.a, regs[d]);
            regs[d] = match ins.op {
                None => a,
                Some(Kind::Unary(kind)) => kind.apply(a),
                Some(Kind::Binary(kind)) => kind.apply(a, fetch(ins.b, regs[d + 1])),
            };
        }
        regs[0]
    }

    /// Scores every page of `columns` into `out[..columns.len()]`.
    ///
    /// # Panics
    /// If `out` is shorter than `columns.len()`, or a column the program reads is missing.
    pub fn eval_batch(&self, columns: &Columns<'_>, out: &mut [f64], scratch: &mut Scratch) {
        let len = columns.len();
        assert!(
            out.len() >= len,
            "output holds {} scores, need {len}",
            out.len()
        );
        let needed = self.registers * CHUNK;
        if scratch.registers.len() < needed {
            scratch.registers.resize(needed, 0.0);
        }
        for t in &self.terminals {
            columns.column(*t);
        }
        let mut start = 0;
        while start < len {
            let end = (start + CHUNK).min(len);
            self.eval_chunk(columns, start, end, &mut scratch.registers[..needed]);
            out[start..end].copy_from_slice(&scratch.registers[..end - start]);
            start = end;
        }
    }

    fn eval_chunk(&self, columns: &Columns<'_>, start: usize, end: usize, regs: &mut [f64]) {
        let n = end - start;
        for ins in &self.code {
            let d = ins.dst as usize * CHUNK;
            let (head, tail) = regs.split_at_mut(d + CHUNK);
            let dst = &mut head[d..d + n];
            let next = &tail[..n.min(tail.len())];
            let operand_b = |src: Src| match src {
                Src::Reg => Operand::Slice(next),
                Src::Col(t) => Operand::Slice(&columns.column(t)[start..end]),
                Src::Imm(c) => Operand::Scalar(c),
            };
            let Some(kind) = ins.op else {
                // A copy: the formula is a single leaf.
                match ins.a {
                    Src::Reg => {}
                    Src::Col(t) => dst.copy_from_slice(&columns.column(t)[start..end]),
                    Src::Imm(c) => dst.fill(c),
                }
                continue;
            };
            let kind = match kind {
                Kind::Unary(kind) => {
                    match ins.a {
                        Src::Reg => unary_in_place(dst, |x| kind.apply(x)),
                        Src::Col(t) => {
                            unary_from(dst, &columns.column(t)[start..end], |x| kind.apply(x))
                        }
                        Src::Imm(c) => dst.fill(kind.apply(c)),
                    }
                    continue;
                }
                Kind::Binary(kind) => kind,
            };
            let (a, b) = (ins.a, operand_b(ins.b));
            // One arm per kind, so that each loop is compiled (and vectorised) with its
            // operation inlined.
            match kind {
                BinaryKind::Add => binary(dst, a, b, columns, start, ops::add),
                BinaryKind::Sub => binary(dst, a, b, columns, start, ops::sub),
                BinaryKind::Mul => binary(dst, a, b, columns, start, ops::mul),
                BinaryKind::DivPaper => binary(dst, a, b, columns, start, ops::div_paper),
                BinaryKind::DivReference => binary(dst, a, b, columns, start, ops::div_reference),
                BinaryKind::Pow => binary(dst, a, b, columns, start, ops::pow),
            }
        }
    }
}

/// The second operand of a binary instruction, resolved for one chunk.
enum Operand<'s> {
    Slice(&'s [f64]),
    Scalar(f64),
}

#[inline(always)]
fn unary_in_place(dst: &mut [f64], f: impl Fn(f64) -> f64) {
    for x in dst.iter_mut() {
        *x = f(*x);
    }
}

#[inline(always)]
fn unary_from(dst: &mut [f64], src: &[f64], f: impl Fn(f64) -> f64) {
    for (x, &s) in dst.iter_mut().zip(src) {
        *x = f(s);
    }
}

/// `dst = f(a, b)` over a chunk; `a` is the destination register itself, a column or a
/// constant.
#[inline(always)]
fn binary(
    dst: &mut [f64],
    a: Src,
    b: Operand<'_>,
    columns: &Columns<'_>,
    start: usize,
    f: impl Fn(f64, f64) -> f64 + Copy,
) {
    let n = dst.len();
    match (a, b) {
        (Src::Reg, Operand::Slice(b)) => {
            for (x, &y) in dst.iter_mut().zip(&b[..n]) {
                *x = f(*x, y);
            }
        }
        (Src::Reg, Operand::Scalar(y)) => {
            for x in dst.iter_mut() {
                *x = f(*x, y);
            }
        }
        (Src::Col(t), Operand::Slice(b)) => {
            let a = &columns.column(t)[start..start + n];
            for ((x, &p), &q) in dst.iter_mut().zip(a).zip(&b[..n]) {
                *x = f(p, q);
            }
        }
        (Src::Col(t), Operand::Scalar(y)) => {
            let a = &columns.column(t)[start..start + n];
            for (x, &p) in dst.iter_mut().zip(a) {
                *x = f(p, y);
            }
        }
        (Src::Imm(c), Operand::Slice(b)) => {
            for (x, &q) in dst.iter_mut().zip(&b[..n]) {
                *x = f(c, q);
            }
        }
        (Src::Imm(c), Operand::Scalar(y)) => dst.fill(f(c, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::interpret;

    fn check(text: &str, closure: Closure, rows: &[[f64; Terminal::COUNT]]) {
        let f: Formula = text.parse().unwrap();
        let program = Program::compile(&f, closure);
        let cols: Vec<Vec<f64>> = (0..Terminal::COUNT)
            .map(|k| rows.iter().map(|r| r[k]).collect())
            .collect();
        let mut columns = Columns::new(rows.len());
        for t in Terminal::ALL {
            columns = columns.with(t, &cols[t.index()]);
        }
        let mut out = vec![0.0; rows.len()];
        program.eval_batch(&columns, &mut out, &mut Scratch::new());
        for (row, got) in rows.iter().zip(&out) {
            let want = interpret(&f, closure, row);
            assert_eq!(got.to_bits(), want.to_bits(), "{text} batch on {row:?}");
            let one = program.eval_one(row);
            assert_eq!(one.to_bits(), want.to_bits(), "{text} one on {row:?}");
        }
    }

    #[test]
    fn matches_the_interpreter() {
        let rows: Vec<[f64; Terminal::COUNT]> = (0..600)
            .map(|i| {
                let x = i as f64;
                [
                    x % 7.0 + 1.0,
                    x,
                    (x * 0.37).floor(),
                    x / 13.0,
                    -x,
                    0.0,
                    1e300,
                    x.sin(),
                    x * 0.25,
                    x % 5.0,
                    (x % 8.0).min(7.0),
                    (x % 3.0).min(x % 8.0),
                    1.0 / (x + 1.0),
                    (x + 2.0).ln(),
                    1.0 / (x + 3.0),
                    (x % 31.0).min(30.0),
                    (x % 11.0).min(x % 31.0),
                    1.0 / (x + 4.0),
                ]
            })
            .collect();
        for text in [
            "t",
            "3",
            "-t",
            "t + 1",
            "1 + t",
            "t * n - X / CG",
            "(t * X)^100.1",
            "exp(CG * (1 + log(t)))",
            "pow(99.5 * exp(GAD), (t + GAD)^CG)",
            "1 + X/n - 2.73/(t + 2.72) - 10",
            "log(NAD) / SAD + AAD ^ -GAD",
            "-(log(2) * 3)",
            "exp(t) * exp(n) - exp(X) * exp(t)",
            "w * MLE / (HR + tc) - n7 ^ X7",
            "X30 / n30 + GR * P",
        ] {
            check(text, Closure::Paper, &rows);
            check(text, Closure::Reference, &rows);
        }
    }

    #[test]
    fn leaf_and_constant_programs() {
        let p = Program::compile(&"log(100) * 2".parse().unwrap(), Closure::Paper);
        assert_eq!(p.code.len(), 1);
        assert_eq!(p.eval_one(&[0.0; Terminal::COUNT]), 100f64.ln() * 2.0);
    }

    #[test]
    fn deep_formulas_use_the_heap_path() {
        let text = (0..40).fold("t".to_string(), |acc, _| format!("n - ({acc})"));
        check(
            &text,
            Closure::Paper,
            &[[
                1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
                16.0, 17.0, 18.0,
            ]],
        );
    }
}
