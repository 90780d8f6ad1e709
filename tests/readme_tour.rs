//! The commands the documentation shows run as written from a clone: the `sh` blocks of the
//! README's tour (between "## A short tour" and the next `## ` heading), and every `sh`
//! block of each page of the book's guide (`docs/src/guide/*.md`), page by page. Each runs
//! in order, in one `bash` script with `set -euo pipefail`, in a scratch directory that
//! sees the clone's `datasets/`, `examples/`, `experiments/` and `grammars/`, with the
//! built `freshgp` first on the `PATH`. The only change: `/tmp/` becomes a private
//! directory, so that runs never collide or refuse to overwrite each other's files.
//!
//! Blocks fenced otherwise (` ```text ` for output, ` ```bash ` for commands that take
//! minutes, need a cluster or install a package) are shown, not run. The tour runs GP
//! commands and a study, so it runs in release builds only (CI's `cargo test --release`);
//! a debug build says so and skips.

use std::path::{Path, PathBuf};

const README: &str = include_str!("../README.md");

/// The guide's pages, by file name, in the book's order.
const GUIDE: [(&str, &str); 9] = [
    ("data.md", include_str!("../docs/src/guide/data.md")),
    ("archives.md", include_str!("../docs/src/guide/archives.md")),
    ("formulas.md", include_str!("../docs/src/guide/formulas.md")),
    ("simulate.md", include_str!("../docs/src/guide/simulate.md")),
    ("evolve.md", include_str!("../docs/src/guide/evolve.md")),
    (
        "experiments.md",
        include_str!("../docs/src/guide/experiments.md"),
    ),
    (
        "predictive.md",
        include_str!("../docs/src/guide/predictive.md"),
    ),
    (
        "scheduler.md",
        include_str!("../docs/src/guide/scheduler.md"),
    ),
    ("python.md", include_str!("../docs/src/guide/python.md")),
];

/// The `sh` blocks of `text`, each as its lines joined (the fence's indentation removed).
fn sh_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<String>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut current {
            None if trimmed == "```sh" => current = Some((indent, Vec::new())),
            None => {}
            Some((_, lines)) if trimmed == "```" => {
                blocks.push(lines.join("\n"));
                current = None;
            }
            Some((indent, lines)) => lines.push(line.get(*indent..).unwrap_or("").to_string()),
        }
    }
    assert!(current.is_none(), "an unclosed ```sh block");
    blocks
}

/// The README's tour: from "## A short tour" to the next second-level heading.
fn tour() -> &'static str {
    let start = README
        .find("\n## A short tour")
        .expect("the README has a tour");
    let end = README[start + 1..]
        .find("\n## ")
        .map_or(README.len(), |e| start + 1 + e);
    &README[start..end]
}

/// The guide page `name`.
fn page(name: &str) -> &'static str {
    GUIDE
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no guide page {name}"))
}

/// Where a script ran: its working directory and the directory `/tmp/` stood for (both
/// removed when this is dropped).
struct Scratch {
    _dir: tempfile::TempDir,
    work: PathBuf,
    tmp: PathBuf,
}

/// Runs `blocks` in order as one script in a fresh scratch directory; panics with the
/// script's output if it fails.
fn run(what: &str, blocks: &[String]) -> Scratch {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    for shared in ["datasets", "examples", "experiments", "grammars"] {
        let target = repo.join(shared).canonicalize().unwrap();
        std::os::unix::fs::symlink(target, work.join(shared)).unwrap();
    }
    let script = format!(
        "set -euo pipefail\n{}\n",
        blocks
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
        "{what} failed:\n{}\n--- stderr ---\n{}\n--- script ---\n{script}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Scratch {
        _dir: dir,
        work,
        tmp,
    }
}

/// Runs the `sh` blocks of the guide page `name` (none in a debug build: `None`).
fn run_page(name: &str) -> Option<Scratch> {
    if cfg!(debug_assertions) {
        eprintln!("skipped: the guide's commands run GP and studies; run them in a release build (cargo test --release, as CI does)");
        return None;
    }
    Some(run(name, &sh_blocks(page(name))))
}

/// The contents of `file` under `dir`, which the commands must have written, after checking
/// that it holds each of `needles`.
fn written(dir: &Path, file: &str, needles: &[&str]) -> String {
    let text = std::fs::read_to_string(dir.join(file))
        .unwrap_or_else(|e| panic!("{file} was not written: {e}"));
    for needle in needles {
        assert!(text.contains(needle), "{file} lacks {needle}:\n{text}");
    }
    text
}

#[test]
fn the_tour_has_the_commands_it_shows() {
    let blocks = sh_blocks(tour());
    assert!(blocks.len() >= 6, "{} blocks", blocks.len());
    let all = blocks.join("\n");
    for command in [
        "formula print",
        "dataset stats",
        "dataset from-log",
        "baselines",
        "simulate",
        "evolve",
        "experiment",
        "report",
        "schedule",
    ] {
        assert!(all.contains(&format!("freshgp {command}")), "{command}");
    }
    // The two commands outside the tour are cargo's, not the tour's.
    assert!(!all.contains("cargo "), "the tour runs cargo");
}

#[test]
fn the_guide_shows_every_subcommand_and_every_page_is_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/guide");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name.ends_with(".md"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = GUIDE.iter().map(|(file, _)| file.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "GUIDE must list every page of docs/src/guide"
    );
    let mut all = String::new();
    for (file, text) in GUIDE {
        let blocks = sh_blocks(text);
        assert!(!blocks.is_empty(), "{file} has no sh block");
        all.push_str(&blocks.join("\n"));
    }
    for command in [
        "dataset stats",
        "dataset synth",
        "dataset from-log",
        "dataset from-cdx",
        "dataset from-warc",
        "dataset from-crawl-log",
        "dataset from-nutch",
        "dataset emit-sql",
        "dataset convert",
        "formula print",
        "formula eval",
        "formula export",
        "baselines",
        "simulate",
        "evolve",
        "experiment",
        "report",
        "model eval",
        "model train",
        "requests",
        "schedule",
        "schedule --emit-sql",
    ] {
        assert!(all.contains(&format!("freshgp {command}")), "{command}");
    }
}

#[test]
fn the_fences_are_read_as_written() {
    let text = "a\n```sh\nx --flag\n```\n```text\nnot run\n```\n  ```sh\n  y /tmp/z\n  ```\n```bash\nno\n```\n";
    assert_eq!(sh_blocks(text), ["x --flag", "y /tmp/z"]);
    assert!(tour().starts_with("\n## A short tour"));
    assert!(
        !tour()[1..].contains("\n## "),
        "the tour stops at the next section"
    );
}

#[test]
fn every_tour_command_runs_as_written() {
    if cfg!(debug_assertions) {
        eprintln!("skipped: the README tour runs GP and a study; run it in a release build (cargo test --release, as CI does)");
        return;
    }
    let scratch = run("the README's tour", &sh_blocks(tour()));
    // What the tour's study and its last commands leave: a report and the scheduler's batches.
    written(
        &scratch.tmp,
        "quick/summary.md",
        &["GP4C_All-NDCG/sum_sigma"],
    );
    written(&scratch.work, "batch3.txt", &["https://example.com/new"]);
}

#[test]
fn the_data_page_runs_as_written() {
    let Some(scratch) = run_page("data.md") else {
        return;
    };
    written(&scratch.work, "history.tsv", &["weight="]);
    written(
        &scratch.tmp,
        "sample-stats.json",
        &["\"weights\"", "\"attributes\""],
    );
    written(&scratch.tmp, "commerce.ron", &["pages: 100000"]);
    assert!(scratch.work.join("weighted.fgpd").is_file());
}

#[test]
fn the_archives_page_runs_as_written() {
    let Some(scratch) = run_page("archives.md") else {
        return;
    };
    // The histories the page shows, as it shows them.
    let page = page("archives.md");
    for (file, first) in [
        (
            "warc.tsv",
            "010?1\thttp://www.example.com/a?b=2&a=1\twww.example.com",
        ),
        ("cdx.tsv", "010?1\tcom,example)/a?a=1&b=2\twww.example.com"),
        ("wayback.tsv", "000?1\tcom,example)/\texample.com"),
        ("heritrix.tsv", "0?1\thttp://a.org/\ta.org"),
        ("nutch.tsv", "01?\thttp://a.org/\ta.org\tweight=1.5"),
    ] {
        let text = written(&scratch.work, file, &[first]);
        for line in text.lines() {
            assert!(
                page.contains(line),
                "the page does not show {file}'s {line:?}"
            );
        }
    }
    assert_eq!(
        written(&scratch.work, "cdx.tsv", &[]),
        written(&scratch.work, "cdxj.tsv", &[])
    );
    written(
        &scratch.work,
        "content.tsv",
        &["010?1\thttp://other.org/\tother.org"],
    );
    let bad = written(&scratch.work, "bad.txt", &["bad.cdx:2:52: digest `XYZ`"]);
    let skipped = bad.lines().find(|l| l.starts_with("skipped:")).unwrap();
    assert!(page.contains(skipped), "the page does not show {skipped:?}");
}

#[test]
fn the_formulas_page_runs_as_written() {
    let Some(scratch) = run_page("formulas.md") else {
        return;
    };
    written(&scratch.tmp, "score.py", &["def score(t, NAD):"]);
    written(&scratch.tmp, "score.c", &["freshness_score("]);
    written(&scratch.tmp, "score.sql", &["FROM pages"]);
}

#[test]
fn the_simulate_page_runs_as_written() {
    let Some(scratch) = run_page("simulate.md") else {
        return;
    };
    written(&scratch.tmp, "lambda.json", &["\"cycles\"", "\"mean\""]);
    let polite = written(&scratch.tmp, "contrib-polite.tsv", &["weight="]);
    assert_eq!(polite.lines().count(), 879);
}

#[test]
fn the_evolve_page_runs_as_written() {
    let Some(scratch) = run_page("evolve.md") else {
        return;
    };
    written(&scratch.tmp, "evolve.json", &["\"sum_sigma\"", "\"seeds\""]);
}

#[test]
fn the_experiments_page_runs_as_written() {
    let Some(scratch) = run_page("experiments.md") else {
        return;
    };
    let summary = written(
        &scratch.tmp,
        "small/summary.md",
        &["GP4C_All-NDCG/sum_sigma"],
    );
    assert_eq!(
        summary,
        written(&scratch.tmp, "small-merged/summary.md", &[])
    );
}

#[test]
fn the_predictive_page_runs_as_written() {
    let Some(scratch) = run_page("predictive.md") else {
        return;
    };
    written(&scratch.tmp, "auc.json", &["combined"]);
    written(&scratch.tmp, "savings.json", &["combined"]);
    for model in ["offers.model.json", "m-streamed.json", "m-category.json"] {
        assert!(scratch.tmp.join(model).is_file(), "{model}");
    }
}

#[test]
fn the_python_page_runs_as_written() {
    // Its Python runs in python/tests/test_docs.py, with the package installed.
    let Some(scratch) = run_page("python.md") else {
        return;
    };
    written(&scratch.tmp, "scoop-nad.json", &["\"mean\"", "changerate"]);
}

#[test]
fn the_scheduler_page_runs_as_written() {
    let Some(scratch) = run_page("scheduler.md") else {
        return;
    };
    let batch = written(&scratch.work, "batch3.txt", &["https://example.com/new"]);
    assert_eq!(batch.lines().count(), 4, "{batch}");
    written(&scratch.work, "batch.sql", &["visits"]);
    written(&scratch.work, "batch58.sql", &["crawl.visits"]);
    let bandit = written(&scratch.work, "bandit-batch3.txt", &[]);
    assert_eq!(bandit.lines().count(), 2, "{bandit}");
}
