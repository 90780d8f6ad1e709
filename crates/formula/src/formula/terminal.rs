//! The terminals, one table row each: every fact about a page statistic that a layer
//! needs, except how a page's statistics compute it (`PageStats::terminal` in the policy
//! crate) and its definition in the book (docs/src/reference/terminals.md).
//!
//! A row says what the terminal is called in formula text (also its name in exported
//! functions, SQL columns and Python), whether it counts (its values small integers),
//! the values it takes (the rank form relies on them), where it varies (each page's own
//! for a run, its host's, or its state's: what the simulators may share), what a page's
//! statistics must keep for it, and how the scheduler's SQL computes it. A new terminal is
//! one variant and one row here; the matches over terminals elsewhere are exhaustive, so
//! the compiler names what else needs a word. ARCHITECTURE.md gives the recipe.
//!
//! ```
//! use freshgp_formula::formula::{Keeps, Scope, Terminal};
//!
//! let hr = Terminal::HR;
//! assert_eq!((hr.name(), hr.scope(), hr.keeps()), ("HR", Scope::Host, Keeps::Host));
//! assert_eq!(Terminal::from_name("n7"), Some(Terminal::N7));
//! assert!(Terminal::N7.is_count() && !Terminal::MLE.is_count());
//! assert!(Terminal::MLE.sql().is_none());
//! ```

use super::Interval;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A page statistic a formula can read (docs/src/reference/terminals.md). The order is
/// fixed: it is the index of the terminal's column wherever terminal values are stored side
/// by side, and the order of [`Terminal::ROWS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Terminal {
    /// Cycles since the last visit.
    T,
    /// Number of visits.
    N,
    /// Number of visits that detected a change.
    X,
    /// Cho & Garcia-Molina's change-rate estimator.
    CG,
    /// Tan & Mitra: non-adaptive change rate.
    NAD,
    /// Tan & Mitra: shortsighted adaptive (did the last cycle detect a change?).
    SAD,
    /// Tan & Mitra: arithmetically weighted adaptive rate.
    AAD,
    /// Tan & Mitra: geometrically weighted adaptive rate.
    GAD,
    /// The page's importance weight (docs/src/reference/terminals.md#importance-w).
    W,
    /// Cycles since the last detected change (the cycle number when none was detected).
    TC,
    /// Visits in the last 7 cycles.
    N7,
    /// Detected changes in the last 7 cycles.
    X7,
    /// The change rate of the page's host: its pages' detected changes over their visits.
    HR,
    /// The maximum-likelihood Poisson change rate per cycle from the visit intervals
    /// (Cho & Garcia-Molina, irregular access).
    MLE,
    /// Visits in the last 30 cycles (the month window of learned models' frequency
    /// features, docs/src/reference/models.md#frequency-features).
    N30,
    /// Detected changes in the last 30 cycles.
    X30,
    /// The change rate of the page's group (the group rate of learned models as a terminal,
    /// docs/src/reference/terminals.md#neighbours-hr-and-gr): its group's detected changes
    /// over their visits, the group being the page's value of the attribute the data is
    /// grouped by (`--group KEY`; the host when none is chosen, where `GR` equals `HR`).
    GR,
    /// The change probability a learned model predicts for the page
    /// (docs/src/reference/terminals.md#p): given by the model a policy is built with
    /// (`P * t [model m.json]`), from the page's own observations.
    P,
    /// The cycle's budget `k / P`: the share of the known pages the crawler visits this
    /// cycle (docs/src/reference/terminals.md#budget-b), the same for every page, so that
    /// one formula can rank differently at different budgets.
    B,
}

/// Calls `$m!` with every terminal's variant name, in column order: for code that needs
/// one monomorphic loop per terminal (a `match` whose arms the compiler specialises). The
/// list is checked against [`Terminal::ALL`] by this module's tests.
#[macro_export]
macro_rules! with_each_terminal {
    ($m:ident) => {
        $m!(T N X CG NAD SAD AAD GAD W TC N7 X7 HR MLE N30 X30 GR P B)
    };
}

/// Where a terminal's value varies, which decides what pages can share its evaluation (a
/// [`Split`](crate::eval::Split)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Shared by the pages of one state (evaluated once per state and cycle).
    State,
    /// Shared by the pages of one host (evaluated once per host and cycle: `HR`).
    Host,
    /// Each page's own, and fixed for a whole run (the page weight `w`).
    Fixed,
}

/// What a page's statistics must keep so that a terminal can be read, beyond the visit
/// and change counts every page keeps (the policy crate's `Track`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keeps {
    /// Nothing more: the counts, the last visit and change, and the change-weighted sums.
    Counts,
    /// The page's importance weight.
    Weight,
    /// The page's host, whose totals give the host's rate.
    Host,
    /// The visits and changes of the last 7 cycles.
    Window7,
    /// The visit intervals, for the maximum-likelihood rate.
    Intervals,
    /// The visits and changes of the last 30 cycles.
    Window30,
    /// The page's group, whose totals give the group's rate.
    Group,
}

/// How the scheduler's SQL computes a terminal (docs/src/reference/sql.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sql {
    /// An expression of page `k` (a row of the query's counts table `fgp_counts`) at
    /// cycle `p.d`, with placeholders the query fills for its dialect: `{n}` and `{x}` are
    /// the visit and change counts as doubles, `{weight}` the page's weight (1 without
    /// weights), `{dbl E}` is `E` cast to a double and `{exp2 E}` is `2^E` for an integer
    /// `E`, exact. The query joins what `GAD` (`g.anchor`), `HR` (`h`, `ht`) and `b`
    /// (`bz.b`) read.
    Expr(&'static str),
    /// Not computed by the query; the error's words, after "the formula reads NAME, ".
    Missing(&'static str),
}

/// Everything about one terminal but its computation and its book entry.
#[derive(Clone, Copy, Debug)]
pub struct TerminalRow {
    /// The terminal.
    pub terminal: Terminal,
    /// Its name in formula text, exported functions, SQL columns and Python
    /// (case-sensitive).
    pub name: &'static str,
    /// Whether it counts cycles or visits: its values are small non-negative integers
    /// (`SAD` is 0 or 1), so that a function of it alone can be tabulated.
    pub count: bool,
    /// The values it takes wherever a policy is scored (the simulation, the scheduler,
    /// SQL).
    pub range: Interval,
    /// Where it varies.
    pub scope: Scope,
    /// What a page's statistics must keep for it.
    pub keeps: Keeps,
    /// How the scheduler's SQL computes it.
    pub sql: Sql,
}

/// A row of [`Terminal::ROWS`] (shorter to read there).
const fn row(
    terminal: Terminal,
    name: &'static str,
    count: bool,
    (lo, hi): (f64, f64),
    scope: Scope,
    keeps: Keeps,
    sql: Sql,
) -> TerminalRow {
    TerminalRow {
        terminal,
        name,
        count,
        range: Interval::exact(lo, hi),
        scope,
        keeps,
        sql,
    }
}

const INF: f64 = f64::INFINITY;
/// The range of a rate or a probability.
const UNIT: (f64, f64) = (0.0, 1.0);

use Keeps::Counts;
use Scope::State;
use Sql::{Expr, Missing};

impl Terminal {
    /// Every terminal's row, in column order.
    #[rustfmt::skip]
    pub const ROWS: [TerminalRow; 19] = [
        // t >= 1: a page is scored in a cycle after its last visit (d when never).
        row(Terminal::T, "t", true, (1.0, INF), State, Counts, Expr("{dbl p.d - k.last_visit}")),
        row(Terminal::N, "n", true, (0.0, INF), State, Counts, Expr("{n}")),
        row(Terminal::X, "X", true, (0.0, INF), State, Counts, Expr("{x}")),
        // `+ 0.0` turns the -0 of -ln(1) into +0, as `PageStats::cg` does.
        row(Terminal::CG, "CG", false, (0.0, INF), State, Counts,
            Expr("(-ln(({n} - {x} + 0.5) / ({n} + 0.5)) + 0.0)")),
        row(Terminal::NAD, "NAD", false, UNIT, State, Counts,
            Expr("(CASE WHEN p.d <= 1 THEN {dbl 0} ELSE {x} * (1.0 / {dbl p.d - 1}) END)")),
        row(Terminal::SAD, "SAD", true, UNIT, State, Counts,
            Expr("(CASE WHEN k.x > 0 AND k.last_change + 1 = p.d THEN {dbl 1} ELSE {dbl 0} END)")),
        // d(d - 1)/2 is exact in doubles for any realistic cycle (d < 2^26).
        row(Terminal::AAD, "AAD", false, UNIT, State, Counts,
            Expr("(CASE WHEN p.d <= 1 THEN {dbl 0} ELSE {dbl k.change_sum} / ({dbl p.d} * {dbl p.d - 1} * 0.5) END)")),
        row(Terminal::GAD, "GAD", false, UNIT, State, Counts,
            Expr("(CASE WHEN p.d <= 1 OR k.x = 0 THEN {dbl 0} ELSE (g.anchor * {exp2 k.last_change - p.d}) / (1.0 - {exp2 1 - p.d}) END)")),
        row(Terminal::W, "w", false, (0.0, INF), Scope::Fixed, Keeps::Weight, Expr("{weight}")),
        row(Terminal::TC, "tc", true, (1.0, INF), State, Counts, Expr("{dbl p.d - k.last_change}")),
        row(Terminal::N7, "n7", true, (0.0, 7.0), State, Keeps::Window7, Expr("{dbl k.n7}")),
        row(Terminal::X7, "X7", true, (0.0, 7.0), State, Keeps::Window7, Expr("{dbl k.x7}")),
        row(Terminal::HR, "HR", false, UNIT, Scope::Host, Keeps::Host,
            Expr("(CASE WHEN h.host IS NULL THEN {x} / {n} ELSE {dbl ht.hx} / {dbl ht.hn} END)")),
        // The root of a strictly positive equation (ln 2 before any visit).
        row(Terminal::MLE, "MLE", false, (f64::MIN_POSITIVE, INF), State, Keeps::Intervals,
            Missing("the maximum-likelihood change rate, an iterative estimate per page that the query does not compute")),
        row(Terminal::N30, "n30", true, (0.0, 30.0), State, Keeps::Window30, Expr("{dbl k.n30}")),
        row(Terminal::X30, "X30", true, (0.0, 30.0), State, Keeps::Window30, Expr("{dbl k.x30}")),
        // Pages of one state but of different groups differ in GR: the simulators share no
        // states when a formula reads it.
        row(Terminal::GR, "GR", false, UNIT, State, Keeps::Group,
            Missing("the change rate of the page's group, which the query does not compute: the observations hold hosts, not the attribute pages are grouped by (grouped by host, GR equals HR: write HR)")),
        // A learned model reads the page's 30-cycle window.
        row(Terminal::P, "P", false, UNIT, State, Keeps::Window30,
            Missing("a learned model's prediction, which the query does not compute (score the pages with `freshgp schedule` instead)")),
        row(Terminal::B, "b", false, UNIT, State, Counts, Expr("bz.b")),
    ];

    /// Number of terminals.
    pub const COUNT: usize = Terminal::ROWS.len();

    /// Every terminal, in column order.
    pub const ALL: [Terminal; Terminal::COUNT] = {
        let mut all = [Terminal::T; Terminal::COUNT];
        let mut i = 0;
        while i < Terminal::COUNT {
            all[i] = Terminal::ROWS[i].terminal;
            i += 1;
        }
        all
    };

    /// The terminal's row.
    pub const fn row(self) -> &'static TerminalRow {
        &Terminal::ROWS[self as usize]
    }

    /// The name used in formula text (case-sensitive, as in docs/src/reference/terminals.md).
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The terminal with this exact name, if any.
    pub fn from_name(name: &str) -> Option<Terminal> {
        Terminal::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The terminal's column index, `0..Terminal::COUNT`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the terminal counts cycles or visits: its values are small non-negative
    /// integers (`SAD` is 0 or 1), so that a function of it alone can be tabulated.
    pub const fn is_count(self) -> bool {
        self.row().count
    }

    /// The values the terminal takes wherever a policy is scored (the simulation, the
    /// scheduler, SQL): docs/src/reference/terminals.md. The rank form relies on them.
    pub const fn range(self) -> Interval {
        self.row().range
    }

    /// Where the terminal's value varies.
    pub const fn scope(self) -> Scope {
        self.row().scope
    }

    /// What a page's statistics must keep for it.
    pub const fn keeps(self) -> Keeps {
        self.row().keeps
    }

    /// The scheduler's SQL expression for it (see [`Sql::Expr`]), or None when the query
    /// does not compute it.
    pub const fn sql(self) -> Option<&'static str> {
        match self.row().sql {
            Sql::Expr(expr) => Some(expr),
            Sql::Missing(_) => None,
        }
    }
}

/// Invariant: the rows stand in the order of the variants, so `row()` indexes by variant.
const _: () = {
    let mut i = 0;
    while i < Terminal::COUNT {
        assert!(
            Terminal::ROWS[i].terminal as usize == i,
            "a row out of order"
        );
        i += 1;
    }
};

impl fmt::Display for Terminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Written as its name, as in formula text.
impl Serialize for Terminal {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Terminal {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Terminal, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Terminal::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(format_args!(
                "unknown terminal `{name}`: the terminals are {}",
                Terminal::ALL.map(Terminal::name).join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_read_back() {
        for t in Terminal::ALL {
            assert_eq!(Terminal::from_name(t.name()), Some(t));
            assert_eq!(t.row().terminal, t);
        }
        assert_eq!(Terminal::from_name("x"), None);
    }

    #[test]
    fn the_macro_lists_every_terminal_in_order() {
        macro_rules! listed {
            ($($name:ident)*) => { [$(Terminal::$name),*] };
        }
        assert_eq!(with_each_terminal!(listed), Terminal::ALL);
    }

    #[test]
    fn serde_writes_and_reads_the_name() {
        let text = ron::to_string(&Terminal::N7).unwrap();
        assert_eq!(text, "\"n7\"");
        assert_eq!(ron::from_str::<Terminal>(&text).unwrap(), Terminal::N7);
        let err = ron::from_str::<Terminal>("\"N7\"").unwrap_err();
        assert!(err.to_string().contains("unknown terminal `N7`"), "{err}");
    }

    #[test]
    fn ranges_are_ordered_and_counts_are_non_negative() {
        for t in Terminal::ALL {
            let r = t.range();
            assert!(r.lo <= r.hi, "{t}");
            if t.is_count() {
                assert!(r.lo >= 0.0, "{t}");
            }
        }
    }

    #[test]
    fn sql_placeholders_are_closed() {
        for t in Terminal::ALL {
            if let Some(expr) = t.sql() {
                assert_eq!(expr.matches('{').count(), expr.matches('}').count(), "{t}");
            }
        }
    }
}
