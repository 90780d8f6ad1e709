//! EXP3 bandits from the command line.

use super::{fails_with, freshgp, json, SAMPLE};

/// EXP3 bandits (docs/src/reference/bandit.md) from the command line: a bandit simulates,
/// reports its draws, runs beside other policies, schedules a live crawl, and bad bandits
/// are clear errors.
#[test]
fn bandits_run_from_the_command_line() {
    let kab5 = "exp3(arms: [uniform, change, weight, value, lambda], gamma: 0.1)";
    let v = json(&[
        "simulate", "--data", SAMPLE, "--json", "--period", "all", "--policy", kab5, "--metric",
        "wndcg",
    ]);
    // The arms of kab5 in its order, so the policy prints as the preset.
    assert_eq!(v["scorer"], "kab5");
    let bandit = &v["bandit"];
    assert_eq!(bandit["arms"].as_array().unwrap().len(), 5);
    assert_eq!(bandit["reward"], "wndcg");
    let cycles = v["cycles"].as_array().unwrap();
    let choices = bandit["choices"].as_array().unwrap();
    assert_eq!(choices.len(), cycles.len());
    for (choice, cycle) in choices.iter().zip(cycles) {
        assert_eq!(choice["cycle"], cycle["cycle"]);
        assert_eq!(choice["reward"], cycle["wndcg"]);
        let q: f64 = choice["q"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .sum();
        assert!((q - 1.0).abs() < 1e-12, "{choice}");
    }
    let shares: f64 = bandit["shares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((shares - 1.0).abs() < 1e-12);
    let table = freshgp()
        .args(["simulate", "--data", SAMPLE, "--policy", "kab2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.contains("rewarded by NDCG") && table.contains("arm 1: change drawn in"),
        "{table}"
    );
    // Side by side with other policies; commas inside exp3(..) do not separate.
    let some = json(&[
        "baselines",
        "--data",
        SAMPLE,
        "--json",
        "--policies",
        "kab2, exp3(arms: [kab3, nutch], gamma: 0.5, reward: changerate), lambda",
    ]);
    let keys: Vec<&String> = some["baselines"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    // Over the whole history (for learning policies): every cycle after the warm-up.
    let temporal = json(&[
        "baselines",
        "--data",
        SAMPLE,
        "--json",
        "--policies",
        "kab2",
    ]);
    let whole = json(&[
        "baselines",
        "--data",
        SAMPLE,
        "--json",
        "--policies",
        "kab2",
        "--test-horizon",
        "whole",
    ]);
    assert_eq!(whole["test_horizon"], "whole");
    assert!(
        whole["cycles"].as_u64() > temporal["cycles"].as_u64(),
        "{whole}"
    );
    let tested = |extra: &[&str]| {
        let mut args = vec![
            "evolve",
            "--data",
            SAMPLE,
            "--seeds",
            "1",
            "--population",
            "10",
        ];
        args.extend(["--generations", "1", "--json", "--quiet"]);
        args.extend(extra);
        json(&args)["seeds"][0]["choices"][0]["test_cycles"]
            .as_array()
            .unwrap()
            .len()
    };
    // The sample has 57 cycles: 17 scored in period 3, 55 over the whole history.
    assert_eq!(
        (tested(&[]), tested(&["--test-horizon", "whole"])),
        (17, 55)
    );
    let mixed = "exp3(arms: [weight, change, uniform, nutch], gamma: 0.5, reward: changerate)";
    assert_eq!(
        some["baselines"][mixed]["arms"]["arms"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    for (bad, says) in [
        ("exp3(arms: [])", "at least one arm"),
        ("exp3(arms: [uniform], gamma: 0)", "gamma must be in (0, 1]"),
        (
            "exp3(arms: [uniform], reward: clicks)",
            "reward: not a reward (expected found",
        ),
        ("exp3(arms: [nutch, stormcrawler])", "one such arm"),
        (
            "exp3(arms: [uniform, weight], forget: discount(window: 0))",
            "discount(window: W) needs W >= 1",
        ),
        (
            "exp3(arms: [uniform, weight], rate: horizon(0))",
            "horizon(T) needs T >= 1",
        ),
        (
            "exp3(arms: [uniform, weight], rate: weekly)",
            "rate: expected fixed, horizon(T)",
        ),
        (
            "exp3(arms: [uniform, weight], gamma: 0.3, rate: anytime)",
            "set by the rate schedule",
        ),
    ] {
        fails_with(&["simulate", "--data", SAMPLE, "--policy", bad], says);
    }
    // A live crawl: rewarded by the change rate; the state keeps the bandit.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("bandit.state");
    let state = state.to_str().unwrap();
    fails_with(
        &[
            "schedule",
            "--policy",
            "exp3(arms: [uniform, change], reward: ndcg)",
            "--state",
            state,
            "--k",
            "1",
        ],
        "rewarded by changerate only",
    );
    assert!(
        !std::path::Path::new(state).exists(),
        "a refused policy writes no state"
    );
    let lock = format!("{state}.lock");
    assert!(!std::path::Path::new(&lock).exists(), "nor a lock file");
    let log = dir.path().join("day1.tsv");
    std::fs::write(&log, "a\t1\t1\nb\t1\t0\nc\t1\t1\n").unwrap();
    let log = log.to_str().unwrap();
    let v = json(&[
        "schedule",
        "--policy",
        "kab3",
        "--state",
        state,
        "--observe",
        log,
        "--k",
        "2",
        "--json",
    ]);
    assert_eq!(
        v["bandit"]["arms"],
        serde_json::json!(["weight", "change", "uniform"])
    );
    assert!(v["bandit"]["arm"].as_u64().unwrap() < 3);
    assert_eq!(v["batch"].as_array().unwrap().len(), 2);
    // Day 2: one of the two pages of the batch is reported, changed: the next run rewards
    // the batch (change rate 1/2) and says a page went unreported.
    let first = v["batch"][0]["page"].as_str().unwrap().to_string();
    let log2 = dir.path().join("day2.tsv");
    std::fs::write(&log2, format!("{first}\t2\t1\n")).unwrap();
    let out = freshgp()
        .args([
            "schedule",
            "--state",
            state,
            "--observe",
            log2.to_str().unwrap(),
            "--k",
            "2",
        ])
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("batch of cycle 2")
            && out.contains("change rate 0.5000")
            && out.contains("1 of its pages were not reported"),
        "{out}"
    );
}

/// The best policy per window: a row per window of the scored cycles, the winner named,
/// and a switcher at least as good as the best fixed policy; bad widths are errors.
#[test]
fn the_best_policy_per_window_is_tabulated() {
    let v = json(&[
        "baselines",
        "--data",
        SAMPLE,
        "--json",
        "--policies",
        "weight,change,value",
        "--test-horizon",
        "whole",
        "--metric",
        "wfreshness",
        "--windows",
        "7",
    ]);
    let w = &v["windows"];
    let rows = w["rows"].as_array().unwrap();
    let cycles = v["cycles"].as_u64().unwrap() as usize;
    // `cycles` counts the scored cycles of the five test sets pooled.
    assert_eq!(rows.len(), (cycles / 5).div_ceil(7), "{w}");
    for r in rows {
        let means: Vec<f64> = r["means"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_f64().unwrap())
            .collect();
        let best = r["best"].as_u64().unwrap() as usize;
        assert!(means.iter().all(|&m| m <= means[best]), "{r}");
    }
    let (fixed, switcher) = (
        w["fixed"].as_f64().unwrap(),
        w["switcher"].as_f64().unwrap(),
    );
    assert!(switcher >= fixed - 1e-12, "{w}");
    let wins: u64 = w["wins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(wins as usize, rows.len());
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--policies",
            "weight,change",
            "--windows",
            "0",
        ],
        "--windows",
    );
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--policies",
            "weight",
            "--windows",
            "7",
        ],
        "at least two policies",
    );
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--policies",
            "weight,change",
            "--windows",
            "7",
            "--runs",
            "2",
        ],
        "--windows reads one run at one budget",
    );
}
