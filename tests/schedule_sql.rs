//! `freshgp schedule --emit-sql`: the batch query, run in SQLite in-process (the bundled
//! SQLite of `rusqlite`), returns the batch `freshgp schedule` returns on the same
//! observations, apart from ties: the same scores (bit for bit, best first) and, without a
//! host cap, the same pages above the batch's lowest score; with a cap, no host over it.
//!
//! The observations are a seeded synthetic log (hosts given on some rows only, pages
//! without a host, weights changing over time, pages added in an order unlike their ids)
//! and the repository's real 57-cycle history (changes spread over more than 53 cycles,
//! where GAD's sums round).

#[path = "common/engines.rs"]
mod engines;

use freshgp::export::Dialect;
use freshgp::formula::Grammar;
use freshgp::policy::Policy;
use freshgp::schedule::sql::{batch_query, BatchQuery, BatchSize, Observations, Role, SqlError};
use freshgp::schedule::{log, Scheduler};
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
    "X30 / (n30 + 0.5) * t - n7",
    "t * b + X / (b + 0.1) - log(b)",
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
fn real() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/real/OpenTermsArchive+contrib-versions.57.tsv"
    );
    let text = std::fs::read_to_string(path).expect("the repository's real history");
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (bits, id) = line.split_once('\t').unwrap();
        let host = id.split_once('/').map(|(h, _)| h.to_string());
        for (i, b) in bits.bytes().enumerate().skip(1) {
            rows.push((id.to_string(), i as u32, b == b'1', host.clone(), None));
        }
    }
    rows
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

/// A policy as the command line reads it (grammar `every`).
fn parse(text: &str) -> Policy {
    Policy::parse(text, &Grammar::every()).unwrap()
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
    let case = Case::new(policy, d, k, cap);
    let got = sql_batch(db, &case.query(Dialect::Sqlite));
    case.compare(rows, &got);
}

/// One batch to compute both ways.
struct Case {
    policy: Policy,
    d: u32,
    k: usize,
    cap: Option<usize>,
}

impl Case {
    fn new(policy: &Policy, d: u32, k: usize, cap: Option<usize>) -> Case {
        Case {
            policy: policy.clone(),
            d,
            k,
            cap,
        }
    }

    fn query(&self, dialect: Dialect) -> String {
        let query = BatchQuery::new(dialect, BatchSize::K(self.k))
            .observations(observations())
            .host_cap(self.cap.and_then(NonZeroUsize::new))
            .cycle(Some(self.d))
            .tie_seed(3);
        batch_query(&self.policy, &query).unwrap()
    }

    /// Checks `got`, the query's batch, against the scheduler's on `rows`.
    fn compare(&self, rows: &[Row], got: &[(String, Option<String>, f64)]) {
        let Case { d, k, cap, .. } = *self;
        let want = scheduler(&self.policy, rows, d)
            .next_batch_scored(d, k, cap)
            .unwrap();
        let context = format!("{} at cycle {d}, k {k}, cap {cap:?}", self.policy);
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
            for (page, host, _) in got {
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
    // A batch of every page and more: the budget `b` is 1.
    check(&db, &rows, "t * b + X / (b + 0.1)", 31, 500, None);
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
    let rows = real();
    let db = database(&rows);
    for policy in [
        "GAD",
        "X / n * t + CG",
        "AAD * t - SAD",
        "HR * tc + n7 - X7",
        "X30 / (n30 + 0.5) * t",
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
        ("GR * t", "reads GR"),
    ] {
        let err = batch_query(&parse(policy), &q).unwrap_err().to_string();
        assert!(err.contains(want), "{policy}: {err}");
        assert!(!err.contains("  "), "{policy}: a run of spaces in {err:?}");
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

/// Loads the rows (TSV on stdin: url, site, day, modified, w; `\N` for NULL) into table
/// `obs` of engine argv[1], runs each query of argv[2] (split at `-- @@@` lines), prints
/// each batch as `page<TAB>host<TAB>score bits in hex` lines, then `@@@`. For PostgreSQL
/// argv[3] is the psql command as JSON.
const DRIVER: &str = r#"
import json, struct, subprocess, sys
engine, queries = sys.argv[1], open(sys.argv[2]).read().split('\n-- @@@\n')
rows = []
for line in sys.stdin.read().splitlines():
    u, s, d, m, w = [None if f == '\\N' else f for f in line.split('\t')]
    rows.append((u, s, int(d), int(m), None if w is None else float(w)))
bits = lambda x: '%016x' % struct.unpack('<Q', struct.pack('<d', float(x)))[0]
out = []
def emit(batch):
    out.extend('%s\t%s\t%s' % (p, '' if h is None else h, bits(x)) for p, h, x in batch)
    out.append('@@@')
if engine == 'duckdb':
    import duckdb
    con = duckdb.connect()
    con.execute('CREATE TABLE obs (url VARCHAR, site VARCHAR, day INTEGER, modified INTEGER, w DOUBLE)')
    con.executemany('INSERT INTO obs VALUES (?, ?, ?, ?, ?)', rows)
    for q in queries:
        emit(con.execute(q).fetchall())
elif engine == 'spark':
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType, StructField, StringType, IntegerType, DoubleType
    spark = (SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')
             .config('spark.sql.ansi.enabled', 'true').getOrCreate())
    spark.sparkContext.setLogLevel('ERROR')
    schema = StructType([StructField('url', StringType()), StructField('site', StringType()),
                         StructField('day', IntegerType()), StructField('modified', IntegerType()),
                         StructField('w', DoubleType())])
    spark.createDataFrame(rows, schema).createOrReplaceTempView('obs')
    for q in queries:
        emit([tuple(r) for r in spark.sql(q.strip().rstrip(';')).collect()])
else:
    lines = ['\t'.join('\\N' if v is None else str(v) if not isinstance(v, float) else repr(v) for v in r) for r in rows]
    script = ['\\set ON_ERROR_STOP on', 'SET client_min_messages = warning;',
              'CREATE TEMP TABLE obs (url text, site text, day integer, modified integer, w float8);',
              'COPY obs FROM STDIN;'] + lines + ['\\.']
    for q in queries:
        script += [q.strip(), '\\echo @@@']
    run = subprocess.run(json.loads(sys.argv[3]) + ['-X', '-A', '-t', '-q', '-F', '\t', '-f', '-'],
                         input='\n'.join(script) + '\n', capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit('psql failed: ' + run.stderr[-3000:])
    for line in run.stdout.splitlines():
        if line == '@@@':
            out.append(line)
        else:
            p, h, x = line.split('\t')
            out.append('%s\t%s\t%s' % (p, h, bits(x)))
print('\n'.join(out))
"#;

/// Runs every case's query in `dialect`'s engine (one process) and compares each batch.
fn check_engine(dialect: Dialect, rows: &[Row], cases: &[Case]) {
    let Some(args) = engines::driver_args(dialect, "batch check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("queries.sql");
    let texts: Vec<String> = cases.iter().map(|c| c.query(dialect)).collect();
    std::fs::write(&queries, texts.join("\n-- @@@\n")).unwrap();
    let mut stdin = String::new();
    for (page, cycle, changed, host, weight) in rows {
        let null = |v: Option<String>| v.unwrap_or_else(|| "\\N".to_string());
        let _ = writeln!(
            stdin,
            "{page}\t{}\t{cycle}\t{}\t{}",
            null(host.clone()),
            u8::from(*changed),
            null(weight.map(|w| format!("{w:?}")))
        );
    }
    let mut child = std::process::Command::new("python3")
        .arg("-c")
        .arg(DRIVER)
        .arg(&args[0])
        .arg(&queries)
        .args(&args[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let writer =
        std::thread::spawn(move || std::io::Write::write_all(&mut input, stdin.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "{dialect}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let batches: Vec<&str> = text.split("@@@").collect();
    assert_eq!(batches.len(), cases.len() + 1, "{dialect}: {text}");
    // The tie key is the same in every dialect: the pages must be SQLite's, in order.
    let sqlite = database(rows);
    for (case, batch) in cases.iter().zip(&batches) {
        let got: Vec<(String, Option<String>, f64)> = batch
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let host = (!f[1].is_empty()).then(|| f[1].to_string());
                let bits = u64::from_str_radix(f[2], 16).unwrap();
                (f[0].to_string(), host, f64::from_bits(bits))
            })
            .collect();
        case.compare(rows, &got);
        let pages =
            |b: &[(String, Option<String>, f64)]| b.iter().map(|g| g.0.clone()).collect::<Vec<_>>();
        assert_eq!(
            pages(&got),
            pages(&sql_batch(&sqlite, &case.query(Dialect::Sqlite))),
            "{dialect}: {} at cycle {}: not SQLite's pages in SQLite's order",
            case.policy,
            case.d
        );
    }
}

/// The same batches in DuckDB, PostgreSQL and Spark (a missing engine fails where engines are
/// required, else is skipped loudly: `engines::absent`). Spark's `ln`, `exp` and `power` are Java's StrictMath, which rounds unlike
/// glibc in the last bit now and then: its policies avoid them (CG reads `ln`).
#[test]
fn batches_equal_the_schedulers_in_other_engines() {
    let rows = synthetic(200, 60, 21);
    let cases = |policies: &[&str]| {
        let mut cases = Vec::new();
        for policy in policies {
            for cap in [None, Some(2)] {
                cases.push(Case::new(&parse(policy), 61, 30, cap));
            }
        }
        cases.push(Case::new(&parse("X / n * t"), 20, 15, None));
        cases
    };
    let exact = [
        "X / n * t + AAD",
        "GAD * t",
        "w * HR + tc / (n7 + 1) - X7 + AAD - SAD",
        "t * b + X * b",
        "Rand",
    ];
    let all = [
        "X / n * t + CG",
        "1 - exp(-NAD * t)",
        "GAD",
        "w * HR + tc / (n7 + 1) - X7 + AAD - SAD",
        "t * b + X / (b + 0.1) - log(b)",
        "Rand",
    ];
    check_engine(Dialect::Duckdb, &rows, &cases(&all));
    check_engine(Dialect::Postgres, &rows, &cases(&all));
    check_engine(Dialect::Spark, &rows, &cases(&exact));
}

/// As a user runs it: the same log to `freshgp schedule` and, as a table, to the query
/// `freshgp schedule --emit-sql` prints.
#[test]
fn cli_emits_the_batch_query() {
    let rows = synthetic(120, 15, 4);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.tsv");
    let mut text = String::new();
    for (page, cycle, changed, host, _) in &rows {
        let host = host
            .as_deref()
            .map(|h| format!("\t{h}"))
            .unwrap_or_default();
        let _ = writeln!(text, "{page}\t{cycle}\t{}{host}", u8::from(*changed));
    }
    std::fs::write(&log, text).unwrap();
    let bin = env!("CARGO_BIN_EXE_freshgp");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(bin).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let state = dir.path().join("s.state");
    let policy = "X / n * t + 1 - exp(-GAD * t)";
    let json = run(&[
        "schedule",
        "--state",
        state.to_str().unwrap(),
        "--policy",
        policy,
        "--observe",
        log.to_str().unwrap(),
        "--k",
        "12",
        "--host-cap",
        "2",
        "--json",
    ]);
    let query = run(&[
        "schedule",
        "--emit-sql",
        "--policy",
        policy,
        "--k",
        "12",
        "--host-cap",
        "2",
        "--table",
        "obs",
        "--column",
        "page=url",
        "--column",
        "host=site",
        "--column",
        "cycle=day",
        "--column",
        "changed=modified",
    ]);
    let db = database(&rows);
    let got: Vec<u64> = sql_batch(&db, &query)
        .iter()
        .map(|g| g.2.to_bits())
        .collect();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let want: Vec<u64> = value["batch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["score"].as_f64().unwrap().to_bits())
        .collect();
    assert_eq!(got, want);
    // `line`'s words, then `more` (paths, which may hold spaces), must fail saying `want`.
    let fails = |line: &str, more: &[&str], want: &str| {
        let args: Vec<&str> = line
            .split_whitespace()
            .chain(more.iter().copied())
            .collect();
        let out = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(want),
            "{args:?}: {err}"
        );
    };
    let emit = "schedule --emit-sql --policy t --k 5";
    fails(
        "schedule --emit-sql --policy lambda --k 5",
        &[],
        "is not a formula",
    );
    fails(
        "schedule --emit-sql --k 5",
        &[],
        "--emit-sql needs the policy",
    );
    fails(&format!("{emit} --column url"), &[], "expected ROLE=NAME");
    fails(
        &format!("{emit} --column size=n"),
        &[],
        "unknown column role `size`",
    );
    fails(
        &format!("{emit} --table a;b"),
        &[],
        "not a plain SQL identifier",
    );
    // Neither run may create a state: it would go to the scratch directory all the same.
    let scratch = dir.path().join("never.state");
    let scratch = scratch.to_str().unwrap();
    fails(
        &format!("{emit} --state"),
        &[scratch],
        "cannot be used with",
    );
    fails(
        "schedule --policy t --k 5 --dialect duckdb --state",
        &[scratch],
        "add --emit-sql",
    );
    assert!(!dir.path().join("never.state").exists());
    fails(
        "formula export t --to c --dialect duckdb",
        &[],
        "--dialect\n  caused by: a dialect applies to SQL only, not to c",
    );
    let pg = run(&[
        "formula",
        "export",
        "t / n",
        "--to",
        "sql",
        "--dialect",
        "postgres",
    ]);
    assert!(pg.contains("-- Dialect: PostgreSQL"), "{pg}");
}

/// Rows the query must leave out or read generously: NULL pages, cycles or `changed`,
/// cycles below 1, a `changed` of 2 (a change), and a page column that SQLite compares
/// ignoring case (`a` and `A` stay two pages).
#[test]
fn odd_rows_and_case_insensitive_columns() {
    let rows = synthetic(80, 12, 13);
    let db = rusqlite::Connection::open_in_memory().unwrap();
    db.execute_batch(
        "CREATE TABLE obs (url TEXT COLLATE NOCASE, site TEXT COLLATE NOCASE, day INTEGER, \
         modified INTEGER, w REAL)",
    )
    .unwrap();
    let mut all = rows.clone();
    // Pages that differ by case only.
    for (page, cycle, changed) in [("Zz", 2, true), ("zz", 3, false), ("ZZ", 5, true)] {
        all.push((page.to_string(), cycle, changed, None, None));
    }
    for (page, cycle, changed, host, weight) in &all {
        // A change written as 2.
        let modified = if *changed && cycle % 2 == 0 {
            2
        } else {
            i64::from(*changed)
        };
        db.execute(
            "INSERT INTO obs VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![page, host, cycle, modified, weight],
        )
        .unwrap();
    }
    db.execute_batch(
        "INSERT INTO obs VALUES (NULL, 'h1', 3, 1, NULL); \
         INSERT INTO obs VALUES ('p0001', 'h1', NULL, 1, NULL); \
         INSERT INTO obs VALUES ('p0001', 'h1', 4, NULL, NULL); \
         INSERT INTO obs VALUES ('p0002', 'h1', 0, 1, NULL); \
         INSERT INTO obs VALUES ('p0003', 'h1', -4, 1, NULL);",
    )
    .unwrap();
    for policy in ["X / n * t + GAD", "w * HR + n7"] {
        for cap in [None, Some(2)] {
            let case = Case::new(&parse(policy), 13, 20, cap);
            case.compare(&all, &sql_batch(&db, &case.query(Dialect::Sqlite)));
        }
    }
    // All pages of the `Zz` family are kept apart.
    let q = BatchQuery::new(Dialect::Sqlite, BatchSize::K(1000))
        .observations(observations())
        .cycle(Some(13));
    let batch = sql_batch(&db, &batch_query(&parse("t"), &q).unwrap());
    let family = batch
        .iter()
        .filter(|b| b.0.eq_ignore_ascii_case("zz"))
        .count();
    assert_eq!(family, 3);
    for internal in ["fgp_seen", "score_1", "FGP_PAGES"] {
        assert!(Observations::in_table(internal).is_err(), "{internal}");
    }
}
