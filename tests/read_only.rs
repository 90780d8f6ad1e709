//! Writing where the user may not write: the writers of datasets, caches, models,
//! scheduler states, studies and reports, pointed into a directory without write permission, fails with a clear error naming the file and the
//! cause, exits with the error status, and leaves the old file byte for byte as it was.
//!
//! Permissions do not bind root, so when the tests run as root (CI does) the command runs
//! as the user `nobody` through `setpriv` (util-linux); elsewhere it runs as the user.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

#[path = "common/run.rs"]
mod common;

/// Whether the tests run as root (then the commands run as `nobody`).
fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Runs freshgp with `args` in `dir` as a user who may not write into `locked/`, and
/// checks that it fails cleanly over `file`: exit status 2, an error naming `file` and
/// the permission, the old content of `file` (or its absence) kept.
fn fails_cleanly(dir: &Path, file: &str, args: &[&str]) {
    let before = std::fs::read(dir.join(file)).ok();
    // A copy in the test's directory: `nobody` may not reach a checkout under /root.
    let bin = dir.join("freshgp");
    if !bin.exists() {
        std::fs::copy(env!("CARGO_BIN_EXE_freshgp"), &bin).unwrap();
    }
    let mut command = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        Command::new(bin)
    };
    let out = command.args(args).current_dir(dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {:?}, {stderr}",
        out.status
    );
    assert!(
        stderr.contains(file) && stderr.contains("Permission denied"),
        "{args:?}: {stderr}"
    );
    assert_eq!(std::fs::read(dir.join(file)).ok(), before, "{file} changed");
}

/// `model train` into the locked directory.
const TRAIN: [&str; 6] = [
    "model",
    "train",
    "--data",
    "h.tsv",
    "--out",
    "locked/m.json",
];

/// `dataset synth` of a small history into `out`, replacing it if `force`.
fn small(out: &str, force: bool) -> Vec<&str> {
    let args = [
        "dataset", "synth", "--preset", "commerce", "--pages", "100", "--out", out,
    ];
    [&args[..], if force { &["--force"][..] } else { &[] }].concat()
}

#[test]
fn every_writer_fails_cleanly_in_a_directory_it_may_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Others may enter the test's directory and read its inputs, not write into locked/.
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir(d.join("locked")).unwrap();
    let synth = |pages: &str, out: &str| {
        let args = ["dataset", "synth", "--preset", "commerce", "--days", "30"];
        common::run_in(
            d,
            &[&args[..], &["--pages", pages, "--seed", "1", "--out", out]].concat(),
        );
    };
    synth("2000", "h.tsv");
    synth("2000", "locked/h.tsv");
    common::run_in(
        d,
        &["dataset", "convert", "h.tsv", "--out", "locked/h.fgpd"],
    );
    common::run_in(d, &TRAIN);
    std::fs::write(d.join("day1.tsv"), "p1\t1\t1\th1\np2\t1\t0\th2\n").unwrap();
    std::fs::write(d.join("day2.tsv"), "p1\t2\t0\n").unwrap();
    let schedule = [
        "schedule",
        "--state",
        "locked/crawl.state",
        "--k",
        "1",
        "--observe",
    ];
    common::run_in(
        d,
        &[&schedule[..], &["day1.tsv", "--formula", "t * X"]].concat(),
    );
    std::fs::write(
        d.join("study.ron"),
        r#"(name: "locked", dataset: Synthetic(preset: "commerce", pages: 2000, days: 40, seed: 1),
            rotations: [0], resources: 0.05, seeds: 1, gp: (population: 10, generations: 2),
            configurations: [(name: "Basic", grammar: "basic", fitness: changerate)],
            baselines: [NAD], reports: (plots: false, csv: true))"#,
    )
    .unwrap();
    common::run_in(
        d,
        &[
            "experiment",
            "study.ron",
            "--out",
            "locked/study",
            "--quiet",
        ],
    );
    // The state's lock file exists and anyone may lock it, so that what fails is the
    // state's own write, not the lock's creation.
    std::fs::write(d.join("locked/crawl.state.lock"), "").unwrap();
    let anyone = std::fs::Permissions::from_mode(0o666);
    std::fs::set_permissions(d.join("locked/crawl.state.lock"), anyone).unwrap();
    for file in ["locked", "locked/study"] {
        std::fs::set_permissions(d.join(file), std::fs::Permissions::from_mode(0o555)).unwrap();
    }

    // A new file, and files replaced with --force.
    fails_cleanly(d, "locked/new.tsv", &small("locked/new.tsv", false));
    fails_cleanly(d, "locked/h.tsv", &small("locked/h.tsv", true));
    fails_cleanly(
        d,
        "locked/h.fgpd",
        &[
            "dataset",
            "convert",
            "h.tsv",
            "--out",
            "locked/h.fgpd",
            "--force",
        ],
    );
    fails_cleanly(d, "locked/m.json", &[&TRAIN[..], &["--force"]].concat());
    // A scheduler's state (its lock file cannot be made beside it).
    fails_cleanly(
        d,
        "locked/crawl.state",
        &[&schedule[..], &["day2.tsv"]].concat(),
    );
    // A study's report in a directory turned read-only, and a new study there.
    fails_cleanly(d, "locked/study/summary.md", &["report", "locked/study"]);
    fails_cleanly(
        d,
        "locked/other",
        &[
            "experiment",
            "study.ron",
            "--out",
            "locked/other",
            "--quiet",
        ],
    );
    // Back to writable, so the temporary directory can be removed.
    for file in ["locked/study", "locked"] {
        std::fs::set_permissions(d.join(file), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
