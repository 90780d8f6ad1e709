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
//!
//! A subtree that reads one counting terminal only ([`Terminal::is_count`]: `t`, `n`,
//! `X`, ...) and calls into libm (`pow`, `exp`, `log`) is *tabulated*: compiled on its
//! own ([`Table`]), evaluated once at compile time for the values `0..TABLE`, and looked
//! up from the terminal's column at run time. Counts are small integers, and a page's
//! lookup costs far less than the libm calls it replaces (`0.5^t`, `log(n + 1)`,
//! `exp(-X / 2)`). A chunk holding a value outside the table (a long period's `t`) runs
//! the subtree's own program instead. Either way the value is the same function of the
//! same operand bits, so tabulation changes no result.

use crate::formula::ops::{self, BinaryKind, Kind, UnaryKind};
use crate::formula::{BinaryOp, Closure, Formula, Node, Scope, Terminal, UnaryOp, Visit};

/// Pages evaluated per instruction dispatch.
pub const CHUNK: usize = 256;

/// Where an operand comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    /// A register (the instruction's own destination, or the one after it).
    Reg,
    /// A terminal's column.
    Col(Terminal),
    /// Input column `i` (a [`Split`]'s residual reading one of its inputs).
    In(u32),
    /// A constant.
    Imm(f64),
}

/// What an instruction computes into its destination.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    /// `a` (only in programs whose formula is a single leaf).
    Copy,
    /// `op(a, b)` (`b` unused for a unary operator).
    Apply(Kind),
    /// The value of [`Table`] `i` at terminal column `a`.
    Lookup(u32),
}

/// One instruction: `dst = step(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Instr {
    step: Step,
    dst: u32,
    a: Src,
    b: Src,
}

/// What replaces a subtree in a compiled program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Root {
    /// A lookup in a [`Table`] of the subtree's values at the counts of this terminal.
    Table(Terminal),
    /// Input column `i` (a [`Split`]'s residual).
    Input(u32),
}

/// Values tabulated per subtree: the counts `0..TABLE`.
const TABLE: usize = 64;

/// A subtree of one counting terminal, tabulated (see the module docs).
///
/// **Invariant:** `values[v]` is `program`'s value at `terminal = v` (bit for bit: it
/// was computed by `program` itself).
#[derive(Debug, Clone)]
struct Table {
    terminal: Terminal,
    values: [f64; TABLE],
    /// The subtree compiled on its own (never tabulated), for values outside the table.
    program: Program,
}

impl Table {
    fn new(subtree: &Formula, terminal: Terminal, closure: Closure) -> Table {
        let program = Program::compile_plain(subtree, closure);
        let counts: Vec<f64> = (0..TABLE).map(|v| v as f64).collect();
        let mut values = [0.0; TABLE];
        program.eval_batch(
            &Columns::new(TABLE).with(terminal, &counts),
            &mut values,
            &mut Scratch::new(),
        );
        Table {
            terminal,
            values,
            program,
        }
    }

    /// The value at `x`, if `x` is one of the tabulated counts.
    #[inline(always)]
    fn get(&self, x: f64) -> Option<f64> {
        holds(x).then(|| self.values[slot(x)])
    }
}

/// 2^52: adding it to an integer below it leaves the integer in the low mantissa bits.
const SHIFT: f64 = 4_503_599_627_370_496.0;

/// Whether `x` is one of the counts `0..TABLE` (not -0.0, a fraction or NaN). The bits of
/// a non-negative double order as its values, so one comparison bounds it (and rejects
/// the sign bit and NaN); the shift rounds a fraction away.
#[inline(always)]
fn holds(x: f64) -> bool {
    x.to_bits() <= ((TABLE - 1) as f64).to_bits() && (x + SHIFT) - SHIFT == x
}

/// The table slot of a count `x` (see [`holds`]); some slot for any `x`.
#[inline(always)]
fn slot(x: f64) -> usize {
    ((x + SHIFT).to_bits() & (TABLE as u64 - 1)) as usize
}

/// The terminal values of a batch of pages, one slice per terminal a program reads.
///
/// ```
/// use freshgp_formula::eval::Columns;
/// use freshgp_formula::formula::Terminal;
///
/// let t = [1.0, 2.0];
/// let columns = Columns::new(2).with(Terminal::T, &t);
/// assert_eq!(columns.len(), 2);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    len: usize,
    columns: [Option<&'a [f64]>; Terminal::COUNT],
    /// The first input columns of a [`Split`]'s residual, its state inputs then its host
    /// inputs, each group read through an index per page: input `i` of group `g` for page
    /// `p` is `gathered[g].0[i][gathered[g].1[p]]` (none for a whole program).
    gathered: [Gathered<'a>; 2],
    /// The last input columns of a [`Split`]'s residual, its fixed inputs: one value per
    /// page.
    fixed: &'a [Vec<f64>],
}

impl<'a> Columns<'a> {
    /// No columns yet, for `len` pages.
    pub fn new(len: usize) -> Columns<'a> {
        Columns {
            len,
            columns: [None; Terminal::COUNT],
            gathered: [(&[], &[]); 2],
            fixed: &[],
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
    /// A chunk's values of each gathered input ([`Split::columns`]).
    gathered: Vec<f64>,
    /// Registers of a [`Table`]'s own program, for a chunk outside the table.
    table_registers: Vec<f64>,
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
    tables: Vec<Table>,
    /// Registers the largest table's own program needs (0 without tables).
    table_registers: usize,
}

impl Program {
    /// Compiles `formula` under `closure`.
    pub fn compile(formula: &Formula, closure: Closure) -> Program {
        let roots = table_roots(formula).into_iter().map(|t| t.map(Root::Table));
        Program::compile_with(formula, closure, roots.collect())
    }

    /// Compiles `formula` without tabulating any subtree (a [`Table`]'s own program).
    fn compile_plain(formula: &Formula, closure: Closure) -> Program {
        Program::compile_with(formula, closure, vec![None; formula.len()])
    }

    /// Compiles `formula` with the subtree rooted at each `roots[i]` replaced by what it
    /// says (a table lookup, or an input column).
    fn compile_with(formula: &Formula, closure: Closure, roots: Vec<Option<Root>>) -> Program {
        // Nodes strictly inside a replaced subtree emit nothing.
        let mut inside = vec![false; formula.len()];
        // Nodes of an input's subtree read no column here (it was made elsewhere).
        let mut input = vec![false; formula.len()];
        for (root, _) in roots
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r, Some(Root::Input(_))))
        {
            input[formula.subtree_start(root)..=root].fill(true);
        }
        for (root, _) in roots.iter().enumerate().filter(|(_, t)| t.is_some()) {
            inside[formula.subtree_start(root)..root].fill(true);
        }
        let mut tables = Vec::new();
        let mut code = Vec::new();
        let mut registers = 1;
        let mut index = 0;
        // Each node's result is where its value is: a leaf, a folded constant, or the
        // register of its stack slot.
        let root = formula.fold_slots(|slot, node| {
            let i = index;
            index += 1;
            if inside[i] {
                // A placeholder that only nodes of the same subtree read: folded away.
                return Src::Imm(0.0);
            }
            let (step, a, b) = match (roots[i], node) {
                (Some(Root::Table(t)), _) => {
                    tables.push(Table::new(&formula.subformula(i), t, closure));
                    let table = (tables.len() - 1) as u32;
                    (Step::Lookup(table), Src::Col(t), Src::Imm(0.0))
                }
                (Some(Root::Input(input)), _) => return Src::In(input),
                (None, Visit::Const(c)) => return Src::Imm(c),
                (None, Visit::Var(t)) => return Src::Col(t),
                (None, Visit::Unary(op, Src::Imm(c))) => return Src::Imm(closure.unary(op, c)),
                (None, Visit::Binary(op, Src::Imm(x), Src::Imm(y))) => {
                    return Src::Imm(closure.binary(op, x, y))
                }
                (None, Visit::Unary(op, a)) => {
                    let kind = Kind::Unary(UnaryKind::of(op, closure));
                    (Step::Apply(kind), a, Src::Imm(0.0))
                }
                (None, Visit::Binary(op, a, b)) => {
                    let kind = Kind::Binary(BinaryKind::of(op, closure));
                    (Step::Apply(kind), a, b)
                }
            };
            code.push(Instr {
                step,
                dst: slot as u32,
                a,
                b,
            });
            // A binary operator's second operand may sit in the register after its own.
            let used = if matches!(step, Step::Apply(Kind::Binary(_))) {
                2
            } else {
                1
            };
            registers = registers.max(slot + used);
            Src::Reg
        });
        if root != Src::Reg {
            code.push(Instr {
                step: Step::Copy,
                dst: 0,
                a: root,
                b: Src::Imm(0.0),
            });
        }
        let table_registers = tables.iter().map(|t| t.program.registers).max();
        // The terminals read: an input's are read where its column was made.
        let mut terminals = [false; Terminal::COUNT];
        for (i, node) in formula.nodes().iter().enumerate() {
            if let (Node::Var(t), false) = (node, input[i]) {
                terminals[t.index()] = true;
            }
        }
        Program {
            code,
            registers,
            terminals: Terminal::ALL
                .into_iter()
                .filter(|t| terminals[t.index()])
                .collect(),
            table_registers: table_registers.unwrap_or(0),
            tables,
        }
    }

    /// The terminals the program reads (their columns must be given).
    pub fn terminals(&self) -> &[Terminal] {
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
            Src::In(_) => panic!("a split's residual is evaluated in batches only"),
        };
        for ins in &self.code {
            let d = ins.dst as usize;
            let a = fetch(ins.a, regs[d]);
            regs[d] = match ins.step {
                Step::Copy => a,
                Step::Apply(Kind::Unary(kind)) => kind.apply(a),
                Step::Apply(Kind::Binary(kind)) => kind.apply(a, fetch(ins.b, regs[d + 1])),
                Step::Lookup(i) => {
                    let table = &self.tables[i as usize];
                    table
                        .get(a)
                        .unwrap_or_else(|| table.program.eval_one(terminals))
                }
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
        let table_needed = self.table_registers * CHUNK;
        if scratch.table_registers.len() < table_needed {
            scratch.table_registers.resize(table_needed, 0.0);
        }
        for t in &self.terminals {
            columns.column(*t);
        }
        let gathered = columns.gathered.iter().map(|g| g.0.len()).sum::<usize>();
        scratch.gathered.resize(gathered * CHUNK, 0.0);
        let mut start = 0;
        while start < len {
            let end = (start + CHUNK).min(len);
            let inputs = (columns.gathered.iter())
                .flat_map(|(values, of)| values.iter().map(move |v| (v, of)));
            for ((values, of), chunk) in inputs.zip(scratch.gathered.chunks_exact_mut(CHUNK)) {
                // As slices, so that the loop keeps their bounds in registers.
                let (values, of): (&[f64], &[u32]) = (values, &of[start..end]);
                for (x, &s) in chunk.iter_mut().zip(of) {
                    *x = values[s as usize];
                }
            }
            let regs = &mut scratch.registers[..needed];
            let chunk = Chunk {
                pages: (start, end),
                values: &scratch.gathered,
            };
            self.eval_chunk(columns, chunk, regs, &mut scratch.table_registers);
            out[start..end].copy_from_slice(&scratch.registers[..end - start]);
            start = end;
        }
    }

    /// Runs the program over the chunk's pages; the result is in `regs[..end - start]`.
    /// `table_regs` serves a table's own program.
    fn eval_chunk(
        &self,
        columns: &Columns<'_>,
        chunk: Chunk<'_>,
        regs: &mut [f64],
        table_regs: &mut [f64],
    ) {
        let (start, end) = chunk.pages;
        let n = end - start;
        let gathered = chunk.values.len() / CHUNK;
        for ins in &self.code {
            let d = ins.dst as usize * CHUNK;
            let (head, tail) = regs.split_at_mut(d + CHUNK);
            let dst = &mut head[d..d + n];
            let next = &tail[..n.min(tail.len())];
            let operand = |src: Src| match src {
                Src::Reg => Operand::Slice(next),
                Src::Col(t) => Operand::Slice(&columns.column(t)[start..end]),
                Src::In(i) => match (i as usize).checked_sub(gathered) {
                    None => Operand::Slice(&chunk.values[i as usize * CHUNK..][..n]),
                    Some(i) => Operand::Slice(&columns.fixed[i][start..end]),
                },
                Src::Imm(c) => Operand::Scalar(c),
            };
            // The first operand: the destination register itself, or as the second.
            let first = |src: Src| match src {
                Src::Reg => None,
                src => Some(operand(src)),
            };
            let kind = match ins.step {
                Step::Apply(kind) => kind,
                Step::Copy => {
                    // The formula is a single leaf.
                    match first(ins.a) {
                        None => {}
                        Some(Operand::Slice(a)) => dst.copy_from_slice(a),
                        Some(Operand::Scalar(c)) => dst.fill(c),
                    }
                    continue;
                }
                Step::Lookup(i) => {
                    let table = &self.tables[i as usize];
                    let column = &columns.column(table.terminal)[start..end];
                    if !look_up(dst, column, table) {
                        // A value outside the table: the subtree's own program.
                        let program = &table.program;
                        program.eval_chunk(columns, chunk, table_regs, &mut []);
                        dst.copy_from_slice(&table_regs[..n]);
                    }
                    continue;
                }
            };
            let kind = match kind {
                Kind::Unary(kind) => {
                    // One arm per kind, as for binary operators below.
                    match kind {
                        UnaryKind::Neg => unary(dst, first(ins.a), ops::neg),
                        UnaryKind::LogPaper => unary(dst, first(ins.a), recall(ops::log_paper)),
                        UnaryKind::LogReference => {
                            unary(dst, first(ins.a), recall(ops::log_reference))
                        }
                        UnaryKind::Exp => unary(dst, first(ins.a), recall(ops::exp)),
                    }
                    continue;
                }
                Kind::Binary(kind) => kind,
            };
            let (a, b) = (first(ins.a), operand(ins.b));
            // One arm per kind, so that each loop is compiled (and vectorised) with its
            // operation inlined.
            match kind {
                BinaryKind::Add => binary(dst, a, b, ops::add),
                BinaryKind::Sub => binary(dst, a, b, ops::sub),
                BinaryKind::Mul => binary(dst, a, b, ops::mul),
                BinaryKind::DivPaper => binary(dst, a, b, ops::div_paper),
                BinaryKind::DivReference => binary(dst, a, b, ops::div_reference),
                BinaryKind::Pow => binary(dst, a, b, recall2(ops::pow)),
            }
        }
    }
}

/// Input columns read through an index per page: the values, one column per input, and
/// each page's index into them.
pub(crate) type Gathered<'a> = (&'a [Vec<f64>], &'a [u32]);

/// The pages a chunk of [`Program::eval_batch`] evaluates (at most [`CHUNK`]), and their
/// values of each gathered input, [`CHUNK`] slots per input (so `values` holds
/// [`CHUNK`] times as many values as there are gathered inputs).
#[derive(Clone, Copy)]
struct Chunk<'a> {
    pages: (usize, usize),
    values: &'a [f64],
}

/// A formula split for pages that share most of their state (the per-page simulator's
/// shared states) and their host:
/// - its *state inputs*, the largest subtrees that read only terminals of
///   [`Scope::State`] (and some terminal), are evaluated once per shared state;
/// - its *host inputs*, the largest that read only terminals of [`Scope::Host`], once
///   per host;
/// - its *fixed inputs*, the largest that read only terminals of [`Scope::Fixed`] and
///   apply some operator to them, once per page and run;
/// - the *residual*, the rest, runs per page and cycle over the fixed terminals and the
///   inputs' values as input columns (the state inputs first, then the host inputs, then
///   the fixed inputs).
///
/// **Invariant:** the residual over input columns holding the inputs' values gives, bit
/// for bit, the whole formula's value: each node computes what it computed in the whole
/// program, from the same operand bits.
///
/// For `w * (1 - exp(-MLE * t)) + exp(HR) * X7 / log(w)` with `w` fixed and `HR` per
/// host, the state inputs are `1 - exp(-MLE * t)` and `X7`, the host input `exp(HR)`,
/// the fixed input `log(w)`, and the residual `w * in0 + in2 * in1 / in3`.
#[derive(Debug, Clone)]
pub struct Split {
    /// The state, host and fixed inputs.
    inputs: [Vec<Program>; 3],
    residual: Program,
}

impl Split {
    /// Splits `formula` (under `closure`) by the terminals' scopes.
    pub fn new(formula: &Formula, closure: Closure, scope: impl Fn(Terminal) -> Scope) -> Split {
        let (roots, order) = input_roots(formula, scope);
        let compile = |roots: &Vec<usize>| {
            (roots.iter())
                .map(|&root| Program::compile(&formula.subformula(root), closure))
                .collect()
        };
        Split {
            inputs: [compile(&order[0]), compile(&order[1]), compile(&order[2])],
            residual: Program::compile_with(formula, closure, roots),
        }
    }

    /// The state inputs, in the order of the residual's first input columns.
    pub fn state(&self) -> &[Program] {
        &self.inputs[0]
    }

    /// The host inputs, in the order of the residual's input columns after the state
    /// inputs'.
    pub fn host(&self) -> &[Program] {
        &self.inputs[1]
    }

    /// The fixed inputs, in the order of the residual's last input columns.
    pub fn fixed(&self) -> &[Program] {
        &self.inputs[2]
    }

    /// The per-page rest, reading the fixed terminals and the input columns
    /// ([`Split::columns`]).
    pub fn residual(&self) -> &Program {
        &self.residual
    }

    /// The residual's input columns for `len` pages: each state input's value per state
    /// and each page's state (`state`), each host input's value per host and each page's
    /// host (`host`), each fixed input's value per page (`fixed`). The fixed terminals'
    /// columns are added with [`Columns::with`].
    ///
    /// # Panics
    /// If a group holds another number of inputs than the split has, or an index column
    /// or a fixed input fewer than `len` values (or, when evaluated, an index names a
    /// value an input does not hold).
    pub fn columns<'a>(
        &self,
        len: usize,
        state: Gathered<'a>,
        host: Gathered<'a>,
        fixed: &'a [Vec<f64>],
    ) -> Columns<'a> {
        let groups = [state.0.len(), host.0.len(), fixed.len()];
        let split = self.inputs.each_ref().map(|programs| programs.len());
        assert_eq!(
            groups, split,
            "inputs given (state, host, fixed) against the split's"
        );
        for (_, of) in [state, host].iter().filter(|g| !g.0.is_empty()) {
            assert!(of.len() >= len, "{} indices, need {len}", of.len());
        }
        for (i, values) in fixed.iter().enumerate() {
            assert!(values.len() >= len, "fixed input {i} is too short");
        }
        let mut columns = Columns::new(len);
        columns.gathered = [state, host];
        columns.fixed = fixed;
        columns
    }
}

/// The roots of a [`Split`]'s state, host and fixed inputs, as [`Root::Input`]s numbered
/// in the order of the residual's input columns, and the nodes of each kind in that order.
fn input_roots(
    formula: &Formula,
    scope: impl Fn(Terminal) -> Scope,
) -> (Vec<Option<Root>>, [Vec<usize>; 3]) {
    /// What a subtree reads.
    #[derive(Clone, Copy, PartialEq)]
    enum Reads {
        Nothing,
        /// Terminals of [`Scope::State`] only.
        State,
        /// Terminals of [`Scope::Host`] only.
        Host,
        /// Terminals of [`Scope::Fixed`] only; whether an operator applies to them.
        Fixed {
            applied: bool,
        },
        /// Terminals of two scopes.
        Mixed,
    }
    // The roots of each kind, in the order they are found.
    let mut order: [Vec<usize>; 3] = Default::default();
    let mut mark = |(root, reads): (usize, Reads)| match reads {
        Reads::State => order[0].push(root),
        Reads::Host => order[1].push(root),
        Reads::Fixed { applied: true } => order[2].push(root),
        _ => {}
    };
    let mut index = 0;
    let root = formula.fold(|node: Visit<(usize, Reads)>| {
        let i = index;
        index += 1;
        let reads = match node {
            Visit::Const(_) => Reads::Nothing,
            Visit::Var(t) => match scope(t) {
                Scope::State => Reads::State,
                Scope::Host => Reads::Host,
                Scope::Fixed => Reads::Fixed { applied: false },
            },
            Visit::Unary(_, (_, Reads::Fixed { .. })) => Reads::Fixed { applied: true },
            Visit::Unary(_, (_, reads)) => reads,
            Visit::Binary(_, a, b) => match (a.1, b.1) {
                (Reads::Fixed { .. }, Reads::Nothing | Reads::Fixed { .. })
                | (Reads::Nothing, Reads::Fixed { .. }) => Reads::Fixed { applied: true },
                (Reads::Nothing, r) | (r, Reads::Nothing) => r,
                (x, y) if x == y && x != Reads::Mixed => x,
                _ => {
                    // The largest subtrees of one scope end here.
                    mark(a);
                    mark(b);
                    Reads::Mixed
                }
            },
        };
        (i, reads)
    });
    mark(root);
    let mut roots = vec![None; formula.len()];
    for (n, &root) in order.iter().flatten().enumerate() {
        roots[root] = Some(Root::Input(n as u32));
    }
    (roots, order)
}

/// The roots of the subtrees to tabulate, with the terminal each reads: the largest
/// subtrees that read one counting terminal and call into libm.
fn table_roots(formula: &Formula) -> Vec<Option<Terminal>> {
    /// The terminals a subtree reads.
    #[derive(Clone, Copy, PartialEq)]
    enum Reads {
        Nothing,
        One(Terminal),
        More,
    }
    /// A subtree: its root, what it reads, whether it calls into libm.
    type Subtree = (usize, Reads, bool);
    let mut roots = vec![None; formula.len()];
    let mut mark = |(root, reads, costly): Subtree| {
        if let (Reads::One(t), true) = (reads, costly) {
            roots[root] = Some(t);
        }
    };
    let mut index = 0;
    let root = formula.fold(|node: Visit<Subtree>| {
        let i = index;
        index += 1;
        match node {
            Visit::Const(_) => (i, Reads::Nothing, false),
            Visit::Var(t) if t.is_count() => (i, Reads::One(t), false),
            Visit::Var(_) => (i, Reads::More, false),
            Visit::Unary(op, (_, reads, costly)) => {
                let libm = op != UnaryOp::Neg && reads != Reads::Nothing;
                (i, reads, costly || libm)
            }
            Visit::Binary(op, a, b) => {
                let reads = match (a.1, b.1) {
                    (Reads::Nothing, r) | (r, Reads::Nothing) => r,
                    (Reads::One(s), Reads::One(t)) if s == t => a.1,
                    _ => Reads::More,
                };
                if reads == Reads::More {
                    // The largest subtrees of one terminal end here.
                    mark(a);
                    mark(b);
                }
                let libm = op == BinaryOp::Pow && reads != Reads::Nothing;
                (i, reads, a.2 || b.2 || libm)
            }
        }
    });
    mark(root);
    roots
}

/// `dst[i] = table[column[i]]`; false (and `dst` untouched) if a value of `column` is
/// not in the table.
#[inline]
fn look_up(dst: &mut [f64], column: &[f64], table: &Table) -> bool {
    // Checked in one pass without early exit (it vectorises), then gathered unchecked.
    if !column.iter().fold(true, |all, &v| all & holds(v)) {
        return false;
    }
    for (x, &v) in dst.iter_mut().zip(column) {
        *x = table.values[slot(v)];
    }
    true
}

/// An operand, resolved for one chunk.
#[derive(Clone, Copy)]
enum Operand<'s> {
    Slice(&'s [f64]),
    Scalar(f64),
}

/// `f` (a libm call) with its last answer kept: a run of equal inputs, which pages of
/// one state side by side give (most pages go unvisited for cycles, so many share `t`,
/// `n` and `X`), calls libm once. Inputs are compared bit for bit, so the answer is the
/// call's.
#[inline(always)]
fn recall(f: impl Fn(f64) -> f64) -> impl FnMut(f64) -> f64 {
    let mut last: Option<(u64, f64)> = None;
    move |a| match last {
        Some((bits, value)) if bits == a.to_bits() => value,
        _ => {
            let value = f(a);
            last = Some((a.to_bits(), value));
            value
        }
    }
}

/// [`recall`] for a binary libm call.
#[inline(always)]
fn recall2(f: impl Fn(f64, f64) -> f64) -> impl FnMut(f64, f64) -> f64 {
    let mut last: Option<(u64, u64, f64)> = None;
    move |a, b| match last {
        Some((x, y, value)) if x == a.to_bits() && y == b.to_bits() => value,
        _ => {
            let value = f(a, b);
            last = Some((a.to_bits(), b.to_bits(), value));
            value
        }
    }
}

/// `dst = f(a)` over a chunk; `a` is the destination register itself (`None`), a
/// column or a constant.
#[inline(always)]
fn unary(dst: &mut [f64], a: Option<Operand<'_>>, mut f: impl FnMut(f64) -> f64) {
    match a {
        None => {
            for x in dst.iter_mut() {
                *x = f(*x);
            }
        }
        Some(Operand::Slice(a)) => {
            let n = dst.len();
            for (x, &p) in dst.iter_mut().zip(&a[..n]) {
                *x = f(p);
            }
        }
        Some(Operand::Scalar(c)) => dst.fill(f(c)),
    }
}

/// `dst = f(a, b)` over a chunk; `a` is the destination register itself (`None`), a
/// column or a constant.
#[inline(always)]
fn binary(
    dst: &mut [f64],
    a: Option<Operand<'_>>,
    b: Operand<'_>,
    mut f: impl FnMut(f64, f64) -> f64,
) {
    let n = dst.len();
    match (a, b) {
        (None, Operand::Slice(b)) => {
            for (x, &y) in dst.iter_mut().zip(&b[..n]) {
                *x = f(*x, y);
            }
        }
        (None, Operand::Scalar(y)) => {
            for x in dst.iter_mut() {
                *x = f(*x, y);
            }
        }
        (Some(Operand::Slice(a)), Operand::Slice(b)) => {
            for ((x, &p), &q) in dst.iter_mut().zip(&a[..n]).zip(&b[..n]) {
                *x = f(p, q);
            }
        }
        (Some(Operand::Slice(a)), Operand::Scalar(y)) => {
            for (x, &p) in dst.iter_mut().zip(&a[..n]) {
                *x = f(p, y);
            }
        }
        (Some(Operand::Scalar(c)), Operand::Slice(b)) => {
            for (x, &q) in dst.iter_mut().zip(&b[..n]) {
                *x = f(c, q);
            }
        }
        (Some(Operand::Scalar(c)), Operand::Scalar(y)) => dst.fill(f(c, y)),
    }
}

#[cfg(test)]
#[path = "program_tests.rs"]
mod tests;
