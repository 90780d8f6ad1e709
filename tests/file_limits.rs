//! Writing past the file-size limit (`ulimit -f`, what a nearly full quota looks like to a
//! process): every writer of a user's file fails with a clear error naming the file, exits
//! with the error status (not killed by SIGXFSZ), leaves the old file byte for byte as it
//! was, and leaves no temporary file beside it.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn freshgp() -> PathBuf {
    assert_cmd::cargo::cargo_bin("freshgp")
}

#[path = "common/run.rs"]
mod common;

/// Runs freshgp with `args` in `dir` (without a limit); panics unless it succeeds.
fn run(dir: &Path, args: &[&str]) {
    common::run_in(dir, args);
}

/// Runs freshgp with `args` in `dir` under a file-size limit of one block (512 bytes in
/// dash, 1,024 in bash; every new file here is larger), and checks that it fails cleanly
/// over `file`: exit status 2, an error naming `file` and the limit, the
/// old content kept, no temporary file left.
fn fails_cleanly(dir: &Path, file: &str, args: &[&str]) {
    let before = std::fs::read(dir.join(file)).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 1 && exec \"$0\" \"$@\"")
        .arg(freshgp())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?} should fail with an error, not a signal: {:?}, {stderr}",
        out.status
    );
    assert!(
        stderr.contains(file) && stderr.contains("File too large"),
        "{args:?}: {stderr}"
    );
    assert_eq!(
        std::fs::read(dir.join(file)).unwrap(),
        before,
        "{file} changed"
    );
    let temporary: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(temporary.is_empty(), "{args:?} left {temporary:?}");
}

#[test]
fn every_writer_fails_cleanly_past_the_file_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fn synth<'a>(pages: &'a str, seed: &'a str, out: &'a str) -> Vec<&'a str> {
        let days = ["--days", "30", "--seed", seed, "--out", out];
        [
            &["dataset", "synth", "--preset", "commerce", "--pages", pages][..],
            &days,
        ]
        .concat()
    }
    // A dataset replaced with --force, as text and as a binary cache.
    run(d, &synth("2000", "1", "h.tsv"));
    fails_cleanly(
        d,
        "h.tsv",
        &[synth("3000", "2", "h.tsv"), vec!["--force"]].concat(),
    );
    run(d, &["dataset", "convert", "h.tsv", "--out", "h.fgpd"]);
    run(d, &synth("3000", "2", "bigger.tsv"));
    fails_cleanly(
        d,
        "h.fgpd",
        &[
            "dataset",
            "convert",
            "bigger.tsv",
            "--out",
            "h.fgpd",
            "--force",
        ],
    );
    // A model replaced with --force by one of more features (over 1,024 bytes).
    let train = ["model", "train", "--data", "h.tsv", "--out", "m.json"];
    run(d, &train);
    let features =
        "freq1,freq7,freq30,since_change,group:category,group:brand,group:country,group:host";
    fails_cleanly(
        d,
        "m.json",
        &[&train[..], &["--force", "--features", features]].concat(),
    );
    // A scheduler's state, updated by the next day's observations.
    let day1: String = (0..400)
        .map(|p| format!("p{p}\t1\t{}\th{}\n", p % 3 == 0, p % 7))
        .collect::<String>()
        .replace("true", "1")
        .replace("false", "0");
    std::fs::write(d.join("day1.tsv"), day1).unwrap();
    std::fs::write(d.join("day2.tsv"), "p1\t2\t1\np2\t2\t0\n").unwrap();
    let schedule = [
        "schedule",
        "--state",
        "crawl.state",
        "--k",
        "5",
        "--observe",
    ];
    run(
        d,
        &[&schedule[..], &["day1.tsv", "--formula", "t * X + w"]].concat(),
    );
    fails_cleanly(d, "crawl.state", &[&schedule[..], &["day2.tsv"]].concat());
}
