//! `freshgp baselines`, `simulate` and `evolve` as a user runs them; weighted metrics and
//! host caps in `weighted.rs`, bandits in `bandits.rs`, budget sweeps in `sweeps.rs`, the
//! oracle and the default search in `oracle.rs`.

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
    for threads in ["2", "8"] {
        assert_eq!(
            one,
            evolve_json(threads),
            "same seed, same result, whatever the thread count ({threads})"
        );
    }
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
fn the_literatures_policies_run_side_by_side_and_alone() {
    // By default `baselines` shows every named policy: the baselines and the literature's
    // (docs/src/reference/policies.md).
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
    // uniform ranks as Age (ρ = k/P for every page): all but the policy's text agree.
    let unnamed = |name: &str, text: &str| {
        let mut entry = v["baselines"][name].clone();
        assert_eq!(entry["policy"], text);
        entry["policy"] = serde_json::Value::Null;
        entry
    };
    assert!(unnamed("uniform", "uniform") == unnamed("Age", "Age"));
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
    let mut formula = some["baselines"]["w * t"].clone();
    assert_eq!(formula["policy"], "w * t");
    formula["policy"] = "weight".into();
    assert!(
        formula == v["baselines"]["weight"],
        "`w * t` ranks as `weight`"
    );
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

mod bandits;
mod oracle;
mod sweeps;
mod weighted;

/// `examples/simulate_speed.sh` runs every policy it times (on a small history here): a
/// flag it passes that `simulate` stopped taking would fail it.
#[test]
fn the_simulate_speed_script_times_every_policy() {
    let dir = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/simulate_speed.sh");
    let out = std::process::Command::new("sh")
        .arg(script)
        .arg(dir.path())
        .arg(env!("CARGO_BIN_EXE_freshgp"))
        .env("PAGES", "2000")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.ends_with("CPU-s)")).collect();
    let names = [
        "NAD",
        "GP4C formula",
        "extended-15",
        "evolved-22",
        "evolved-22, host cap 2",
        "evolved-15",
        "evolved-19",
        "lambda",
        "lambda-harmonic",
        "value",
        "weight",
        "kab5",
        "NAD, sampled",
        "evolved-22, sampled",
    ];
    assert_eq!(rows.len(), names.len(), "{stdout}");
    for (row, name) in rows.iter().zip(names) {
        let (speed, rest) = row.trim_start().split_once("  ").unwrap();
        assert!(rest.starts_with(&format!("{name} (")), "{row}");
        assert!(speed == "-" || speed.parse::<f64>().unwrap() > 0.0, "{row}");
    }
}
