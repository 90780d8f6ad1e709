//! Budget sweeps with repeated runs and savings from the command line.

use super::{fails_with, freshgp, json, SAMPLE};

/// Budgets, runs and savings (docs/src/reference/evaluation.md) from the command line: a
/// budget sweep of sampled decisions with repeated runs, medians inside their intervals,
/// Wilcoxon p-values against the reference, and savings.
#[test]
fn budget_sweeps_with_runs_and_savings_from_the_command_line() {
    let v = json(&[
        "baselines",
        "--data",
        SAMPLE,
        "--json",
        "--resources",
        "0.01,0.05",
        "--runs",
        "3",
        "--decision",
        "sample",
        "--policies",
        "uniform,change,lambda",
        "--savings-against",
        "uniform",
    ]);
    assert_eq!(v["runs"], serde_json::json!([1, 2, 3]));
    assert_eq!(
        (&v["decision"], &v["reference"]),
        (&"sample".into(), &"lambda".into())
    );
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    for (level, resources) in levels.iter().zip([0.01, 0.05]) {
        assert_eq!(level["resources"], resources);
        for policy in ["uniform", "change", "lambda"] {
            let m = &level["policies"][policy]["wfreshness"];
            let (low, median, high) = (m["low"].as_f64(), m["median"].as_f64(), m["high"].as_f64());
            assert!(low <= median && median <= high, "{policy}: {m}");
            // Three paired runs: the exact two-sided p-value is 0.25 at best (or 1 with zeros).
            match policy {
                "lambda" => assert!(m["wilcoxon_p"].is_null()),
                _ => assert!(m["wilcoxon_p"].as_f64().unwrap() >= 0.25, "{m}"),
            }
        }
        // Importance-aware LambdaCrawl beats uniform on weighted freshness at both budgets.
        let median = |p: &str| {
            level["policies"][p]["wfreshness"]["median"]
                .as_f64()
                .unwrap()
        };
        assert!(median("lambda") > median("uniform"), "{level}");
    }
    let savings = v["savings"].as_array().unwrap();
    // change and lambda against uniform (uniform is not compared with itself).
    assert_eq!(savings.len(), 2, "{savings:?}");
    for s in savings {
        assert_eq!(s["reference"], "uniform");
        let at = s["savings"]["reaches_at"].as_f64().unwrap();
        let saved = s["savings"]["savings"].as_f64().unwrap();
        assert!(at > 0.0 && at <= 0.01 && (0.0..1.0).contains(&saved), "{s}");
    }
    // The same sweep for one policy: every run's means are named by metric.
    let one = json(&[
        "simulate",
        "--data",
        SAMPLE,
        "--json",
        "--baseline",
        "nad",
        "--resources",
        "0.01,0.05",
        "--runs",
        "2",
    ]);
    let runs = one["levels"][1]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert!(runs[0]["means"]["wndcg"].as_f64().is_some(), "{}", runs[0]);
    // The table form names the runs and the decision.
    let table = freshgp()
        .args([
            "simulate",
            "--data",
            SAMPLE,
            "--baseline",
            "nad",
            "--resources",
            "0.01,0.05",
        ])
        .args(["--runs", "2", "--decision", "sample"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.contains("2 runs (seeds 1,2); decision sample"),
        "{table}"
    );
    assert_eq!(
        table
            .lines()
            .filter(|l| l.trim_start().starts_with("0.0"))
            .count(),
        2
    );
}

#[test]
fn sweep_flags_refuse_what_they_cannot_do() {
    fails_with(
        &["evolve", "--data", SAMPLE, "--resources", "0.01,0.05"],
        "evolve runs at one budget",
    );
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--baseline",
            "nad",
            "--reference",
            "lambda",
        ],
        "use them with `freshgp baselines`",
    );
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--decision",
            "sample",
            "--host-cap",
            "2",
        ],
        "host cap",
    );
    fails_with(&["baselines", "--data", SAMPLE, "--runs", "0"], "--runs");
    fails_with(
        &["baselines", "--data", SAMPLE, "--resources", "0.01,2"],
        "resources",
    );
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--runs",
            "2",
            "--reference",
            "nutch",
            "--policies",
            "uniform,lambda",
        ],
        "nutch",
    );
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--savings-against",
            "lambda,bogus",
        ],
        "bogus",
    );
}
