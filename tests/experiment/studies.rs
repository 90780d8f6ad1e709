//! Studies beyond the paper's protocol, run as a user would: a weighted fitness under a
//! host cap, the literature's policies as methods, data checks, bandits and budget sweeps
//! with savings.

use super::{assert_same_reports, freshgp, run, run_on_threads, unit_files};
use super::{weighted_history, write_study, REPORTS, TINY};
use std::path::Path;

const POLITE: &str = r#"(
    name: "polite",
    dataset: Path("weighted.tsv"),
    resources: 0.2,
    host_cap: 2,
    top_resources: [0.1, 0.2],
    seeds: 1,
    gp: (population: 8, generations: 1, keep_best: 4),
    configurations: [
        (name: "All-WNDCG", grammar: "extended", fitness: wndcg),
        (name: "All-WFresh", grammar: "all", fitness: wfreshness),
    ],
    baselines: [Rand, NAD],
)
"#;

#[test]
fn a_weighted_fitness_under_a_host_cap_runs_and_reports() {
    let tmp = tempfile::tempdir().unwrap();
    weighted_history(tmp.path());
    let study = write_study(tmp.path(), POLITE);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in [
        "host cap 2 (at most 2 pages of one host",
        "fitness WNDCG",
        "| All-WNDCG/best | WNDCG |",
        "| All-WFresh/best | WFreshness |",
        "### WNDCG",
        "### WFreshness",
        "without page weights they would equal Freshness and NDCG",
    ] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}:\n{summary}"
        );
    }
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["study"]["sim"]["host_cap"], 2);
    assert_eq!(results["study"]["configurations"][0]["fitness"], "wndcg");
    let best = &results["methods"][0];
    assert_ne!(best["wndcg"]["mean"], best["ndcg"]["mean"]);
    assert!(best["top"][0]["wndcg"]["mean"].is_f64());
    let csv = std::fs::read_to_string(out.join("cycles.csv")).unwrap();
    assert!(csv.starts_with("method,kind,configuration,strategy,fitness,rotation,resources,position,cycle,change_rate,ndcg,freshness,newly_visited,stale,visited,wfreshness,wndcg\n"));
    for plot in ["plots/cycles-wndcg.svg", "plots/top-wndcg.svg"] {
        let svg = std::fs::read_to_string(out.join(plot)).unwrap();
        assert!(svg.contains("All-WNDCG/best"), "{plot}");
    }
    // Another cap is another study: resuming with it is refused.
    let resume_refused = |text: &str| {
        let other = write_study(tmp.path(), text);
        let refused = (freshgp().arg("experiment").arg(&other))
            .arg("--out")
            .arg(&out)
            .arg("--resume")
            .assert()
            .code(2);
        String::from_utf8_lossy(&refused.get_output().stderr).into_owned()
    };
    let stderr = resume_refused(&POLITE.replace("host_cap: 2", "host_cap: 3"));
    assert!(
        stderr.contains("holds a different study")
            && stderr.contains("`sim.host_cap` differs")
            && stderr.contains("(stored 2, file 3)"),
        "{stderr}"
    );
    // Every field that changes a unit's result is the study's identity, also those left
    // out at their defaults; a refused resume leaves study.json as it was.
    let stored = std::fs::read(out.join("study.json")).unwrap();
    for (change, field) in [
        ("    seeds: 1,\n    test_horizon: whole,", "test_horizon"),
        ("    seeds: 1,\n    runs: 2,", "runs"),
        ("    seeds: 1,\n    group: \"category\",", "group"),
    ] {
        let stderr = resume_refused(&POLITE.replace("    seeds: 1,", change));
        assert!(
            stderr.contains("holds a different study") && stderr.contains(&format!("`{field}")),
            "{field}: {stderr}"
        );
        assert_eq!(
            std::fs::read(out.join("study.json")).unwrap(),
            stored,
            "{field}: study.json rewritten"
        );
    }
    // A cap of 0 names the file, the line and the field.
    let zero = write_study(tmp.path(), &POLITE.replace("host_cap: 2", "host_cap: 0"));
    let refused = freshgp().arg("experiment").arg(&zero).assert().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("tiny.ron:5: host_cap: the host cap must be at least 1"),
        "{stderr}"
    );
}

#[test]
fn units_written_before_the_weighted_metrics_still_report() {
    let tmp = tempfile::tempdir().unwrap();
    // Units from before the weighted metrics were simulated without weights: the tiny
    // history without its weight column.
    let history = tmp.path().join("weighted.tsv");
    freshgp()
        .args(["dataset", "synth", "--preset", "brdc12", "--pages", "1000"])
        .args(["--days", "21", "--seed", "5", "--out"])
        .arg(&history)
        .assert()
        .success();
    let plain: String = std::fs::read_to_string(&history)
        .unwrap()
        .lines()
        .map(|line| line.split("\tweight=").next().unwrap().to_string() + "\n")
        .collect();
    std::fs::write(tmp.path().join("plain.tsv"), plain).unwrap();
    let study = write_study(
        tmp.path(),
        &TINY
            .replace("seeds: 2,", "seeds: 1,\n    rotations: [0, 1],")
            .replace(
                r#"Synthetic(preset: "brdc12", pages: 1000, days: 21, seed: 5)"#,
                r#"Path("plain.tsv")"#,
            ),
    );
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("here they equal Freshness and NDCG in every cycle"),
        "{summary}"
    );
    let before: Vec<Vec<u8>> = REPORTS
        .iter()
        .map(|name| std::fs::read(out.join(name)).unwrap())
        .collect();
    // Rewrite every unit file as freshgp wrote it before the weighted metrics: cycles
    // without `wndcg` and `wfreshness`.
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("wndcg");
                map.remove("wfreshness");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    for name in unit_files(&out) {
        let path = out.join("units").join(&name);
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        strip(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap();
        assert!(!text.contains("wndcg"), "{name}");
        std::fs::write(&path, text).unwrap();
    }
    let study_json = std::fs::read_to_string(out.join("study.json")).unwrap();
    assert!(!study_json.contains("host_cap"), "{study_json}");
    for name in REPORTS {
        std::fs::remove_file(out.join(name)).unwrap();
    }
    freshgp().arg("report").arg(&out).assert().success();
    for (name, bytes) in REPORTS.iter().zip(before) {
        assert!(
            std::fs::read(out.join(name)).unwrap() == bytes,
            "{name} differs after reading the old unit format"
        );
    }
}

#[test]
fn a_study_compares_the_literatures_policies_as_methods() {
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY.replace("seeds: 2", "seeds: 1").replace(
        "baselines: [Rand, NAD, AAD]",
        r#"baselines: [NAD, lambda, lambda_harmonic, value, nutch,
        adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5), formula("w * t")]"#,
    );
    let study = write_study(tmp.path(), &text);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let methods: Vec<&str> = results["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "baseline")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    let adaptive = "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)";
    assert_eq!(
        methods,
        [
            "NAD",
            "lambda",
            "lambda-harmonic",
            "value",
            "nutch",
            adaptive,
            "w * t"
        ]
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in ["| lambda |", "lambda-harmonic", "| w * t |"] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}:\n{summary}"
        );
    }
    // study.json stores them as text, and the study reads back (resume: nothing to do).
    let stored = std::fs::read_to_string(out.join("study.json")).unwrap();
    assert!(stored.contains(r#""lambda-harmonic""#), "{stored}");
    run(&study, &out, &["--resume"]);
    // A misspelt policy is an error naming the file, line and the known names.
    let bad = write_study(
        tmp.path(),
        &TINY.replace("[Rand, NAD, AAD]", "[Rand, lamda]"),
    );
    let err = freshgp()
        .arg("experiment")
        .arg(&bad)
        .arg("--out")
        .arg(tmp.path().join("bad"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("tiny.ron:") && err.contains("unknown policy `lamda`"),
        "{err}"
    );
}

fn fails(args: &[&std::ffi::OsStr]) -> String {
    let out = freshgp()
        .args(args)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn results_of_other_data_are_never_mixed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = weighted_history(tmp.path());
    let study = write_study(tmp.path(), POLITE);
    let out = tmp.path().join("out");
    // A shard on the data as it is now.
    run(&study, &out, &["--shard", "0/2"]);
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("dataset.json")).unwrap()).unwrap();
    let fingerprint = record["fingerprint"].as_str().unwrap().to_string();
    assert_eq!(
        (record["pages"].clone(), record["cycles"].clone()),
        (100.into(), 21.into())
    );
    let unit = std::fs::read_to_string(out.join("units/baselines-r0.json")).unwrap();
    assert!(unit.contains(&fingerprint), "units carry the fingerprint");

    // The data change (one weight); the other shard runs on them elsewhere.
    let text = std::fs::read_to_string(&data)
        .unwrap()
        .replacen("weight=1", "weight=9", 1);
    std::fs::write(&data, text).unwrap();
    let other = tmp.path().join("other");
    run(&study, &other, &["--shard", "1/2"]);
    let theirs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(other.join("dataset.json")).unwrap()).unwrap();
    assert_ne!(theirs["fingerprint"], record["fingerprint"]);

    // Resuming the first directory on the changed data is refused, naming both.
    let err = fails(&[
        "experiment".as_ref(),
        study.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--resume".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert!(
        err.contains("holds results computed on another dataset")
            && err.contains(&format!("fingerprint {fingerprint}"))
            && err.contains(theirs["fingerprint"].as_str().unwrap()),
        "{err}"
    );
    // So is merging the shards.
    let err = fails(&[
        "report".as_ref(),
        out.as_os_str(),
        "--merge".as_ref(),
        other.as_os_str(),
    ]);
    assert!(
        err.contains("another dataset") && err.contains("other"),
        "{err}"
    );
    // Units copied in by hand are caught by the report.
    for entry in std::fs::read_dir(other.join("units")).unwrap() {
        let name = entry.unwrap().file_name();
        let target = out.join("units").join(&name);
        if !target.exists() {
            std::fs::copy(other.join("units").join(&name), target).unwrap();
        }
    }
    let err = fails(&["report".as_ref(), out.as_os_str()]);
    assert!(
        err.contains("was computed on the dataset of fingerprint"),
        "{err}"
    );
}

/// A directory written when the fingerprint still read the hosts' interning order (its
/// `dataset.json` without `fingerprint_version`, its units carrying that fingerprint)
/// resumes on the same data, and then holds both fingerprints; on other data it is still
/// refused.
#[test]
fn a_directory_of_the_first_fingerprint_resumes_with_its_meaning() {
    let tmp = tempfile::tempdir().unwrap();
    weighted_history(tmp.path());
    let study = write_study(tmp.path(), POLITE);
    let out = tmp.path().join("out");
    run(&study, &out, &["--shard", "0/2"]);
    let read = |path: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    };
    let record = read(&out.join("dataset.json"));
    assert_eq!(record["fingerprint_version"], 2);
    let now = record["fingerprint"].as_str().unwrap().to_string();
    let first = record["first_fingerprint"].as_str().unwrap().to_string();
    assert_ne!(
        now, first,
        "the history has hosts: the two definitions differ"
    );
    // The directory as the earlier build wrote it.
    let old = |fingerprint: &str| {
        let text = format!(
            r#"{{"fingerprint": "{fingerprint}", "pages": {}, "cycles": {}}}"#,
            record["pages"], record["cycles"]
        );
        std::fs::write(out.join("dataset.json"), text).unwrap();
    };
    old(&first);
    let mut units = 0;
    for entry in std::fs::read_dir(out.join("units")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(&now));
        std::fs::write(&path, text.replace(&now, &first)).unwrap();
        units += 1;
    }
    assert!(units > 0);
    // Other data under the old definition is refused, naming it.
    old("0123456789abcdef");
    let err = fails(&[
        "experiment".as_ref(),
        study.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--resume".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert!(
        err.contains("another dataset") && err.contains("0123456789abcdef"),
        "{err}"
    );
    // The same data resumes: the old units and the new ones make one report.
    old(&first);
    run(&study, &out, &["--resume", "--shard", "1/2"]);
    let upgraded = read(&out.join("dataset.json"));
    assert_eq!(upgraded["fingerprint"], now.as_str());
    assert_eq!(upgraded["first_fingerprint"], first.as_str());
    assert!(out.join("summary.md").exists());
    // A unit of neither fingerprint is still caught by the report.
    let unit = std::fs::read_dir(out.join("units"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&unit).unwrap();
    let fingerprint = if text.contains(&now) { &now } else { &first };
    std::fs::write(
        &unit,
        text.replace(fingerprint.as_str(), "0123456789abcdef"),
    )
    .unwrap();
    let err = fails(&["report".as_ref(), out.as_os_str()]);
    assert!(
        err.contains("was computed on the dataset of fingerprint"),
        "{err}"
    );
}

#[test]
fn ranges_that_depend_on_the_size_are_checked_when_the_study_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    for (from, to, says) in [
        (
            "seeds: 2,",
            "seeds: 2,\n    warmup: 30,",
            "tiny.ron:6: warmup: 30 warm-up cycles leave no cycle to score in periods of 7 cycles (21 days in 3 periods)",
        ),
        (
            "top_resources: [0.02, 0.05],",
            "top_resources: [0.001, 0.05],",
            "tiny.ron:6: top_resources: 0.001 of the smallest set (200 pages) is less than one visit a cycle",
        ),
    ] {
        let study = write_study(tmp.path(), &TINY.replace(from, to));
        let err = fails(&[
            "experiment".as_ref(),
            study.as_os_str(),
            "--out".as_ref(),
            tmp.path().join("out").as_os_str(),
        ]);
        assert!(err.contains(says), "{err}");
        assert!(!tmp.path().join("out").exists(), "nothing was written");
    }
    // A default warm-up that the dataset's days rule out points at the dataset.
    let study = write_study(tmp.path(), &TINY.replace("days: 21", "days: 6"));
    let err = fails(&["experiment".as_ref(), study.as_os_str()]);
    assert!(
        err.contains("tiny.ron:4: warmup: 2 warm-up cycles leave no cycle to score in periods of 2 cycles (6 days"),
        "{err}"
    );
    // A file dataset too: its size is read with the study.
    weighted_history(tmp.path());
    let study = write_study(
        tmp.path(),
        &POLITE.replace("resources: 0.2,", "resources: 0.2,\n    warmup: 7,"),
    );
    let err = fails(&["experiment".as_ref(), study.as_os_str()]);
    assert!(
        err.contains(
            "tiny.ron:5: warmup: 7 warm-up cycles leave no cycle to score in periods of 7 cycles"
        ),
        "{err}"
    );
}

/// A study of bandits (docs/src/reference/bandit.md): presets among the baselines, a
/// configuration's evolved formula as one more arm (`kab3+gp`), tested over the whole
/// history; the report shows each bandit's arms and plots their probabilities; thread
/// counts change nothing.
#[test]
fn a_bandit_study_tests_over_the_whole_history_with_the_evolved_arm() {
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY
        .replace("seeds: 2", "seeds: 1")
        .replace("days: 21", "days: 40")
        .replace("top_resources: [0.02, 0.05],", "top_resources: [0.02],\n    test_horizon: whole,\n    metric: wndcg,")
        .replace(
            r#"(name: "All-NDCG", grammar: "all", fitness: ndcg),"#,
            r#"(name: "All-NDCG", grammar: "all", fitness: ndcg, bandits: [kab3]),"#,
        )
        .replace(
            "baselines: [Rand, NAD, AAD]",
            "baselines: [uniform, change, weight, kab3, exp3(arms: [kab2, NAD], gamma: 0.2, reward: changerate)]",
        );
    let study = write_study(tmp.path(), &text);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        run_on_threads(&study, dir, threads);
    }
    let plots = ["plots/arms-kab3.svg", "plots/arms-All-NDCG-best-kab3.svg"];
    for file in [
        "summary.md",
        "results.json",
        "cycles.csv",
        "arms.csv",
        plots[0],
        plots[1],
    ] {
        assert_eq!(
            std::fs::read(one.join(file)).unwrap_or_else(|e| panic!("{file}: {e}")),
            std::fs::read(two.join(file)).unwrap(),
            "{file}"
        );
    }
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("results.json")).unwrap()).unwrap();
    // The whole history: 40 cycles, 2 of warm-up.
    assert_eq!(results["cycles_per_rotation"], 38);
    let methods = results["methods"].as_array().unwrap();
    let method = |name: &str| {
        methods
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("no method {name}"))
    };
    let gp = method("All-NDCG/best+kab3");
    assert_eq!(gp["arms"].as_array().unwrap().len(), 4);
    assert_eq!(gp["arms"][3], "All-NDCG/best");
    // The bandit is compared with its evolved arm alone too.
    let compared = results["bandits_vs_arms"].as_array().unwrap();
    assert!(compared
        .iter()
        .any(|c| c["bandit"] == "All-NDCG/best+kab3" && c["arm"] == "All-NDCG/best"));
    let kab3 = method("kab3");
    let shares: Vec<f64> = kab3["arm_shares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_f64().unwrap())
        .collect();
    assert_eq!(shares.len(), 3);
    assert!(
        (shares.iter().sum::<f64>() - 1.0).abs() < 1e-9,
        "{shares:?}"
    );
    assert!(method("uniform")["arms"].is_null());
    // arms.csv: a row per bandit method, rotation and scored cycle.
    let arms = std::fs::read_to_string(one.join("arms.csv")).unwrap();
    let bandit_methods = methods.iter().filter(|m| m["arms"].is_array()).count();
    assert_eq!(arms.lines().count(), 1 + bandit_methods * 5 * 38);
    assert!(
        arms.starts_with("method,rotation,position,cycle,arm,arm_name,reward,q0,q1,q2,q3\n"),
        "{arms}"
    );
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(summary.contains("## Bandits\n"), "{summary}");
    assert!(summary.contains("### All-NDCG/best+kab3"), "{summary}");
    // A configuration's `bandits` must be bandits.
    let twice = write_study(
        tmp.path(),
        &text.replace("bandits: [kab3]", "bandits: [kab3, kab3]"),
    );
    let err = fails(&[
        "experiment".as_ref(),
        twice.as_os_str(),
        "--out".as_ref(),
        tmp.path().join("twice").as_os_str(),
    ]);
    assert!(err.contains("`kab3` is listed twice"), "{err}");
    let bad = write_study(
        tmp.path(),
        &text.replace("bandits: [kab3]", "bandits: [lambda]"),
    );
    let err = fails(&[
        "experiment".as_ref(),
        bad.as_os_str(),
        "--out".as_ref(),
        tmp.path().join("bad").as_os_str(),
    ]);
    assert!(err.contains("`lambda` is no bandit"), "{err}");
}

/// The shipped bandit studies (docs/src/reference/bandit.md) read, with their bandits, long
/// horizon and evolved arm.
#[test]
fn shipped_bandit_studies_are_valid() {
    use freshgp::data::split::Horizon;
    use freshgp::experiment::study::Study;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    for name in [
        "bandit.ron",
        "bandit-commerce.ron",
        "bandit-scoop.ron",
        "bandit-contrib.ron",
    ] {
        let study = Study::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(study.test_horizon, Horizon::Whole, "{name}");
        assert_eq!(
            study.sim.metric(),
            freshgp::metric::Metric::WFreshness,
            "{name}"
        );
        let bandits = study
            .baselines
            .iter()
            .filter(|b| b.bandit().is_some())
            .count();
        assert_eq!(bandits, 4, "{name}");
        assert_eq!(study.configurations[0].bandits.len(), 1, "{name}");
    }
}

/// Budgets, runs and savings (docs/src/reference/evaluation.md) in a study: a budget sweep
/// with sampled decisions, repeated runs, a Wilcoxon reference and savings; the report has
/// the tables, the JSON figures and the log-axis plots, identical at 1 and 2 threads.
#[test]
fn a_budget_sweep_with_runs_and_savings_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"(
        name: "sweep",
        dataset: Synthetic(preset: "commerce", pages: 1000, days: 21, seed: 2),
        rotations: [0, 1],
        resources: [0.005, 0.05, 0.5],
        train_resources: 0.1,
        decision: sample,
        runs: 4,
        reference: lambda,
        savings: [lambda, nutch],
        metric: wfreshness,
        seeds: 1,
        gp: (population: 8, generations: 1),
        configurations: [(name: "All-NDCG", grammar: "extended", fitness: wfreshness)],
        baselines: [uniform, lambda, nutch, kab3],
        reports: (strategies: [best, sum_sigma]),
    )"#;
    let study = write_study(tmp.path(), text);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        run_on_threads(&study, dir, threads);
    }
    assert_same_reports(&one, &two);
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(summary.contains("## Budgets\n"), "{summary}");
    assert!(summary.contains("| 0.5% | 5% | 10% | 50% |"), "{summary}");
    assert!(
        summary.contains("## Savings at equal WFreshness"),
        "{summary}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("results.json")).unwrap()).unwrap();
    let methods = json["methods"].as_array().unwrap();
    let uniform = methods.iter().find(|m| m["name"] == "uniform").unwrap();
    let budgets = uniform["budgets"].as_array().unwrap();
    assert_eq!(budgets.len(), 4, "every budget, the training one included");
    let w = budgets[1]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "wfreshness")
        .unwrap();
    let (low, median, high) = (
        w["low"].as_f64().unwrap(),
        w["median"].as_f64().unwrap(),
        w["high"].as_f64().unwrap(),
    );
    assert!(low <= median && median <= high && low < high, "{w}");
    let p = w["wilcoxon_p"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
    // Four paired runs: the exact two-sided p-values are multiples of 2/16.
    assert!(((p * 8.0) - (p * 8.0).round()).abs() < 1e-12, "{p}");
    let savings = uniform["savings"].as_array().unwrap();
    assert_eq!(savings.len(), 2);
    for s in savings {
        if let Some(saved) = s["savings"].as_f64() {
            assert!((0.0..1.0).contains(&saved), "{s}");
            assert!(s["reaches_at"].as_f64().unwrap() <= 0.1);
        }
    }
    // The evolved formula is tested at every budget too; plots show one strategy.
    let x = methods
        .iter()
        .find(|m| m["name"] == "All-NDCG/best")
        .unwrap();
    assert_eq!(x["budgets"].as_array().unwrap().len(), 4);
    let plot = std::fs::read_to_string(one.join("plots/budgets-wfreshness.svg")).unwrap();
    assert!(
        plot.contains("log scale")
            && plot.contains("All-NDCG/best")
            && !plot.contains("All-NDCG/sum_sigma")
    );
}

/// The study fields of budgets, runs and savings refuse what cannot work, naming the field.
#[test]
fn sweep_fields_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let base = r#"(
        name: "s",
        dataset: Synthetic(preset: "commerce", pages: 500, days: 21, seed: 2),
        resources: [0.05, 0.1],
        runs: 3,
        configurations: [(name: "X", grammar: "all", fitness: ndcg)],
        baselines: [NAD, lambda],
        reference: lambda,
    )"#;
    for (edit, field) in [
        (
            base.replace("reference: lambda", "reference: nutch"),
            "reference",
        ),
        (base.replace("runs: 3", "runs: 0"), "runs"),
        (base.replace("runs: 3", "runs: 3, tie_seed: 4"), "runs"),
        (
            base.replace(
                "resources: [0.05, 0.1]",
                "resources: [0.05], top_resources: [0.01]",
            ),
            "top_resources",
        ),
        (
            base.replace(
                "resources: [0.05, 0.1]",
                "resources: 0.05, train_resources: 0.1",
            ),
            "train_resources",
        ),
        (
            base.replace("runs: 3", "decision: sample, host_cap: 2"),
            "decision",
        ),
        (
            base.replace("reference: lambda", "savings: [value]"),
            "savings",
        ),
        // No case for ε-lexicase to compare: no training budget, or an unknown metric.
        (
            base.replace("runs: 3", "runs: 3, train_resources: []"),
            "train_resources",
        ),
        (
            base.replace("fitness: ndcg)", "fitness: ndcg, also: [stale])"),
            "tiny.ron:6:81: Unexpected variant named `stale`",
        ),
    ] {
        let study = write_study(tmp.path(), &edit);
        let out = freshgp()
            .arg("experiment")
            .arg(&study)
            .arg("--out")
            .arg(tmp.path().join("o"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(field),
            "{field}: {err}"
        );
    }
}
