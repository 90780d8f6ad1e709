//! Writers killed with SIGKILL at seeded random moments: `dataset convert` (a binary
//! cache), `model train` (a model) and `schedule` (a scheduler's state, under its lock).
//! After each kill the output is byte for byte the old file or the complete new one, and
//! the next run is not blocked by a lock the killed run held: it finishes and writes what
//! an uninterrupted run writes.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Kills in all, spread over the three writers.
const KILLS: u64 = 120;

fn freshgp() -> PathBuf {
    assert_cmd::cargo::cargo_bin("freshgp")
}

#[path = "common/run.rs"]
mod common;

/// Runs freshgp with `args` in `dir`; panics unless it succeeds. Returns its wall time.
fn run(dir: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    common::run_in(dir, args);
    start.elapsed()
}

/// A writer under test: the file it writes, the command that writes it, the file's old and
/// new content, and how long an uninterrupted run takes.
struct Writer {
    file: &'static str,
    args: Vec<&'static str>,
    old: Vec<u8>,
    new: Vec<u8>,
    time: Duration,
}

impl Writer {
    /// Records the writer's old content (already in `file`), its new content, and the
    /// longest of three uninterrupted runs (so that a fast first run on a loaded machine
    /// does not leave every kill before the write).
    fn new(dir: &Path, file: &'static str, args: Vec<&'static str>) -> Writer {
        let old = std::fs::read(dir.join(file)).unwrap();
        let time = (0..3)
            .map(|_| {
                std::fs::write(dir.join(file), &old).unwrap();
                run(dir, &args)
            })
            .max()
            .unwrap();
        let new = std::fs::read(dir.join(file)).unwrap();
        assert_ne!(old, new, "{file}: the writer must change it");
        Writer {
            file,
            args,
            old,
            new,
            time,
        }
    }
}

/// A small seeded generator (the test's kills are the same on every run).
fn next(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

#[test]
fn killed_writers_leave_the_old_file_or_the_new_one_and_no_blocking_lock() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let synth = |pages: &str, seed: &str, out: &str| {
        let args = ["dataset", "synth", "--preset", "commerce", "--days", "30"];
        run(
            d,
            &[&args[..], &["--pages", pages, "--seed", seed, "--out", out]].concat(),
        );
    };
    synth("3000", "1", "old.tsv");
    synth("60000", "2", "new.tsv");
    run(d, &["dataset", "convert", "old.tsv", "--out", "h.fgpd"]);
    run(
        d,
        &["model", "train", "--data", "old.tsv", "--out", "m.json"],
    );
    let day1: String = (0..50_000)
        .map(|p| format!("p{p}\t1\t{}\th{}\n", (p % 3 == 0) as u8, p % 97))
        .collect();
    let day2: String = (0..50_000)
        .step_by(7)
        .map(|p| format!("p{p}\t2\t{}\n", (p % 2 == 0) as u8))
        .collect();
    std::fs::write(d.join("day1.tsv"), day1).unwrap();
    std::fs::write(d.join("day2.tsv"), day2).unwrap();
    let state = ["schedule", "--state", "crawl.state", "--k", "100"];
    run(
        d,
        &[
            &state[..],
            &["--observe", "day1.tsv", "--formula", "t * X + w"],
        ]
        .concat(),
    );
    let features = "freq1,freq7,freq30,since_change,group:category,group:brand,group:host";
    let writers = [
        Writer::new(
            d,
            "h.fgpd",
            vec![
                "dataset", "convert", "new.tsv", "--out", "h.fgpd", "--force",
            ],
        ),
        Writer::new(
            d,
            "m.json",
            vec![
                "model",
                "train",
                "--data",
                "old.tsv",
                "--out",
                "m.json",
                "--force",
                "--features",
                features,
            ],
        ),
        Writer::new(
            d,
            "crawl.state",
            [&state[..], &["--observe", "day2.tsv"]].concat(),
        ),
    ];
    let mut seed = 46u64;
    let mut outcomes = [[0u32; 2]; 3];
    for kill in 0..KILLS {
        let (i, writer) = (kill as usize % 3, &writers[kill as usize % 3]);
        std::fs::write(d.join(writer.file), &writer.old).unwrap();
        // Anywhere from the start to half again an uninterrupted run (some kills land
        // after the rename, most before).
        let span = writer.time.as_micros() as u64 * 3 / 2 + 1;
        let delay = Duration::from_micros(next(&mut seed) % span);
        let mut child = Command::new(freshgp())
            .args(&writer.args)
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        // SIGKILL (an error only if the run had already ended).
        let _ = child.kill();
        child.wait().unwrap();
        let now = std::fs::read(d.join(writer.file)).unwrap();
        let is_new = now == writer.new;
        assert!(
            is_new || now == writer.old,
            "kill {kill} of {:?} after {delay:?}: {} is neither the old file nor the new one",
            writer.args,
            writer.file
        );
        outcomes[i][is_new as usize] += 1;
        // The next run is not blocked (a lock left by the killed one is taken over) and
        // writes what an uninterrupted run writes.
        std::fs::write(d.join(writer.file), &writer.old).unwrap();
        run(d, &writer.args);
        assert_eq!(
            std::fs::read(d.join(writer.file)).unwrap(),
            writer.new,
            "the run after kill {kill} of {:?}",
            writer.args
        );
    }
    // The kills landed on both sides of the rename for every writer, or the test proves
    // little: some left the old file, some the new one.
    for (writer, [old, new]) in writers.iter().zip(outcomes) {
        eprintln!(
            "{}: {:?} a run, {old} kills left the old file, {new} the new one",
            writer.file, writer.time
        );
        assert!(old > 0 && new > 0, "{}: {old} old, {new} new", writer.file);
    }
}
