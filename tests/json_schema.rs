//! The book's page of JSON answers (`docs/src/reference/json.md`) says what the command
//! prints: each table's keys are exactly the keys of the object it describes, as the
//! command writes them for a run that has every optional key (a bandit, a page sample, a
//! window, a partial crawl), and only keys documented as optional may be missing from a run
//! without them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "common/run.rs"]
mod common;

const PAGE: &str = "docs/src/reference/json.md";
const DATA: &str = "datasets/brdc12-sample.tsv";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The keys of every table under `heading` (a `## ` heading of the page), in order of
/// the tables: a row's first cell names one key or several (`a`, `b`, ...).
fn tables(page: &str, heading: &str) -> Vec<BTreeSet<String>> {
    let start = page
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("{PAGE} has no section `{heading}`"));
    let body = &page[start + heading.len() + 5..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    let mut in_table = false;
    for line in body.lines() {
        if line.starts_with("| key |") {
            out.push(BTreeSet::new());
            in_table = true;
        } else if in_table && line.starts_with("| `") {
            let cell = line[2..].split(" |").next().unwrap();
            let keys = cell.split(", ").map(|k| k.trim_matches('`').to_string());
            out.last_mut().unwrap().extend(keys);
        } else if !line.starts_with('|') {
            in_table = false;
        }
    }
    out
}

fn keys(value: &serde_json::Value) -> BTreeSet<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect()
}

/// Runs `freshgp args` on the sample history (`--data` after the subcommand, which is
/// two words for `model eval`) and returns its standard output.
fn output(dir: &Path, args: &[&str]) -> Vec<u8> {
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let at = if args[0] == "model" { 2 } else { 1 };
    let data = repo().join(DATA).display().to_string();
    all.splice(at..at, ["--data".to_string(), data]);
    common::run_in(dir, &all)
}

fn run(dir: &Path, args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&output(dir, args)).unwrap()
}

/// Documented keys that a run without the option does not write.
const OPTIONAL: [&str; 6] = [
    "bandit",
    "windows",
    "arms",
    "train_sample",
    "sample_pages",
    "stale_error",
];

/// `documented` equals `written` when the run has every option, else differs only by
/// optional keys.
fn check(what: &str, documented: &BTreeSet<String>, written: &BTreeSet<String>, full: bool) {
    if full {
        let missing: Vec<_> = documented.symmetric_difference(written).collect();
        let stale_error_only = missing.iter().all(|k| *k == "stale_error");
        assert!(
            missing.is_empty() || stale_error_only,
            "{what}: the page and the command differ in {missing:?}"
        );
    } else {
        let undocumented: Vec<_> = written.difference(documented).collect();
        assert!(
            undocumented.is_empty(),
            "{what}: {undocumented:?} not documented"
        );
        for k in documented.difference(written) {
            assert!(OPTIONAL.contains(&k.as_str()), "{what}: `{k}` missing");
        }
    }
}

#[test]
fn the_page_lists_every_key_the_command_writes() {
    let page = std::fs::read_to_string(repo().join(PAGE)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    let run_tables = tables(&page, "`simulate`, one run");
    let bandit = run(
        d,
        &["simulate", "--json", "--period", "all", "--policy", "kab3"],
    );
    check("simulate", &run_tables[0], &keys(&bandit), true);
    let plain = run(d, &["simulate", "--json", "--policy", "NAD"]);
    check("simulate", &run_tables[0], &keys(&plain), false);

    let sweep_tables = tables(&page, "`simulate`, several budgets or runs");
    let sweep = run(d, &["simulate", "--json", "--policy", "NAD", "--runs", "2"]);
    check("simulate sweep", &sweep_tables[0], &keys(&sweep), true);
    check(
        "simulate sweep level",
        &sweep_tables[1],
        &keys(&sweep["levels"][0]),
        true,
    );

    let base_tables = tables(&page, "`baselines`, one budget");
    let listed = "oracle,NAD,kab2";
    let windowed = run(
        d,
        &[
            "baselines",
            "--json",
            "--policies",
            listed,
            "--windows",
            "4",
        ],
    );
    check("baselines", &base_tables[0], &keys(&windowed), true);
    check(
        "baselines entry",
        &base_tables[1],
        &keys(&windowed["baselines"]["kab2"]),
        true,
    );
    check(
        "baselines entry",
        &base_tables[1],
        &keys(&windowed["baselines"]["NAD"]),
        false,
    );

    let swept_tables = tables(&page, "`baselines`, several budgets, runs or savings");
    let swept = run(
        d,
        &[
            "baselines",
            "--json",
            "--policies",
            "NAD,lambda",
            "--resources",
            "0.05,0.2",
            "--savings-against",
            "lambda",
        ],
    );
    check("baselines sweep", &swept_tables[0], &keys(&swept), true);

    let evolve_tables = tables(&page, "`evolve`");
    let evolved = run(
        d,
        &[
            "evolve",
            "--json",
            "--quiet",
            "--population",
            "16",
            "--generations",
            "1",
            "--seeds",
            "1",
            "--train-sample",
            "0.5",
        ],
    );
    check("evolve", &evolve_tables[0], &keys(&evolved), true);

    let eval_tables = tables(&page, "`model eval`");
    let out = d.join("eval.json");
    output(
        d,
        &[
            "model",
            "eval",
            "--rotations",
            "1",
            "--json",
            out.to_str().unwrap(),
        ],
    );
    let table: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    check("model eval", &eval_tables[0], &keys(&table), true);
}

#[test]
fn the_tables_are_read_as_written() {
    let page = "\n## `x`\n\n| key | value |\n|---|---|\n| `a` | one |\n| `b`, `c` | two |\n\nEach:\n\n| key | value |\n|---|---|\n| `d` | three |\n\n## next\n\n| key | value |\n| `e` | no |\n";
    let got = tables(page, "`x`");
    let want: Vec<BTreeSet<String>> = vec![
        ["a", "b", "c"].iter().map(|s| s.to_string()).collect(),
        ["d"].iter().map(|s| s.to_string()).collect(),
    ];
    assert_eq!(got, want);
}
