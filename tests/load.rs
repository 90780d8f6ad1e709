//! Eight `schedule` runs at once on one state, each applying its own log: with `--wait`
//! every run is accepted and the state ends as if the logs had been applied one after
//! another; without it the runs that find the state locked say so and change nothing
//! (all of them while the test itself holds the lock), and the state ends as the
//! accepted logs alone make it. Prints the throughput under
//! contention (observations applied per second of wall time).
//!
//! CI runs it on 100,000 pages; `FRESHGP_LOAD_PAGES=1000000 cargo test --release --test
//! load -- --nocapture` is the 1-million-page run that docs/src/results/performance.md
//! quotes.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Instant;

#[path = "common/run.rs"]
mod common;

/// Concurrent runs.
const RUNS: usize = 8;

/// Pages in the state (`FRESHGP_LOAD_PAGES`, else 100,000).
fn pages() -> usize {
    std::env::var("FRESHGP_LOAD_PAGES").map_or(100_000, |v| v.parse().unwrap())
}

/// The arguments of run `r` on `state`.
fn args(state: &str, r: usize, wait: bool) -> Vec<String> {
    let mut a: Vec<String> = ["schedule", "--state", state, "--k", "1000", "--observe"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.push(format!("log{r}.tsv"));
    if wait {
        a.push("--wait".into());
    }
    a
}

/// Starts the `RUNS` runs on `state` together; returns each one's output, and the wall time.
fn concurrently(dir: &Path, state: &str, wait: bool) -> (Vec<Output>, f64) {
    let start = Instant::now();
    let children: Vec<_> = (0..RUNS)
        .map(|r| {
            Command::new(env!("CARGO_BIN_EXE_freshgp"))
                .args(args(state, r, wait))
                .current_dir(dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    (outputs, start.elapsed().as_secs_f64())
}

/// The state `start` with the logs `runs` applied one after another.
fn sequentially(dir: &Path, start: &[u8], runs: &[usize]) -> Vec<u8> {
    std::fs::write(dir.join("seq.state"), start).unwrap();
    for &r in runs {
        common::run_in(dir, &args("seq.state", r, false));
    }
    std::fs::read(dir.join("seq.state")).unwrap()
}

/// Checks that run `r` was refused for the lock: the error status, and a message naming
/// the state and the way to wait.
fn refused(r: usize, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "run {r}: {stderr}");
    assert!(
        stderr.contains("nowait.state") && stderr.contains("--wait"),
        "run {r}: a refused run should name the state and the way to wait: {stderr}"
    );
}

#[test]
fn concurrent_runs_keep_every_accepted_observation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = pages();
    // Day 1 observes every page; run r's log observes the pages p with p % RUNS == r on
    // day 2 (disjoint logs, so any order of the accepted runs gives one state).
    let day1: String = (0..n)
        .map(|p| format!("p{p}\t1\t{}\th{}\n", (p % 3 == 0) as u8, p % 997))
        .collect();
    std::fs::write(d.join("day1.tsv"), day1).unwrap();
    for r in 0..RUNS {
        let log: String = (r..n)
            .step_by(RUNS)
            .map(|p| format!("p{p}\t2\t{}\n", (p % 5 < 2) as u8))
            .collect();
        std::fs::write(d.join(format!("log{r}.tsv")), log).unwrap();
    }
    let setup = [
        "schedule",
        "--state",
        "start.state",
        "--k",
        "1000",
        "--observe",
        "day1.tsv",
    ];
    common::run_in(d, &[&setup[..], &["--formula", "t * X + w"]].concat());
    let start = std::fs::read(d.join("start.state")).unwrap();
    let all: Vec<usize> = (0..RUNS).collect();
    let expected_all = sequentially(d, &start, &all);

    // With --wait: every run accepted, every observation kept.
    std::fs::write(d.join("wait.state"), &start).unwrap();
    let (outputs, seconds) = concurrently(d, "wait.state", true);
    for (r, out) in outputs.iter().enumerate() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "run {r} with --wait failed: {stderr}");
        assert!(
            stderr.contains("observations recorded"),
            "run {r}: {stderr}"
        );
    }
    assert!(
        std::fs::read(d.join("wait.state")).unwrap() == expected_all,
        "with --wait the state differs from the logs applied one after another"
    );
    eprintln!(
        "{n} pages, {RUNS} runs with --wait: {seconds:.2} s, {:.0} observations a second",
        n as f64 / seconds
    );

    // Without --wait, while another holder keeps the state locked: every run fails, says
    // so, and changes nothing.
    std::fs::write(d.join("nowait.state"), &start).unwrap();
    let held = freshgp::schedule::StateLock::acquire(&d.join("nowait.state")).unwrap();
    let (outputs, _) = concurrently(d, "nowait.state", false);
    for (r, out) in outputs.iter().enumerate() {
        refused(r, out);
    }
    drop(held);
    assert!(std::fs::read(d.join("nowait.state")).unwrap() == start);

    // Without --wait, the eight together: a run that finds the state locked fails and says
    // so; the state is what the accepted runs' logs make it.
    let (outputs, seconds) = concurrently(d, "nowait.state", false);
    let mut accepted = Vec::new();
    for (r, out) in outputs.iter().enumerate() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            assert!(
                stderr.contains("observations recorded"),
                "run {r}: {stderr}"
            );
            accepted.push(r);
        } else {
            refused(r, out);
        }
    }
    assert!(!accepted.is_empty(), "no run was accepted");
    assert!(
        std::fs::read(d.join("nowait.state")).unwrap() == sequentially(d, &start, &accepted),
        "without --wait the state differs from the accepted logs {accepted:?} applied in turn"
    );
    let kept = accepted.len() * n / RUNS;
    eprintln!(
        "{n} pages, {RUNS} runs without --wait: {} accepted, {} refused, {seconds:.2} s, \
         {:.0} observations a second",
        accepted.len(),
        RUNS - accepted.len(),
        kept as f64 / seconds
    );
}
