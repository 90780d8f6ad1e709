//! Weighted metrics and host caps from the command line.

use super::{fails_with, freshgp, json};
use serde_json::Value;

#[test]
fn a_host_cap_of_zero_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.state");
    fails_with(
        &[
            "schedule",
            "--policy",
            "Age",
            "--state",
            state.to_str().unwrap(),
            "--k",
            "1",
            "--host-cap",
            "0",
        ],
        "--host-cap must be at least 1",
    );
    assert!(!state.exists(), "nothing is written");
}

/// A small weighted history with hosts (docs/src/reference/data.md#page-weights and
/// #hosts) in `dir`: `hosts` hosts of `per_host` pages, 21 cycles,
/// `BITS<TAB>id<TAB>host<TAB>weight=W` lines; busier hosts change more and weights vary
/// from page to page.
fn weighted_history(dir: &std::path::Path, hosts: usize, per_host: usize) -> String {
    let mut text = String::from("# weighted pages with hosts\n");
    for p in 0..hosts * per_host {
        let host = p % hosts;
        let bits: String = (0..21)
            .map(|d| {
                let mixed = (p * 31 + d * 17 + (p * d) % 7) % (hosts + 3);
                if mixed <= host {
                    '1'
                } else {
                    '0'
                }
            })
            .collect();
        let weight = 1 + (p * 7) % 5;
        text += &format!("{bits}\tp{p}\th{host}.example\tweight={weight}\n");
    }
    let path = dir.join("weighted.tsv");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn simulate_reports_weighted_metrics_and_applies_a_host_cap() {
    let dir = tempfile::tempdir().unwrap();
    let data = weighted_history(dir.path(), 5, 8);
    // 40 pages over all 21 cycles: k = 10 visits per scored cycle.
    let run = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "--data",
            &data,
            "--baseline",
            "NAD",
            "--period",
            "all",
            "--resources",
            "0.25",
            "--json",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    let free = run(&[]);
    let capped = run(&["--host-cap", "2"]);
    let one = run(&["--host-cap", "1"]);
    assert_eq!(free["host_cap"], Value::Null);
    assert_eq!(capped["host_cap"], 2);
    for v in [&free, &capped, &one] {
        for key in ["changerate", "ndcg", "freshness", "wfreshness", "wndcg"] {
            let mean = v["mean"][key].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&mean), "mean {key} = {mean}");
        }
        for c in v["cycles"].as_array().unwrap() {
            assert!(c["wndcg"].is_f64() && c["wfreshness"].is_f64(), "{c}");
        }
    }
    // The weights count: WNDCG is not NDCG on this file.
    assert_ne!(free["mean"]["wndcg"], free["mean"]["ndcg"]);
    // The cap changes the crawl; with 1 page per host, 5 hosts give 5 visits, not 10.
    assert_ne!(free["cycles"], capped["cycles"]);
    let visits = |v: &Value| -> Vec<u64> {
        v["cycles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["visited"].as_u64().unwrap())
            .collect()
    };
    assert!(visits(&free).iter().all(|&n| n == 10));
    assert!(visits(&one).iter().all(|&n| n == 5));
    // The table shows the weighted metrics too.
    let text = freshgp()
        .args(["simulate", "--data", &data, "--baseline", "NAD"])
        .args(["--period", "all", "--resources", "0.25", "--host-cap", "2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("host cap 2 (pages of one host per cycle)")
            && text.contains("WFreshness")
            && text.contains("WNDCG"),
        "{text}"
    );
}

#[test]
fn baselines_report_weighted_metrics_under_a_host_cap() {
    let dir = tempfile::tempdir().unwrap();
    let data = weighted_history(dir.path(), 5, 8);
    let args = [
        "baselines",
        "--data",
        &data,
        "--resources",
        "0.25",
        "--json",
    ];
    let free = json(&args);
    let mut capped_args = args.to_vec();
    capped_args.extend(["--host-cap", "1"]);
    let capped = json(&capped_args);
    assert_eq!(capped["host_cap"], 1);
    for name in ["Rand", "Age", "NAD", "SAD", "AAD", "GAD", "CG"] {
        for metric in ["wfreshness", "wndcg"] {
            let mean = capped["baselines"][name][metric]["mean"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&mean), "{name} {metric}");
        }
    }
    assert_ne!(free["baselines"], capped["baselines"]);
}

#[test]
fn a_host_cap_of_zero_is_refused_by_every_simulating_command() {
    let dir = tempfile::tempdir().unwrap();
    let data = weighted_history(dir.path(), 5, 8);
    for command in [
        &["simulate", "--baseline", "NAD"][..],
        &["baselines"][..],
        &[
            "evolve",
            "--population",
            "4",
            "--generations",
            "1",
            "--seeds",
            "1",
        ][..],
    ] {
        let mut args = command.to_vec();
        args.extend(["--data", &data, "--host-cap", "0"]);
        fails_with(&args, "--host-cap 0: give at least 1");
        fails_with(&args, "the host cap must be at least 1");
    }
}

#[test]
fn evolve_with_a_weighted_fitness_under_a_host_cap() {
    let dir = tempfile::tempdir().unwrap();
    let data = weighted_history(dir.path(), 5, 8);
    let v = json(&[
        "evolve",
        "--data",
        &data,
        "--fitness",
        "wndcg",
        "--resources",
        "0.25",
        "--host-cap",
        "2",
        "--seeds",
        "1",
        "--population",
        "8",
        "--generations",
        "1",
        "--json",
        "--quiet",
    ]);
    assert_eq!(v["metric"], "wndcg");
    assert_eq!(v["host_cap"], 2);
    // The reported test figure is the mean WNDCG of the choice's test cycles.
    let choice = &v["seeds"][0]["choices"][0];
    let cycles = choice["test_cycles"].as_array().unwrap();
    let mean = cycles
        .iter()
        .map(|c| c["wndcg"].as_f64().unwrap())
        .sum::<f64>()
        / cycles.len() as f64;
    assert!((choice["test"].as_f64().unwrap() - mean).abs() < 1e-12);
    let ndcg = cycles
        .iter()
        .map(|c| c["ndcg"].as_f64().unwrap())
        .sum::<f64>()
        / cycles.len() as f64;
    assert_ne!(mean, ndcg, "the weights count on this file");
    fails_with(
        &["evolve", "--data", &data, "--fitness", "wndgc"],
        "expected changerate, ndcg, freshness, wfreshness or wndcg",
    );
}
