//! Writers killed with SIGKILL at seeded random moments: `dataset convert` (a binary
//! cache), `model train` (a model) and `schedule` (a scheduler's state, under its lock).
//! After each kill the output is byte for byte the old file or the complete new one, and
//! the next run is not blocked by a lock the killed run held: it finishes and writes what
//! an uninterrupted run writes. A study (`experiment`) killed at random leaves complete
//! files of the finished study only, and `--resume` finishes it to the bytes of an
//! uninterrupted run (a unit's measured seconds aside); a killed `report` leaves each of
//! its files old or new, and the next report writes what an uninterrupted one writes.

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
        kill_after(d, &writer.args, delay);
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

/// A study small enough to run in about a second: 20 GP units and 5 baseline units.
const STUDY: &str = r#"(
    name: "killed",
    dataset: Synthetic(preset: "commerce", pages: 3000, days: 40, seed: 1),
    rotations: [0, 1, 2, 3, 4],
    resources: 0.05,
    warmup: 2,
    top_resources: [0.02, 0.05],
    seeds: 2,
    first_seed: 1,
    gp: (population: 30, generations: 4, keep_best: 5),
    configurations: [
        (name: "Basic-ChangeRate", grammar: "basic", fitness: changerate),
        (name: "All-NDCG", grammar: "all", fitness: ndcg),
    ],
    baselines: [NAD, CG],
    reports: (strategies: [best], plots: true, csv: true),
)"#;

/// Kills of `experiment` and of `report` each.
const STUDY_KILLS: u64 = 30;

/// The visible files under `dir` (a writer's hidden temporary files left by a kill are
/// not outputs), by path relative to `dir`, with a unit's measured `seconds` masked: the
/// one field two runs of a study do not share.
fn outputs(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if !(name.starts_with('.') && name.ends_with(".tmp")) {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let bytes = std::fs::read(&path).unwrap();
                let masked = if relative.starts_with("units") {
                    let text = String::from_utf8(bytes).expect("a unit file is text");
                    let lines: Vec<&str> = text
                        .split('\n')
                        .map(|l| match l.trim_start().starts_with("\"seconds\":") {
                            true => "\"seconds\": -",
                            false => l,
                        })
                        .collect();
                    lines.join("\n").into_bytes()
                } else {
                    bytes
                };
                files.insert(relative, masked);
            }
        }
    }
    files
}

/// Spawns freshgp with `args` in `dir`, kills it with SIGKILL after `delay`, and waits.
fn kill_after(dir: &Path, args: &[&str], delay: Duration) {
    let mut child = Command::new(freshgp())
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    // SIGKILL (an error only if the run had already ended).
    let _ = child.kill();
    child.wait().unwrap();
}

#[test]
fn killed_studies_resume_to_the_bytes_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("study.ron"), STUDY).unwrap();
    let experiment = |out: &'static str| ["experiment", "study.ron", "--out", out, "--quiet"];
    let time = (0..2)
        .map(|_| {
            let _ = std::fs::remove_dir_all(d.join("reference"));
            run(d, &experiment("reference"))
        })
        .max()
        .unwrap();
    let reference = outputs(&d.join("reference"));
    let mut seed = 47u64;
    let (mut partial, mut whole) = (0, 0);
    for kill in 0..STUDY_KILLS {
        let _ = std::fs::remove_dir_all(d.join("run"));
        let span = time.as_micros() as u64 * 3 / 2 + 1;
        let delay = Duration::from_micros(next(&mut seed) % span);
        kill_after(d, &experiment("run"), delay);
        // Whatever the kill left is a part of the finished study, file for file.
        let left = outputs(&d.join("run"));
        for (file, bytes) in &left {
            assert!(
                reference.get(file) == Some(bytes),
                "kill {kill} after {delay:?}: {file} is not the complete file"
            );
        }
        match left.len() == reference.len() {
            true => whole += 1,
            false => partial += 1,
        }
        // --resume finishes it to the bytes of the uninterrupted run.
        run(d, &[&experiment("run")[..], &["--resume"]].concat());
        assert!(
            outputs(&d.join("run")) == reference,
            "kill {kill} after {delay:?}: the resumed study differs from the uninterrupted one"
        );
    }
    eprintln!("experiment: {time:?} a run, {partial} kills left a part, {whole} the whole study");
    assert!(partial > 0 && whole > 0, "{partial} partial, {whole} whole");

    // The report, rewritten over an older report (every file replaced) or written anew.
    let report_files: Vec<String> = reference
        .keys()
        .filter(|f| !f.starts_with("units") && *f != "study.json" && *f != "dataset.json")
        .cloned()
        .collect();
    let time = (0..3)
        .map(|_| run(d, &["report", "reference"]))
        .max()
        .unwrap();
    assert!(
        outputs(&d.join("reference")) == reference,
        "report is not deterministic"
    );
    let (mut old, mut new) = (0, 0);
    for kill in 0..STUDY_KILLS {
        for file in &report_files {
            let path = d.join("reference").join(file);
            match kill % 2 {
                0 => std::fs::write(&path, b"an older report").unwrap(),
                _ => std::fs::remove_file(&path).unwrap(),
            }
        }
        let span = time.as_micros() as u64 * 3 / 2 + 1;
        let delay = Duration::from_micros(next(&mut seed) % span);
        kill_after(d, &["report", "reference"], delay);
        let left = outputs(&d.join("reference"));
        for file in &report_files {
            let now = left.get(file).map(Vec::as_slice);
            let before = (kill % 2 == 0).then_some(&b"an older report"[..]);
            let is_new = now == reference.get(file).map(Vec::as_slice);
            assert!(
                is_new || now == before,
                "kill {kill} of report after {delay:?}: {file} is neither the old file nor the new one"
            );
            match is_new {
                true => new += 1,
                false => old += 1,
            }
        }
        run(d, &["report", "reference"]);
        assert!(
            outputs(&d.join("reference")) == reference,
            "the report after kill {kill} differs from an uninterrupted one"
        );
    }
    eprintln!("report: {time:?} a run, {old} files left old, {new} new");
    assert!(old > 0 && new > 0, "{old} old, {new} new");
}

/// The temporary files a killed run left in a study's directory, its units and its plots
/// are removed by the next run on it (`experiment --resume`, `report`); a running
/// writer's are kept.
#[test]
fn the_next_run_removes_what_a_killed_run_left() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("study.ron"), STUDY).unwrap();
    run(d, &["experiment", "study.ron", "--out", "run", "--quiet"]);
    let out = d.join("run");
    let me = std::process::id();
    // A process id no machine gives (Linux allows at most 2^22).
    let gone = 4_194_304 + 5;
    let put = |sub: &str, name: &str, age: Duration| {
        let path = out.join(sub).join(name);
        std::fs::write(&path, b"half a file").unwrap();
        let modified = std::time::SystemTime::now() - age;
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        path
    };
    let two_minutes = Duration::from_secs(120);
    let orphans = [
        put(
            "units",
            &format!(".x.json.{gone}.00000000000000aa.tmp"),
            two_minutes,
        ),
        put(
            ".",
            &format!(".study.json.{gone}.00000000000000bb.tmp"),
            two_minutes,
        ),
        put(
            "units",
            &format!(".y.json.{me}.00000000000000cc.tmp"),
            Duration::from_secs(7200),
        ),
    ];
    let live = put(
        "units",
        &format!(".z.json.{me}.00000000000000dd.tmp"),
        two_minutes,
    );
    let young = put(
        ".",
        &format!(".w.json.{gone}.00000000000000ee.tmp"),
        Duration::ZERO,
    );
    run(
        d,
        &[
            "experiment",
            "study.ron",
            "--out",
            "run",
            "--quiet",
            "--resume",
        ],
    );
    for path in &orphans {
        assert!(!path.exists(), "{} was left", path.display());
    }
    assert!(live.exists() && young.exists());
    // The report cleans its plots too.
    std::fs::create_dir_all(out.join("plots")).unwrap();
    let plot = put(
        "plots",
        &format!(".a.svg.{gone}.00000000000000ff.tmp"),
        two_minutes,
    );
    run(d, &["report", "run"]);
    assert!(!plot.exists());
    assert!(live.exists());
}
