//! The scheduler's batch as one SQL query, for crawlers whose observations live in a
//! warehouse: [`batch_query`] writes a self-contained query that reads an observations
//! table, computes every page's terminals as of a cycle, scores the pages with a formula
//! policy and returns the batch, in any [`Dialect`].
//!
//! # The observations
//!
//! One table (or view), by default `visits(page, host, cycle, changed [, weight])`, names
//! configurable ([`Observations`]): one row per download of a page at a cycle, `changed` 1
//! if the download found the content changed, else 0; `host` the page's host or NULL;
//! `weight` (optional column) its importance (docs/src/reference/data.md#page-weights). It
//! is what `freshgp schedule --observe` reads, as a table: a page's host and weight are
//! those of its latest row that has one (weight 1 when none has), and a page's rows must
//! have distinct cycles. Rows with a NULL page, cycle or `changed`, or a cycle below 1, are
//! left out; any nonzero `changed` counts as a change (a boolean column works too). Names
//! are unquoted identifiers; the page and host columns must compare exactly (SQLite's
//! `NOCASE` is overridden; a case-insensitive collation elsewhere would merge pages).
//!
//! # The query
//!
//! For the cycle `d` (given, or 1 + the latest cycle in the table) the query keeps the rows
//! before `d`, and from them computes per page the statistics and the terminals the formula
//! reads, exactly as [`PageStats`](crate::policy::PageStats) does (the same expressions in
//! the same order, so the same doubles): `t n X CG NAD SAD AAD GAD` and the extended
//! terminals `w tc n7 X7 HR`, and `n30 X30` (the 30-cycle window). `GR` is not computed
//! (the observations hold hosts, not the attribute pages are grouped by; a formula grouped
//! by host reads the same value as `HR`), and `MLE` is not computed (it is an iterative
//! estimate per page): a policy that reads it is refused, as are policies that are not
//! formulas (the rate policies, the crawl value, adaptive intervals and bandits keep
//! per-page memory a query over the observations does not have). The score is the formula's
//! SQL export ([`crate::export`]), bit for bit freshgp's where the dialect's export is.
//!
//! The batch is the `k` best pages, best first: descending score, ties broken by the
//! **tie key** `(i · m + o) mod P`, ascending, with `P = 2^31 − 1` (prime), `i` the
//! page's position (1, 2, ...) in the byte order of its id as text (the same in every
//! dialect, integer ids too), `m = 1 + (s + d ·
//! 1103515245) mod (P − 1)` and `o = d · 12345 mod P`, `s` the tie seed mod `P − 1`. For a
//! cycle it is a permutation of the pages (up to `P` of them), and a different one each
//! cycle, so tied pages take turns — but it is not freshgp's tie order (a seeded hash of
//! the page's slot), so the batch equals `freshgp schedule`'s apart from ties: the scores
//! are the same, best first, and without a host cap so are the pages scored above the
//! batch's lowest score (with a cap, tied pages of a capped host may trade places, and
//! with them the pages of other hosts that fill in).
//!
//! With a host cap `M`, a page is kept if fewer than `M` better-ranked pages share its
//! host (a window function numbers each host's pages in rank order); pages without a host
//! are never capped. This is the scheduler's walk down the ranking, which skips a page
//! whose host already has `M` pages in the batch.
//!
//! ```
//! use freshgp_formula::export::Dialect;
//! use freshgp_schedule::schedule::sql::{batch_query, BatchQuery, BatchSize};
//! use freshgp_formula::formula::Grammar;
//! use freshgp_policy::policy::Policy;
//!
//! let policy = Policy::parse("1 - exp(-NAD * t)", &Grammar::extended())?;
//! let query = batch_query(&policy, &BatchQuery::new(Dialect::Duckdb, BatchSize::K(1000)))?;
//! assert!(query.contains("FROM visits"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::export::{sql_literal, sql_score, Dialect};
use crate::formula::{Closure, Formula, Sql, Terminal};
use crate::policy::{Policy, Scorer};
use std::fmt::Write;
use std::num::NonZeroUsize;
use std::str::FromStr;

/// Why no query can be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SqlError {
    /// The policy is not a formula or a formula baseline.
    #[error(
        "policy `{0}` is not a formula: a query over the observations computes the terminals \
         and scores them, so it takes formulas and the baselines rand, age, nad, sad, aad, gad \
         and cg (rate policies, the crawl value, adaptive intervals and bandits keep per-page \
         memory the observations do not hold)"
    )]
    NotAFormula(String),
    /// The formula reads a terminal the query does not compute ([`Sql::Missing`]: `MLE`,
    /// `P`, `GR`).
    #[error("the formula reads {terminal}, {why}")]
    Unsupported {
        /// The first such terminal, in column order.
        terminal: Terminal,
        /// Why the query does not compute it.
        why: &'static str,
    },
    /// A table or column name that is not a plain SQL identifier, or a table name the
    /// query's own table expressions use (`fgp_...`, `score_...`).
    #[error("{what} `{name}` is not a plain SQL identifier (letters, digits and `_`, not starting with a digit{dots}; unquoted, so as the engine folds its case)")]
    BadName {
        /// Which name.
        what: String,
        /// The name given.
        name: String,
        /// What else is allowed.
        dots: &'static str,
    },
    /// A column role that is not page, host, cycle, changed or weight.
    #[error("unknown column role `{0}`: expected page, host, cycle, changed or weight")]
    UnknownRole(String),
    /// A batch fraction outside (0, 1].
    #[error("resources {0} must be in (0, 1]")]
    Resources(f64),
}

/// A column of the observations table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The page id.
    Page,
    /// The page's host (NULL for none).
    Host,
    /// The cycle of the download.
    Cycle,
    /// 1 if the download found a change, else 0.
    Changed,
    /// The page's weight (optional).
    Weight,
}

impl FromStr for Role {
    type Err = SqlError;

    fn from_str(s: &str) -> Result<Role, SqlError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "page" => Ok(Role::Page),
            "host" => Ok(Role::Host),
            "cycle" => Ok(Role::Cycle),
            "changed" => Ok(Role::Changed),
            "weight" => Ok(Role::Weight),
            _ => Err(SqlError::UnknownRole(s.to_string())),
        }
    }
}

/// Where the observations are: a table and its column names, each a checked identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observations {
    table: String,
    page: String,
    host: String,
    cycle: String,
    changed: String,
    weight: Option<String>,
}

impl Default for Observations {
    /// `visits(page, host, cycle, changed)`, without a weight column.
    fn default() -> Observations {
        Observations {
            table: "visits".into(),
            page: "page".into(),
            host: "host".into(),
            cycle: "cycle".into(),
            changed: "changed".into(),
            weight: None,
        }
    }
}

impl Observations {
    /// The default columns in table `table` (`name` or `schema.name`).
    pub fn in_table(table: &str) -> Result<Observations, SqlError> {
        check_identifier("table", table, true)?;
        Ok(Observations {
            table: table.to_string(),
            ..Observations::default()
        })
    }

    /// The same, with column `role` named `name` (naming the weight column makes the query
    /// read it).
    pub fn with_column(mut self, role: Role, name: &str) -> Result<Observations, SqlError> {
        check_identifier("column", name, false)?;
        let name = name.to_string();
        match role {
            Role::Page => self.page = name,
            Role::Host => self.host = name,
            Role::Cycle => self.cycle = name,
            Role::Changed => self.changed = name,
            Role::Weight => self.weight = Some(name),
        }
        Ok(self)
    }
}

/// `name` as a plain identifier (`schema.name` too if `dotted`).
fn check_identifier(what: &str, name: &str, dotted: bool) -> Result<(), SqlError> {
    let plain = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let ok = if dotted {
        let lower = name.to_ascii_lowercase();
        name.split('.').count() <= 2
            && name.split('.').all(plain)
            && !lower.starts_with("fgp_")
            && !lower.starts_with("score_")
    } else {
        plain(name)
    };
    if ok {
        Ok(())
    } else {
        Err(SqlError::BadName {
            what: what.to_string(),
            name: name.to_string(),
            dots: if dotted {
                "; `schema.table` too; not starting with fgp_ or score_, the query's own names"
            } else {
                ""
            },
        })
    }
}

/// How many pages the batch holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BatchSize {
    /// `k` pages.
    K(usize),
    /// `floor(pages · r)` pages, `r` in (0, 1] (as `freshgp schedule --resources`).
    Resources(f64),
}

/// What the query computes: the dialect, the observations, the batch and its cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchQuery {
    dialect: Dialect,
    observations: Observations,
    size: BatchSize,
    host_cap: Option<NonZeroUsize>,
    cycle: Option<u32>,
    tie_seed: u64,
}

impl BatchQuery {
    /// A batch of `size` over `visits(page, host, cycle, changed)` for the cycle after the
    /// latest, no host cap, tie seed 0.
    pub fn new(dialect: Dialect, size: BatchSize) -> BatchQuery {
        BatchQuery {
            dialect,
            observations: Observations::default(),
            size,
            host_cap: None,
            cycle: None,
            tie_seed: 0,
        }
    }

    /// Reads `observations`.
    pub fn observations(mut self, observations: Observations) -> BatchQuery {
        self.observations = observations;
        self
    }

    /// At most `cap` pages of one host.
    pub fn host_cap(mut self, cap: Option<NonZeroUsize>) -> BatchQuery {
        self.host_cap = cap;
        self
    }

    /// The batch for cycle `d` (the rows before it count); `None`: 1 + the latest cycle.
    pub fn cycle(mut self, d: Option<u32>) -> BatchQuery {
        self.cycle = d;
        self
    }

    /// The tie key's seed.
    pub fn tie_seed(mut self, seed: u64) -> BatchQuery {
        self.tie_seed = seed;
        self
    }
}

/// The tie key's modulus, `2^31 - 1` (prime).
const TIE_MODULUS: u64 = 2_147_483_647;

/// The query computing the batch of `policy` that `query` describes.
///
/// # Errors
/// [`SqlError::NotAFormula`] for a policy that is not a formula or a formula baseline,
/// [`SqlError::Unsupported`] for a formula that reads a terminal the query does not compute
/// (`MLE`, `P`, `GR`), [`SqlError::Resources`] for a fraction outside (0, 1].
pub fn batch_query(policy: &Policy, query: &BatchQuery) -> Result<String, SqlError> {
    let (formula, closure) = match policy {
        Policy::Scorer(Scorer::Formula(f)) => (f.formula().clone(), f.closure()),
        Policy::Scorer(Scorer::Baseline(b)) => (b.formula(), Closure::Paper),
        other => return Err(SqlError::NotAFormula(other.to_string())),
    };
    let reads = formula.terminals();
    for &terminal in &reads {
        if let Sql::Missing(why) = terminal.row().sql {
            return Err(SqlError::Unsupported { terminal, why });
        }
    }
    if let BatchSize::Resources(r) = query.size {
        if !(r > 0.0 && r <= 1.0) {
            return Err(SqlError::Resources(r));
        }
    }
    Ok(Writer {
        q: query,
        reads: &reads,
    }
    .query(policy, &formula, closure))
}

/// The query's text, one table expression at a time.
struct Writer<'a> {
    q: &'a BatchQuery,
    reads: &'a [Terminal],
}

impl Writer<'_> {
    fn double(&self) -> &'static str {
        self.q.dialect.double()
    }

    fn reads(&self, t: Terminal) -> bool {
        self.reads.contains(&t)
    }

    /// `CAST(x AS <double>)`.
    fn dbl(&self, x: &str) -> String {
        format!("CAST({x} AS {})", self.double())
    }

    /// `2^e` for an integer expression `e`, exact, 0 below the smallest subnormal (as
    /// `exp2i`; PostgreSQL's `power` would raise there).
    fn exp2(&self, e: &str) -> String {
        format!(
            "(CASE WHEN {e} < -1074 THEN {zero} ELSE power({two}, {exp}) END)",
            zero = self.dbl("0"),
            two = self.dbl("2"),
            exp = self.dbl(e)
        )
    }

    fn query(&self, policy: &Policy, formula: &Formula, closure: Closure) -> String {
        let mut ctes = vec![self.params(), self.seen(), self.counts()];
        if self.reads(Terminal::GAD) {
            ctes.push(self.gad());
        }
        ctes.push(self.latest("fgp_hosts", "host"));
        if self.q.observations.weight.is_some() && self.reads(Terminal::W) {
            ctes.push(self.latest("fgp_weights", "weight"));
        }
        if self.reads(Terminal::HR) {
            ctes.push(
                "fgp_host_totals AS (\n  SELECT h.host AS host, SUM(k.x) AS hx, SUM(k.n) AS hn\n  \
                 FROM fgp_counts k JOIN fgp_hosts h ON h.page = k.page\n  GROUP BY h.host\n)"
                    .to_string(),
            );
        }
        if self.reads(Terminal::B) {
            ctes.push(self.budget());
        }
        ctes.push(self.pages());
        let score = sql_score(formula, closure, self.q.dialect, "fgp_pages");
        ctes.extend(score.ctes);
        ctes.push(self.scored(&score.score, &score.from));
        let mut out = self.header(policy, formula);
        let _ = writeln!(out, "WITH\n{}", ctes.join(",\n"));
        out.push_str(&self.batch());
        out
    }

    fn header(&self, policy: &Policy, formula: &Formula) -> String {
        let o = &self.q.observations;
        let weight = match &o.weight {
            Some(w) => format!(", {w}"),
            None => String::new(),
        };
        let cycle = match self.q.cycle {
            Some(d) => format!("cycle {d}"),
            None => "the cycle after the latest in the table".to_string(),
        };
        let size = match self.q.size {
            BatchSize::K(k) => format!("{k} pages"),
            BatchSize::Resources(r) => format!("floor(pages * {r}) pages"),
        };
        let cap = match self.q.host_cap {
            Some(m) => format!(", at most {m} of one host"),
            None => String::new(),
        };
        format!(
            "-- Generated by freshgp {} (`freshgp schedule --emit-sql`), {} dialect.\n\
             -- Policy: {policy} (score: {formula}).\n\
             -- Reads {}({}, {}, {}, {}{weight}): one row per download, {} = 1 if it found a change.\n\
             -- Returns the batch for {cycle}: {size}{cap}, best first, as (page, host, score);\n\
             -- ties in page-id order scrambled per cycle (tie seed {}).\n",
            env!("CARGO_PKG_VERSION"),
            self.q.dialect,
            o.table,
            o.page,
            o.host,
            o.cycle,
            o.changed,
            o.changed,
            self.q.tie_seed,
        )
    }

    /// The cycle `d`.
    fn params(&self) -> String {
        let o = &self.q.observations;
        let d = match self.q.cycle {
            Some(d) => format!("CAST({d} AS BIGINT)"),
            None => format!(
                "(SELECT CAST(MAX(v.{}) AS BIGINT) + 1 FROM {} v)",
                o.cycle, o.table
            ),
        };
        format!("fgp_params AS (\n  SELECT {d} AS d\n)")
    }

    /// The rows before `d`, under the query's own column names.
    fn seen(&self) -> String {
        let o = &self.q.observations;
        let weight = match &o.weight {
            Some(w) => format!(", {} + 0.0 AS weight", self.dbl(&format!("v.{w}"))),
            None => String::new(),
        };
        // SQLite keeps a column's declared collation through the query: a `NOCASE` page
        // column would merge `a` and `A`. Elsewhere the columns must compare exactly.
        let exact = if self.q.dialect == Dialect::Sqlite {
            " COLLATE BINARY"
        } else {
            ""
        };
        format!(
            "fgp_seen AS (\n  SELECT v.{page}{exact} AS page, v.{host}{exact} AS host, \
             CAST(v.{cycle} AS BIGINT) AS cycle,\n    \
             CASE WHEN CAST(v.{changed} AS INTEGER) <> 0 THEN 1 ELSE 0 END AS c{weight}\n  \
             FROM {table} v CROSS JOIN fgp_params p\n  \
             WHERE v.{cycle} < p.d AND v.{cycle} >= 1 AND v.{page} IS NOT NULL \
             AND v.{changed} IS NOT NULL\n)",
            page = o.page,
            host = o.host,
            cycle = o.cycle,
            changed = o.changed,
            table = o.table,
        )
    }

    /// Per page: `n`, `X`, last visit and change, Σ change cycles, the 7- and 30-cycle
    /// counts.
    fn counts(&self) -> String {
        "fgp_counts AS (\n  SELECT s.page AS page, COUNT(*) AS n, SUM(s.c) AS x, MAX(s.cycle) AS last_visit,\n    \
         COALESCE(MAX(CASE WHEN s.c = 1 THEN s.cycle END), 0) AS last_change,\n    \
         SUM(CASE WHEN s.c = 1 THEN s.cycle ELSE 0 END) AS change_sum,\n    \
         SUM(CASE WHEN s.cycle >= p.d - 7 THEN 1 ELSE 0 END) AS n7,\n    \
         SUM(CASE WHEN s.cycle >= p.d - 7 THEN s.c ELSE 0 END) AS x7,\n    \
         SUM(CASE WHEN s.cycle >= p.d - 30 THEN 1 ELSE 0 END) AS n30,\n    \
         SUM(CASE WHEN s.cycle >= p.d - 30 THEN s.c ELSE 0 END) AS x30\n  \
         FROM fgp_seen s CROSS JOIN fgp_params p\n  GROUP BY s.page\n)"
            .to_string()
    }

    /// `Σ 2^(h - last change)` over the changes `h` of the 53 cycles up to the last:
    /// GAD's numerator relative to the last change, as `PageStats` keeps it (an exact sum,
    /// so the engine's summation order does not matter).
    fn gad(&self) -> String {
        format!(
            "fgp_gad AS (\n  SELECT s.page AS page, SUM({}) AS anchor\n  \
             FROM fgp_seen s JOIN fgp_counts k ON k.page = s.page\n  \
             WHERE s.c = 1 AND s.cycle >= k.last_change - 52\n  GROUP BY s.page\n)",
            self.exp2("s.cycle - k.last_change")
        )
    }

    /// `b`, the batch's share of the known pages: `k / pages` (at most 1), or
    /// `floor(pages · r) / pages` for a fraction `r` (as `Surroundings::set_budget`
    /// computes it).
    fn budget(&self) -> String {
        let pages = self.dbl("COUNT(*)");
        let k = match self.q.size {
            BatchSize::K(k) => self.dbl(&k.to_string()),
            BatchSize::Resources(r) => {
                format!("FLOOR({pages} * {})", sql_literal(self.q.dialect, r))
            }
        };
        // No page, no score: 0 rather than a division by zero (an error in PostgreSQL);
        // a batch of every page or more, 1.
        format!(
            "fgp_budget AS (\n  SELECT CASE WHEN COUNT(*) = 0 THEN {} WHEN {k} >= {pages} THEN {} \
             ELSE {k} / {pages} END AS b\n  FROM fgp_counts\n)",
            self.dbl("0"),
            self.dbl("1"),
        )
    }

    /// A page's latest non-NULL `column`.
    fn latest(&self, name: &str, column: &str) -> String {
        format!(
            "{name} AS (\n  SELECT page, {column} FROM (\n    SELECT page, {column}, ROW_NUMBER() OVER \
             (PARTITION BY page ORDER BY cycle DESC) AS r\n    FROM fgp_seen WHERE {column} IS NOT \
             NULL\n  ) l WHERE r = 1\n)"
        )
    }

    /// Every page with the terminals the formula reads, each as `PageStats::terminal`
    /// computes it.
    fn pages(&self) -> String {
        let mut joins = String::from(
            "  FROM fgp_counts k CROSS JOIN fgp_params p\n  \
             LEFT JOIN fgp_hosts h ON h.page = k.page\n",
        );
        let mut columns = vec!["k.page AS page".to_string(), "h.host AS host".to_string()];
        for &t in self.reads {
            columns.push(format!("{} AS {}", self.terminal(t), t.name()));
        }
        if self.reads(Terminal::GAD) {
            joins.push_str("  LEFT JOIN fgp_gad g ON g.page = k.page\n");
        }
        if self.reads(Terminal::HR) {
            joins.push_str("  LEFT JOIN fgp_host_totals ht ON ht.host = h.host\n");
        }
        if self.reads(Terminal::B) {
            joins.push_str("  CROSS JOIN fgp_budget bz\n");
        }
        if self.q.observations.weight.is_some() && self.reads(Terminal::W) {
            joins.push_str("  LEFT JOIN fgp_weights w ON w.page = k.page\n");
        }
        format!(
            "fgp_pages AS (\n  SELECT {}\n{joins})",
            columns.join(",\n    ")
        )
    }

    /// Terminal `t` of page `k` (of `fgp_counts`) at cycle `p.d`: its row's expression
    /// ([`Sql::Expr`]) with the placeholders filled for the dialect.
    fn terminal(&self, t: Terminal) -> String {
        let Some(template) = t.sql() else {
            unreachable!("invariant: batch_query refuses a terminal the query does not compute")
        };
        let mut out = String::with_capacity(template.len() * 2);
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            // Invariant: the table's placeholders are closed (a test of the formula crate).
            let close = open
                + rest[open..]
                    .find('}')
                    .expect("invariant: a closed placeholder");
            let inner = &rest[open + 1..close];
            out.push_str(&match inner.split_once(' ') {
                Some(("dbl", e)) => self.dbl(e),
                Some(("exp2", e)) => self.exp2(e),
                _ => match inner {
                    "n" => self.dbl("k.n"),
                    "x" => self.dbl("k.x"),
                    "weight" => match &self.q.observations.weight {
                        Some(_) => format!("COALESCE(w.weight, {})", self.dbl("1")),
                        None => self.dbl("1"),
                    },
                    other => unreachable!("invariant: no placeholder `{other}` in the table"),
                },
            });
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The scores with the tie key.
    fn scored(&self, score: &str, from: &str) -> String {
        let seed = self.q.tie_seed % (TIE_MODULUS - 1);
        // Page ids in byte order of their text, in every dialect (an integer id too), so
        // that every engine numbers the pages alike.
        let text = match self.q.dialect {
            Dialect::Spark => "CAST(page AS STRING)",
            Dialect::Postgres => "CAST(page AS TEXT) COLLATE \"C\"",
            Dialect::Sqlite | Dialect::Duckdb => "CAST(page AS TEXT)",
        };
        format!(
            "fgp_scored AS (\n  SELECT s.page AS page, s.host AS host, s.score AS score,\n    \
             (CAST(s.i AS BIGINT) * (1 + ({seed} + (p.d % {m1}) * 1103515245) % {m1}) + \
             ((p.d % {m}) * 12345) % {m}) % {m} AS tie\n  FROM (\n    SELECT page, host, {score} AS score, \
             ROW_NUMBER() OVER (ORDER BY {text}) AS i\n    FROM {from}\n  ) s CROSS JOIN \
             fgp_params p\n)",
            m = TIE_MODULUS,
            m1 = TIE_MODULUS - 1,
        )
    }

    /// The final `SELECT`: the host cap, then the first `k`.
    fn batch(&self) -> String {
        let mut filters = Vec::new();
        let mut windows = String::new();
        if let Some(m) = self.q.host_cap {
            windows.push_str(
                ", ROW_NUMBER() OVER (PARTITION BY host ORDER BY score DESC NULLS LAST, tie) AS host_rank",
            );
            filters.push(format!("(host IS NULL OR host_rank <= {m})"));
        }
        let limit = match self.q.size {
            BatchSize::K(k) => format!("\nLIMIT {k}"),
            BatchSize::Resources(r) => {
                // The rank among the capped pages, against floor(pages · r).
                let inner = format!("SELECT page, host, score, tie{windows} FROM fgp_scored",);
                let kept = if filters.is_empty() {
                    inner
                } else {
                    format!("SELECT * FROM ({inner}) c WHERE {}", filters.join(" AND "))
                };
                let count = self.dbl("COUNT(*)");
                let r = sql_literal(self.q.dialect, r);
                return format!(
                    "SELECT page, host, score FROM (\n  SELECT page, host, score, tie, ROW_NUMBER() \
                     OVER (ORDER BY score DESC NULLS LAST, tie) AS batch_rank\n  FROM ({kept}) kept\n) b\n\
                     WHERE batch_rank <= (SELECT FLOOR({count} * {r}) FROM fgp_counts)\n\
                     ORDER BY score DESC NULLS LAST, tie;\n"
                );
            }
        };
        let kept = if filters.is_empty() {
            "fgp_scored".to_string()
        } else {
            format!(
                "(SELECT page, host, score, tie{windows} FROM fgp_scored) c\nWHERE {}",
                filters.join(" AND ")
            )
        };
        format!(
            "SELECT page, host, score FROM {kept}\nORDER BY score DESC NULLS LAST, tie{limit};\n"
        )
    }
}
