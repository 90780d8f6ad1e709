//! Writing past the file-size limit (`ulimit -f`, what a nearly full quota looks like to a
//! process) and onto a full file system (a 256 KB tmpfs mounted for the test): every
//! writer of a user's file fails with a clear error naming the file, exits with the error
//! status (not killed by SIGXFSZ), leaves the old file byte for byte as it was, and leaves
//! no temporary file beside it.

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
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("ulimit -f 1 && exec \"$0\" \"$@\"")
        .arg(freshgp());
    fails_with(command, dir, file, args, "File too large");
}

/// Runs `command` (freshgp, perhaps under a shell that limits it) with `args` in `dir`
/// and checks that it fails cleanly over `file` with `cause` in its error.
fn fails_with(mut command: Command, dir: &Path, file: &str, args: &[&str], cause: &str) {
    let before = std::fs::read(dir.join(file)).unwrap();
    let out = command.args(args).current_dir(dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?} should fail with an error, not a signal: {:?}, {stderr}",
        out.status
    );
    assert!(
        stderr.contains(file) && stderr.contains(cause),
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

/// A scheduler run over `crawl.state` that observes the log given after it.
const SCHEDULE: [&str; 6] = [
    "schedule",
    "--state",
    "crawl.state",
    "--k",
    "5",
    "--observe",
];

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
    let schedule = SCHEDULE;
    run(
        d,
        &[&schedule[..], &["day1.tsv", "--formula", "t * X + w"]].concat(),
    );
    fails_cleanly(d, "crawl.state", &[&schedule[..], &["day2.tsv"]].concat());
}

/// A small tmpfs mounted at a temporary directory for the test, unmounted when dropped.
struct SmallFileSystem {
    dir: tempfile::TempDir,
}

impl SmallFileSystem {
    /// Mounts one of `size` (e.g. `256k`); `None` where the machine does not let this
    /// user mount (the test then says so: only root may, and CI runs as root).
    fn mount(size: &str) -> Option<SmallFileSystem> {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(SmallFileSystem { dir })
    }
}

impl Drop for SmallFileSystem {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn every_writer_fails_cleanly_on_a_full_file_system() {
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let Some(small) = SmallFileSystem::mount("256k") else {
        assert!(!root, "root could not mount a tmpfs");
        eprintln!("skipped: only root may mount the small file system");
        return;
    };
    let d = small.dir.path();
    fn synth<'a>(pages: &'a str, out: &'a str) -> Vec<&'a str> {
        let days = ["--days", "30", "--seed", "1", "--out", out];
        [
            &["dataset", "synth", "--preset", "commerce", "--pages", pages][..],
            &days,
        ]
        .concat()
    }
    // Old files that fit (about 100 KB in all), then writers whose new files do not.
    run(d, &synth("600", "h.tsv"));
    run(d, &["dataset", "convert", "h.tsv", "--out", "h.fgpd"]);
    run(d, &["model", "train", "--data", "h.tsv", "--out", "m.json"]);
    let day1: String = (0..300).map(|p| format!("p{p}\t1\t{}\n", p % 2)).collect();
    std::fs::write(d.join("day1.tsv"), day1).unwrap();
    let schedule = SCHEDULE;
    run(
        d,
        &[&schedule[..], &["day1.tsv", "--formula", "t * X"]].concat(),
    );
    let big: String = (0..20_000).map(|p| format!("q{p}\t2\t1\n")).collect();
    std::fs::write(std::env::temp_dir().join("freshgp-full-day2.tsv"), big).unwrap();
    let day2 = std::env::temp_dir().join("freshgp-full-day2.tsv");
    let day2 = day2.to_str().unwrap();
    let plain = || Command::new(freshgp());
    let full = "No space left on device";
    fails_with(
        plain(),
        d,
        "h.tsv",
        &[synth("8000", "h.tsv"), vec!["--force"]].concat(),
        full,
    );
    fails_with(
        plain(),
        d,
        "h.fgpd",
        &[
            "dataset", "synth", "--preset", "commerce", "--pages", "8000", "--out", "h.fgpd",
            "--force",
        ],
        full,
    );
    fails_with(
        plain(),
        d,
        "crawl.state",
        &[&schedule[..], &[day2]].concat(),
        full,
    );
    let _ = std::fs::remove_file(day2);
}
