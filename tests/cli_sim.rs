//! `freshgp baselines`, `simulate` and `evolve` as a user runs them.

use assert_cmd::Command;
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/brdc12-sample.tsv");

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = freshgp()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

fn fails_with(args: &[&str], message: &str) {
    let out = freshgp()
        .args(args)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(message),
        "stderr of {args:?} lacks {message:?}:\n{text}"
    );
}

#[test]
fn baselines_json_shape() {
    let v = json(&["baselines", "--data", SAMPLE, "--json"]);
    assert_eq!(v["cycles"], 85);
    for name in ["Rand", "Age", "NAD", "SAD", "AAD", "GAD", "CG"] {
        let b = &v["baselines"][name];
        for metric in ["changerate", "ndcg"] {
            let mean = b[metric]["mean"].as_f64().unwrap();
            let ci = b[metric]["ci95"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&mean) && ci >= 0.0, "{name} {metric}");
        }
    }
    let nad = v["baselines"]["NAD"]["ndcg"]["mean"].as_f64().unwrap();
    let rand = v["baselines"]["Rand"]["ndcg"]["mean"].as_f64().unwrap();
    assert!(nad > rand, "NAD {nad} beats Rand {rand}");
}

#[test]
fn simulate_formula_equals_baseline() {
    let formula = json(&[
        "simulate",
        "--data",
        SAMPLE,
        "--formula",
        "1 - exp(-NAD * t)",
        "--json",
    ]);
    let baseline = json(&["simulate", "--data", SAMPLE, "--baseline", "NAD", "--json"]);
    assert_eq!(formula["cycles"], baseline["cycles"]);
    assert_eq!(formula["cycles"].as_array().unwrap().len(), 17);
    let all = json(&[
        "simulate",
        "--data",
        SAMPLE,
        "--baseline",
        "Age",
        "--period",
        "all",
        "--json",
    ]);
    assert_eq!(all["pages"], 3000);
    assert_eq!(all["cycles"].as_array().unwrap().len(), 55);
}

#[test]
fn bad_arguments_exit_2_with_a_reason() {
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--formula",
            "t * CG",
            "--grammar",
            "basic",
        ],
        "at byte 4",
    );
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--baseline",
            "NAD",
            "--resources",
            "1.5",
        ],
        "resources must be in (0, 1]",
    );
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--baseline",
            "NAD",
            "--warmup",
            "19",
        ],
        "warm-up of 19 cycles",
    );
    fails_with(
        &["simulate", "--data", SAMPLE, "--baseline", "Fresh"],
        "unknown baseline",
    );
    fails_with(
        &["baselines", "--data", "/no/such/file.tsv"],
        "/no/such/file.tsv",
    );
    fails_with(
        &["evolve", "--data", SAMPLE, "--population", "1"],
        "population = 1",
    );
    fails_with(
        &[
            "evolve",
            "--data",
            SAMPLE,
            "--population",
            "10",
            "--tournament",
            "20",
        ],
        "tournament = 20",
    );
    fails_with(
        &["evolve", "--data", SAMPLE, "--resources", "0"],
        "resources",
    );
    fails_with(&["evolve", "--data", SAMPLE, "--rotation", "5"], "rotation");
}

fn evolve_json(threads: &str) -> Value {
    let out = freshgp()
        .env("RAYON_NUM_THREADS", threads)
        .args([
            "evolve",
            "--data",
            SAMPLE,
            "--seeds",
            "2",
            "--population",
            "20",
            "--generations",
            "3",
            "--json",
            "--quiet",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let mut v: Value = serde_json::from_slice(&out).unwrap();
    v.as_object_mut().unwrap().remove("seconds");
    for seed in v["seeds"].as_array_mut().unwrap() {
        seed.as_object_mut().unwrap().remove("seconds");
    }
    v
}

#[test]
fn evolve_json_shape_and_determinism_across_threads() {
    let one = evolve_json("1");
    let two = evolve_json("2");
    assert_eq!(
        one, two,
        "same seed, same result, whatever the thread count"
    );
    for strategy in ["best", "sum_sigma", "avg_sigma"] {
        let c = &one[strategy];
        let text = c["formula"].as_str().unwrap();
        // The printed formula parses back.
        text.parse::<freshgp::formula::Formula>().unwrap();
        for field in ["train", "validation", "test"] {
            assert!(
                (0.0..=1.0).contains(&c[field].as_f64().unwrap()),
                "{strategy}.{field}"
            );
        }
    }
    assert_eq!(one["seeds"].as_array().unwrap().len(), 2);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    // A batch of 100,000 page ids: far more than a pipe buffers, so a write fails once the
    // reader is gone (`freshgp schedule ... | head -c1`).
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("day1.tsv");
    let lines: String = (0..100_000).map(|i| format!("page{i}\t1\t0\n")).collect();
    std::fs::write(&log, lines).unwrap();
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("freshgp"))
        .args(["schedule", "--baseline", "Age", "--k", "100000", "--state"])
        .arg(tmp.path().join("crawl.state"))
        .arg("--observe")
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("error"),
        "{stderr}"
    );
}

#[test]
fn simulate_and_schedule_run_any_policy() {
    let run = |policy: &[&str]| {
        let mut args = vec!["simulate", "--data", SAMPLE, "--json"];
        args.extend_from_slice(policy);
        json(&args)
    };
    // --policy reads a baseline name and a formula as --baseline and --formula do.
    assert_eq!(run(&["--policy", "nad"]), run(&["--baseline", "NAD"]));
    assert_eq!(
        run(&["--policy", "X / n * t"]),
        run(&["--formula", "X / n * t"])
    );
    // Adaptive intervals: a preset and the same parameters written out are one policy,
    // and they rank otherwise than the age alone.
    let nutch = run(&["--policy", "nutch"]);
    let spelled = run(&[
        "--policy",
        "adaptive(init: 30, min: 1, max: 365, inc: 0.4, dec: 0.2)",
    ]);
    assert_eq!(nutch["cycles"], spelled["cycles"]);
    assert_eq!(nutch["scorer"], "nutch");
    assert_ne!(nutch["cycles"], run(&["--policy", "Age"])["cycles"]);
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--policy",
            "adaptive(init: 0, min: 1, max: 9, inc: 0.1, dec: 0.1)",
        ],
        "need 0 < min <= init <= max",
    );
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--policy",
            "nutch",
            "--baseline",
            "NAD",
        ],
        "cannot be used with",
    );

    // The scheduler keeps the policy (and its per-page memory) in its state.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("crawl.state");
    let log = dir.path().join("day1.tsv");
    std::fs::write(&log, "a\t1\t1\nb\t1\t0\nc\t1\t0\n").unwrap();
    let state_arg = state.to_str().unwrap();
    let log_arg = log.to_str().unwrap();
    freshgp()
        .args(["schedule", "--policy", "stormcrawler", "--state", state_arg])
        .args(["--observe", log_arg, "--k", "1"])
        .assert()
        .success()
        .stdout("a\n");
    fails_with(
        &[
            "schedule", "--policy", "nutch", "--state", state_arg, "--k", "1",
        ],
        "schedules with `stormcrawler`, not `nutch`",
    );
}

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

/// A small weighted history with hosts (SPEC §1, §8) in `dir`: `hosts` hosts of `per_host`
/// pages, 21 cycles, `BITS<TAB>id<TAB>host<TAB>weight=W` lines; busier hosts change more
/// and weights vary from page to page.
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

#[test]
fn the_literatures_policies_run_side_by_side_and_alone() {
    // By default `baselines` shows every named policy, SPEC §4 and §9.
    let v = json(&["baselines", "--data", SAMPLE, "--json"]);
    let names = [
        "Rand",
        "Age",
        "uniform",
        "change",
        "weight",
        "lambda",
        "lambda-harmonic",
        "value",
        "nutch",
        "stormcrawler",
    ];
    for name in names {
        let wndcg = v["baselines"][name]["wndcg"]["mean"].as_f64();
        assert!(wndcg.is_some_and(|m| (0.0..=1.0).contains(&m)), "{name}");
    }
    // uniform ranks as Age (ρ = k/P for every page).
    assert_eq!(v["baselines"]["uniform"], v["baselines"]["Age"]);
    // --policies picks them, adaptive parameters and formulas included.
    let some = json(&[
        "baselines",
        "--data",
        SAMPLE,
        "--json",
        "--policies",
        "lambda, adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5),w * t",
    ]);
    let keys: Vec<&String> = some["baselines"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert_eq!(some["baselines"]["lambda"], v["baselines"]["lambda"]);
    // `weight` is `w * t`.
    assert_eq!(some["baselines"]["w * t"], v["baselines"]["weight"]);
    // A misspelt name lists the known ones; a bad parameter names the field.
    let listed = "known policies are Rand, Age, NAD, SAD, AAD, GAD, CG, uniform, change, weight, lambda, lambda-harmonic, value, nutch, stormcrawler";
    fails_with(
        &["baselines", "--data", SAMPLE, "--policies", "lamda"],
        listed,
    );
    fails_with(&["simulate", "--data", SAMPLE, "--policy", "lamda"], listed);
    fails_with(
        &[
            "baselines",
            "--data",
            SAMPLE,
            "--policies",
            "adaptive(init: 5, min: 9, max: 2, inc: 0.1, dec: 0.1)",
        ],
        "need 0 < min <= init <= max, got min 9",
    );
    fails_with(
        &["baselines", "--data", SAMPLE, "--policies", "lambda,,value"],
        "an empty entry",
    );
    fails_with(
        &["baselines", "--data", SAMPLE, "--policies", "value,VALUE"],
        "listed twice",
    );
    let lambda = json(&["simulate", "--data", SAMPLE, "--json", "--policy", "lambda"]);
    assert_eq!(lambda["scorer"], "lambda");

    // The scheduler runs them, its state keeping what they read (visit intervals).
    // MLE after two days: a changed at both visits (ln 4, π = 3/4), c at one (ln 2,
    // π = 1/2), b at none (ln 4/3, π = 1/4). With one crawl, LambdaCrawl's rates are about
    // b 0.31, c 0.36, a 0.32: a page that changes every cycle is stale again at once, so a
    // crawl buys less freshness there than on c. `change` crawls a.
    let dir = tempfile::tempdir().unwrap();
    for (policy, chosen) in [("lambda", "c\n"), ("change", "a\n")] {
        let state = dir.path().join(format!("{policy}.state"));
        let state_arg = state.to_str().unwrap();
        for (day, log) in [
            (1, "a\t1\t1\nb\t1\t0\nc\t1\t1\n"),
            (2, "a\t2\t1\nb\t2\t0\nc\t2\t0\n"),
        ] {
            let path = dir.path().join(format!("day{day}.tsv"));
            std::fs::write(&path, log).unwrap();
            freshgp()
                .args(["schedule", "--policy", policy, "--state", state_arg])
                .args(["--observe", path.to_str().unwrap(), "--k", "1"])
                .assert()
                .success();
        }
        freshgp()
            .args([
                "schedule", "--policy", policy, "--state", state_arg, "--k", "1",
            ])
            .assert()
            .success()
            .stdout(chosen);
    }
}

#[test]
fn values_may_start_with_a_hyphen() {
    let out = freshgp()
        .args(["formula", "print", "-t + 1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(out).unwrap(), "-t + 1\n");
    let v = json(&["simulate", "--data", SAMPLE, "--json", "--policy", "-t"]);
    assert_eq!(v["scorer"], "-t");
    fails_with(
        &[
            "simulate",
            "--data",
            SAMPLE,
            "--policy",
            "t",
            "--resources",
            "-1",
        ],
        "resources must be in (0, 1], got -1",
    );
}

#[test]
fn a_population_too_large_for_memory_is_refused_before_allocating() {
    fails_with(
        &["evolve", "--data", SAMPLE, "--population", "100000000000"],
        "population = 100000000000: at most 1,000,000 individuals",
    );
}

/// SPEC §10 from the command line: a bandit simulates, reports its draws, runs beside
/// other policies, schedules a live crawl, and bad bandits are clear errors.
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
            "reward: not a metric",
        ),
        ("exp3(arms: [nutch, stormcrawler])", "one such arm"),
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

/// SPEC §11 from the command line: a budget sweep of sampled decisions with repeated runs,
/// medians inside their intervals, Wilcoxon p-values against the reference, and savings.
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
