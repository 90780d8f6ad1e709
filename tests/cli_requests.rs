//! `freshgp requests` end to end: the savings table of the request-driven simulation
//! (docs/src/reference/requests.md) in text and JSON, cold start, and the errors a user
//! meets.

use assert_cmd::Command;
use std::path::Path;

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A small commerce history, written as a binary cache.
fn commerce(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("c.fgpd");
    freshgp()
        .args([
            "dataset", "synth", "--preset", "commerce", "--pages", "1500", "--days", "36",
        ])
        .arg("--out")
        .arg(&path)
        .assert()
        .success();
    path
}

#[test]
fn prints_and_writes_savings_against_uniform() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let json = dir.path().join("savings.json");
    let run = |extra: &[&str]| {
        freshgp()
            .args([
                "requests",
                "--policies",
                "NAD,Age,uniform,w * (1 - exp(-MLE * t)) + 0.001",
            ])
            .args(["--rotations", "2"])
            .args(["--levels", "0.2,0.6", "--data"])
            .arg(&data)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--json", json.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert_eq!(
        table.lines().filter(|l| l.contains(" NAD ")).count(),
        2,
        "{table}"
    );
    // The reference is named apart from the rate policy `uniform`, listed as a method.
    assert!(
        table.contains("Savings against the blind crawler")
            && table.contains("not the rate policy `uniform`"),
        "{table}"
    );
    assert!(table.contains("  R_b      F*  method"), "{table}");
    // Columns stay aligned past a long method name: every row's γ ends where the header's does.
    let header = table.lines().find(|l| l.starts_with("  R_b")).unwrap();
    let end = header.find(" γ").unwrap() + " γ".len();
    for row in table.lines().filter(|l| l.starts_with(" 0.")) {
        let gamma = row
            .chars()
            .take(header[..end].chars().count())
            .collect::<String>();
        assert!(
            gamma.ends_with(|c: char| c.is_ascii_digit()),
            "misaligned {row:?} under {header:?}"
        );
    }
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["rotations"], 2);
    let set = &v["sets"][0];
    assert_eq!(set["pages"], "unseen");
    assert!(set["requests"].as_u64().unwrap() > 1000);
    let level = &set["levels"][1];
    assert_eq!(level["uniform_resources"], 0.6);
    let nad = &level["methods"][0];
    assert_eq!(nad["method"], "NAD");
    // At equal freshness, NAD's crawls per request are what its savings say.
    let (r, s) = (
        nad["resources"].as_f64().unwrap(),
        nad["savings"].as_f64().unwrap(),
    );
    assert!((s - (1.0 - r / 0.6)).abs() < 1e-12);
    let (f, goal) = (
        nad["freshness"].as_f64().unwrap(),
        level["freshness"].as_f64().unwrap(),
    );
    assert!((f - goal).abs() < 1e-3, "{f} vs {goal}");
    // The same run again gives the same numbers; the JSON is not overwritten unasked.
    let again = run(&["--json", json.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("pass --force"),
        "{}",
        text(&again.stderr)
    );
    let again = run(&[]);
    let results: Vec<&str> = table.lines().filter(|l| !l.starts_with("wrote ")).collect();
    assert_eq!(text(&again.stdout), results.join("\n") + "\n");
    // Several page sets, among them cold start (no warm-up), each its own table; a
    // learned model drives the crawl beside the policies, and the plot is written.
    let plot = dir.path().join("savings.svg");
    let sets = run(&[
        "--pages",
        "seen,cold",
        "--learned",
        "groups",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(sets.status.success(), "{}", text(&sets.stderr));
    let table = text(&sets.stdout);
    assert!(
        table.contains("seen pages (") && table.contains("cold pages ("),
        "{table}"
    );
    assert_eq!(
        table.lines().filter(|l| l.contains(" groups ")).count(),
        4,
        "{table}"
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("groups (cold)"), "{svg}");
}

#[test]
fn bad_settings_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    for (flags, message) in [
        (
            vec!["--quantiles", "0"],
            "the number of quantiles Q must be at least 1",
        ),
        (vec!["--levels", "0.2,1.5"], "must be in (0, 1], got 1.5"),
        (vec!["--policies", "kab5"], "a bandit cannot drive"),
        (vec!["--pages", "all"], "unknown page set `all`"),
        (vec!["--rotations", "6"], "expected 1..=5"),
    ] {
        let rotations = if flags[0] == "--rotations" {
            vec![]
        } else {
            vec!["--rotations", "1"]
        };
        let out = freshgp()
            .args(["requests", "--data"])
            .arg(&data)
            .args(rotations)
            .args(&flags)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&out.stderr).contains(message),
            "{flags:?}: {}",
            text(&out.stderr)
        );
    }
}
