//! `freshgp schedule --emit-sql`: the batch query, run in SQLite in-process (the bundled
//! SQLite of `rusqlite`), returns the batch `freshgp schedule` returns on the same
//! observations, apart from ties: the same scores (bit for bit, best first) and, without a
//! host cap, the same pages above the batch's lowest score; with a cap, no host over it.
//!
//! The observations are a seeded synthetic log (hosts given on some rows only, pages
//! without a host, weights changing over time, pages added in an order unlike their ids)
//! and, when `../shared` is beside the checkout, the real 57-cycle history (changes
//! spread over more than 53 cycles, where GAD's sums round).

use freshgp::export::Dialect;
use freshgp::formula::Grammar;
use freshgp::schedule::sql::{batch_query, BatchQuery, BatchSize, Observations, Role, SqlError};
use freshgp::schedule::{log, Scheduler};
use freshgp::sim::Policy;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fmt::Write as _;
use std::num::NonZeroUsize;

/// One row of the observations: page, cycle, changed, host, weight.
type Row = (String, u32, bool, Option<String>, Option<f64>);

/// Policies covering every terminal the query computes, both closures, the baselines
/// (Rand: every score tied).
const POLICIES: &[&str] = &[
    "X / n * t + CG",
    "1 - exp(-NAD * t)",
    "GAD",
    "AAD * t - SAD + log(GAD + 1e-300)",
    "w * HR + tc / (n7 + 1) - X7",
    "w * (1 - exp(-CG * t)) / tc",
    "Rand",
    "Age",
    "NAD",
    "GAD",
];

/// A seeded log of `pages` pages over `cycles` cycles.
fn synthetic(pages: usize, cycles: u32, seed: u64) -> Vec<Row> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut rows = Vec::new();
    // Ids in an order unlike the order pages first appear in the log.
    let mut ids: Vec<usize> = (0..pages).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, rng.gen_range(0..=i));
    }
    for &p in &ids {
        let host = (p % 7 != 0).then(|| format!("h{}", p % 23));
        let rate = rng.gen_range(0.0..1.0f64).powi(2);
        let visit = rng.gen_range(0.1..0.9);
        for d in 1..=cycles {
            if !rng.gen_bool(visit) {
                continue;
            }
            let host = host.clone().filter(|_| rng.gen_bool(0.3));
            let weight = rng.gen_bool(0.2).then(|| rng.gen_range(0..8) as f64 * 0.5);
            rows.push((format!("p{p:04}"), d, rng.gen_bool(rate), host, weight));
        }
    }
    rows
}

/// The real history as rows (page, cycle, changed; host: the id up to its first `/`),
/// every page downloaded every cycle.
fn real() -> Option<Vec<Row>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/datasets/real/OpenTermsArchive+contrib-versions.57.tsv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!(
            "note: {path} is absent; SKIPPING the real history (shared/ not beside the checkout)"
        );
        return None;
    };
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (bits, id) = line.split_once('\t').unwrap();
        let host = id.split_once('/').map(|(h, _)| h.to_string());
        for (i, b) in bits.bytes().enumerate().skip(1) {
            rows.push((id.to_string(), i as u32, b == b'1', host.clone(), None));
        }
    }
    Some(rows)
}

/// A scheduler of `policy` fed the rows before cycle `d` through the log reader.
fn scheduler(policy: &Policy, rows: &[Row], d: u32) -> Scheduler {
    let mut text = String::new();
    for (page, cycle, changed, host, weight) in rows.iter().filter(|r| r.1 < d) {
        let _ = write!(text, "{page}\t{cycle}\t{}", u8::from(*changed));
        match (host, weight) {
            (None, None) => {}
            (Some(h), None) => {
                let _ = write!(text, "\t{h}");
            }
            (h, Some(w)) => {
                let _ = write!(text, "\t{}\t{w}", h.as_deref().unwrap_or(""));
            }
        }
        text.push('\n');
    }
    let mut s = Scheduler::new(policy.clone());
    let options = log::LogOptions { max_jump: None };
    log::apply_with(&mut s, text.as_bytes(), "<rows>", options).unwrap();
    s
}

/// An in-memory SQLite database with the rows in table `obs(url, site, day, modified, w)`.
fn database(rows: &[Row]) -> rusqlite::Connection {
    let db = rusqlite::Connection::open_in_memory().unwrap();
    db.execute_batch(
        "CREATE TABLE obs (url TEXT, site TEXT, day INTEGER, modified INTEGER, w REAL)",
    )
    .unwrap();
    let tx = db.unchecked_transaction().unwrap();
    {
        let mut insert = tx
            .prepare("INSERT INTO obs VALUES (?1, ?2, ?3, ?4, ?5)")
            .unwrap();
        for (page, cycle, changed, host, weight) in rows {
            insert
                .execute(rusqlite::params![
                    page,
                    host,
                    cycle,
                    *changed as i64,
                    weight
                ])
                .unwrap();
        }
    }
    tx.commit().unwrap();
    db
}

/// The table's names for the query.
fn observations() -> Observations {
    let columns = [
        (Role::Page, "url"),
        (Role::Host, "site"),
        (Role::Cycle, "day"),
        (Role::Changed, "modified"),
        (Role::Weight, "w"),
    ];
    columns
        .into_iter()
        .fold(Observations::in_table("obs").unwrap(), |o, (role, name)| {
            o.with_column(role, name).unwrap()
        })
}

/// The query's batch: (page, host, score) best first.
fn sql_batch(db: &rusqlite::Connection, query: &str) -> Vec<(String, Option<String>, f64)> {
    let mut statement = db.prepare(query).unwrap_or_else(|e| panic!("{e}\n{query}"));
    let rows = statement
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// A policy as the command line reads it (grammar `extended`).
fn parse(text: &str) -> Policy {
    Policy::parse(text, &Grammar::extended()).unwrap()
}

/// Checks the query's batch against the scheduler's for `policy` at cycle `d`.
fn check(
    db: &rusqlite::Connection,
    rows: &[Row],
    policy: &str,
    d: u32,
    k: usize,
    cap: Option<usize>,
) {
    check_policy(db, rows, &parse(policy), d, k, cap);
}

/// [`check`] for a parsed policy.
fn check_policy(
    db: &rusqlite::Connection,
    rows: &[Row],
    policy: &Policy,
    d: u32,
    k: usize,
    cap: Option<usize>,
) {
    let mut s = scheduler(policy, rows, d);
    let want = s.next_batch_scored(d, k, cap).unwrap();
    let query = BatchQuery::new(Dialect::Sqlite, BatchSize::K(k))
        .observations(observations())
        .host_cap(cap.and_then(NonZeroUsize::new))
        .cycle(Some(d))
        .tie_seed(3);
    let got = sql_batch(db, &batch_query(policy, &query).unwrap());
    let context = format!("{policy} at cycle {d}, k {k}, cap {cap:?}");
    let scores = |b: Vec<f64>| b.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(
        scores(got.iter().map(|g| g.2).collect()),
        scores(want.iter().map(|w| w.score).collect()),
        "{context}: scores differ"
    );
    let Some(lowest) = want.last().map(|w| w.score) else {
        return;
    };
    if let Some(m) = cap {
        let mut per_host = std::collections::HashMap::new();
        for (page, host, _) in &got {
            if let Some(h) = host {
                let n = per_host.entry(h.clone()).or_insert(0);
                *n += 1;
                assert!(*n <= m, "{context}: {page} exceeds the cap of {h}");
            }
        }
    } else {
        let above = |pages: Vec<(&String, f64)>| {
            let mut v: Vec<String> = pages
                .into_iter()
                .filter(|p| p.1 > lowest)
                .map(|p| p.0.clone())
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            above(got.iter().map(|g| (&g.0, g.2)).collect()),
            above(want.iter().map(|w| (&w.page, w.score)).collect()),
            "{context}: the pages above the lowest score differ"
        );
    }
}

#[test]
fn batches_equal_the_schedulers_on_a_synthetic_log() {
    let rows = synthetic(300, 30, 5);
    let db = database(&rows);
    for policy in POLICIES {
        for cap in [None, Some(2)] {
            check(&db, &rows, policy, 31, 40, cap);
            // As of an earlier cycle: the rows before it.
            check(&db, &rows, policy, 12, 25, cap);
        }
    }
    // The reference closure's protected operators.
    let reference = Grammar::named_or_file("all-reference").unwrap();
    let policy = Policy::parse("X / (t - 3) + log(NAD - 0.5)", &reference).unwrap();
    check_policy(&db, &rows, &policy, 31, 40, None);
}

/// Changes spread over more than 53 cycles: GAD's numerator leaves the older ones out
/// (below a double's precision), so it is an exact sum in any order.
#[test]
fn gad_over_long_histories_is_the_schedulers() {
    let rows = synthetic(200, 90, 11);
    let db = database(&rows);
    for policy in ["GAD", "GAD * 1e15 - t"] {
        check(&db, &rows, policy, 91, 50, None);
    }
}

#[test]
fn batches_equal_the_schedulers_on_the_real_history() {
    let Some(rows) = real() else {
        return;
    };
    let db = database(&rows);
    for policy in [
        "GAD",
        "X / n * t + CG",
        "AAD * t - SAD",
        "HR * tc + n7 - X7",
    ] {
        for cap in [None, Some(3)] {
            check(&db, &rows, policy, 57, 100, cap);
        }
    }
}

#[test]
fn the_default_cycle_is_the_one_after_the_latest() {
    let rows = synthetic(50, 10, 9);
    let db = database(&rows);
    let policy = parse("X / n * t");
    let with = |d| {
        let q = BatchQuery::new(Dialect::Sqlite, BatchSize::Resources(0.2))
            .observations(observations())
            .cycle(d);
        sql_batch(&db, &batch_query(&policy, &q).unwrap())
    };
    let latest = rows.iter().map(|r| r.1).max().unwrap();
    assert_eq!(with(None), with(Some(latest + 1)));
    // floor(pages * 0.2) pages.
    let pages: std::collections::HashSet<&String> = rows.iter().map(|r| &r.0).collect();
    assert_eq!(with(None).len(), pages.len() / 5);
}

#[test]
fn policies_the_query_cannot_compute_are_refused() {
    let q = BatchQuery::new(Dialect::Postgres, BatchSize::K(10));
    for (policy, want) in [
        ("lambda", "is not a formula"),
        ("kab5", "is not a formula"),
        ("nutch", "is not a formula"),
        ("w * MLE", "reads MLE"),
    ] {
        let err = batch_query(&parse(policy), &q).unwrap_err();
        assert!(err.to_string().contains(want), "{policy}: {err}");
    }
    let q = BatchQuery::new(Dialect::Sqlite, BatchSize::Resources(1.5));
    assert_eq!(batch_query(&parse("t"), &q), Err(SqlError::Resources(1.5)));
    assert!(Observations::in_table("crawl.visits").is_ok());
    for bad in ["visits; DROP TABLE x", "1visits", "a.b.c", ""] {
        assert!(Observations::in_table(bad).is_err(), "{bad}");
    }
    assert!(Observations::default()
        .with_column(Role::Page, "url id")
        .is_err());
    assert!("size".parse::<Role>().is_err());
}
