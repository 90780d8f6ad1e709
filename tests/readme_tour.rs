//! Every command of the README's tour runs as written from a clone: the `sh` blocks between
//! "A short tour" and "Experiments and reports" are run in order, in one `bash -e` script,
//! in a scratch directory that sees the clone's `datasets/` and `examples/`. The only change: `/tmp/` becomes a
//! private directory, so that runs never collide or refuse to overwrite each other's files.
//!
//! It runs the tour's GP commands, so it runs in release builds only (CI's `cargo test
//! --release`); a debug build says so and skips.

use std::path::{Path, PathBuf};

const README: &str = include_str!("../README.md");

/// The `sh` blocks of the tour, each as its lines (the fence's indentation removed).
fn tour_blocks() -> Vec<String> {
    let start = README
        .find("## A short tour")
        .expect("the README has a tour");
    let end = README[start..]
        .find("## Experiments and reports")
        .map_or(README.len(), |e| start + e);
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<String>)> = None;
    for line in README[start..end].lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut current {
            None if trimmed == "```sh" => current = Some((indent, Vec::new())),
            Some(_) if trimmed == "```" => {
                let (_, lines) = current.take().unwrap();
                blocks.push(lines.join("\n"));
            }
            Some((indent, lines)) => lines.push(line.get(*indent..).unwrap_or("").to_string()),
            None => {}
        }
    }
    blocks
}

#[test]
fn the_tour_has_the_commands_it_shows() {
    let blocks = tour_blocks();
    assert!(blocks.len() >= 8, "{} blocks", blocks.len());
    let all = blocks.join("\n");
    for command in [
        "formula print",
        "dataset from-log",
        "baselines",
        "evolve",
        "schedule",
    ] {
        assert!(all.contains(&format!("freshgp {command}")), "{command}");
    }
}

#[test]
fn every_tour_command_runs_as_written() {
    if cfg!(debug_assertions) {
        eprintln!("skipped: the README tour runs its GP commands; run it in a release build (cargo test --release, as CI does)");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("work");
    let tmp = scratch.path().join("tmp");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let link = |target: PathBuf, at: PathBuf| {
        std::os::unix::fs::symlink(target.canonicalize().unwrap(), at).unwrap()
    };
    link(repo.join("datasets"), work.join("datasets"));
    link(repo.join("examples"), work.join("examples"));
    let script = format!(
        "set -euo pipefail\n{}\n",
        tour_blocks()
            .join("\n")
            .replace("/tmp/", &format!("{}/", tmp.display()))
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_freshgp")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&work)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the tour failed:\n{}\n--- stderr ---\n{}\n--- script ---\n{script}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // What the tour's last commands leave: the scheduler's batches.
    let batch = std::fs::read_to_string(work.join("batch3.txt")).unwrap();
    assert!(batch.contains("https://example.com/new"), "{batch}");
}
