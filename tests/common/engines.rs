//! The SQL engines the SQL tests drive through Python, found on this machine or reported
//! missing, with how to get them (shared by `tests/export/sql.rs` and
//! `tests/schedule_sql.rs`).
//!
//! A missing engine or compiler is a failure where the engines are required: under
//! `FRESHGP_REQUIRE_ENGINES=1` (which `.ci/test` sets, after installing them) or `CI=true`.
//! Elsewhere (a developer's machine without, say, Spark) the check is skipped with a loud
//! note on stderr, so that the rest of the suite still runs.

use freshgp::export::Dialect;
use std::io::Write;
use std::process::{Command, Stdio};

/// Writes `message` to the test process's stderr itself: libtest captures the `eprintln!`
/// of a passing test, not writes to the stream, so a skipped check shows in every run.
pub fn loud(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// Whether a missing engine fails the test rather than skipping it: `FRESHGP_REQUIRE_ENGINES`
/// or `CI` set to `1` or `true`.
fn engines_required() -> bool {
    ["FRESHGP_REQUIRE_ENGINES", "CI"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true")))
}

/// Reports that `what` is missing, so `check` cannot run: a panic (the test fails) where the
/// engines are required, else a loud note that the check is skipped. `how` says how to get it.
pub fn absent(what: &str, check: &str, how: &str) {
    let message = format!("{what} is missing here, so the {check} cannot run (get it with: {how})");
    assert!(
        !engines_required(),
        "{message}; engines are required (FRESHGP_REQUIRE_ENGINES or CI is set)"
    );
    loud(&format!("note: {message}; SKIPPING it"));
}

/// Whether `program args` runs and succeeds (its output discarded).
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The command that runs `psql` against a server: as the current user (`PGHOST`,
/// `PGUSER`, ... as usual), or as `postgres` through `runuser` (when the tests run as
/// root).
fn psql() -> Option<Vec<&'static str>> {
    let candidates: [&[&str]; 2] = [&["psql"], &["runuser", "-u", "postgres", "--", "psql"]];
    candidates.into_iter().map(<[&str]>::to_vec).find(|cmd| {
        let mut args = cmd[1..].to_vec();
        args.extend(["-X", "-A", "-t", "-c", "SELECT 1"]);
        runs(cmd[0], &args)
    })
}

/// The arguments a Python driver takes to reach `dialect`'s engine: the dialect's name,
/// and for PostgreSQL the psql command as JSON. `None` when it is absent, after [`absent`]
/// (which fails the test where engines are required).
pub fn driver_args(dialect: Dialect, check: &str) -> Option<Vec<String>> {
    let python = |module: &str| runs("python3", &["-c", &format!("import {module}")]);
    let (found, how) = match dialect {
        Dialect::Sqlite => (python("sqlite3").then(Vec::new), "apt-get install python3"),
        Dialect::Duckdb => (python("duckdb").then(Vec::new), "pip install duckdb"),
        Dialect::Spark => (
            python("pyspark").then(Vec::new),
            "pip install pyspark, with Java 17+",
        ),
        Dialect::Postgres => (
            python("json")
                .then(psql)
                .flatten()
                .map(|cmd| vec![format!("{cmd:?}")]),
            "apt-get install postgresql && pg_ctlcluster 15 main start; PGHOST, PGUSER, ... \
             for another server",
        ),
    };
    if found.is_none() {
        absent(&format!("the {dialect} engine (from python3)"), check, how);
    }
    let mut args = vec![dialect.name().to_string()];
    args.extend(found?);
    Some(args)
}
