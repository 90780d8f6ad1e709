//! The oracle and the default search from the command line: a synthetic history's latent
//! change probabilities, the oracle's headroom in `baselines`, its refusal where there are
//! none, `evolve --paper`, and rank forms.

use super::{fails_with, freshgp, json, SAMPLE};

/// A small `steady` history, as a text file in `dir`.
fn steady(dir: &std::path::Path) -> String {
    let path = dir.join("steady.tsv").display().to_string();
    freshgp()
        .args([
            "dataset", "synth", "--preset", "steady", "--pages", "600", "--days", "30",
        ])
        .args(["--out", &path])
        .assert()
        .success();
    path
}

#[test]
fn the_oracle_runs_on_latent_probabilities_and_shows_the_headroom() {
    let dir = tempfile::tempdir().unwrap();
    let data = steady(dir.path());
    let text = std::fs::read_to_string(&data).unwrap();
    assert!(
        text.lines().all(|l| l.contains("\tlatent_change=")),
        "every page records q"
    );
    let v = json(&[
        "baselines",
        "--data",
        &data,
        "--metric",
        "wndcg",
        "--resources",
        "0.05",
        "--policies",
        "oracle,w * (1 - exp(-MLE * t)),NAD",
        "--json",
    ]);
    let policies = &v["baselines"];
    let mean = |p: &str| policies[p]["wndcg"]["mean"].as_f64().unwrap();
    let (oracle, mle, nad) = (mean("oracle"), mean("w * (1 - exp(-MLE * t))"), mean("NAD"));
    assert!(oracle > mle.max(nad), "{oracle} {mle} {nad}");
    // Each share: the lead over the best other policy, as a share of the oracle's lead.
    for (name, value, other, other_value) in [
        ("w * (1 - exp(-MLE * t))", mle, "NAD", nad),
        ("NAD", nad, "w * (1 - exp(-MLE * t))", mle),
    ] {
        let c = &policies[name]["captured"]["wndcg"];
        let share = c["share"].as_f64().unwrap();
        let want = (value - other_value) / (oracle - other_value);
        assert!((share - want).abs() < 1e-12, "{name}: {share} vs {want}");
        assert_eq!(c["over"], other);
    }
    assert!(policies["oracle"]["captured"].is_null());
    // Only the weighted metrics, which the oracle is a ceiling on, have shares.
    let keys: Vec<&String> = policies["NAD"]["captured"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["wfreshness", "wndcg"]);
    // The table has the column and says what it is: on WNDCG for a run on NDCG, on
    // WFreshness for one on Freshness.
    let table = |metric: &str, policies: &str| {
        let out = freshgp()
            .args(["baselines", "--data", &data, "--metric", metric])
            .args(["--policies", policies])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    for (metric, headroom) in [
        ("wndcg", "WNDCG"),
        ("ndcg", "WNDCG"),
        ("freshness", "WFreshness"),
    ] {
        let out = table(metric, "oracle,NAD,value");
        let note = format!("share of the {headroom} headroom");
        assert!(out.contains("captured") && out.contains(&note), "{out}");
    }
    // The oracle with one rival: nothing to share, no column.
    assert!(!table("wndcg", "oracle,NAD").contains("captured"));
}

#[test]
fn without_latent_probabilities_the_oracle_is_refused_with_the_reason() {
    // The sample records q; the same history without the attribute does not.
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.tsv");
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let stripped: String = text
        .lines()
        .map(|l| {
            let fields: Vec<&str> = l
                .split('\t')
                .filter(|f| !f.starts_with("latent_change="))
                .collect();
            fields.join("\t") + "\n"
        })
        .collect();
    assert_ne!(stripped, text, "the sample records latent probabilities");
    std::fs::write(&plain, stripped).unwrap();
    let plain = plain.display().to_string();
    for policy in ["oracle", "exp3(arms: [NAD, oracle])"] {
        fails_with(
            &["simulate", "--data", &plain, "--policy", policy],
            "the oracle reads each page's latent change probability, which this history does not record",
        );
    }
    fails_with(
        &["baselines", "--data", &plain, "--policies", "NAD,oracle"],
        "latent_change=",
    );
    let state = dir.path().join("s.state").display().to_string();
    let log = dir.path().join("day1.tsv");
    std::fs::write(&log, "a\t1\t0\n").unwrap();
    fails_with(
        &[
            "schedule",
            "--policy",
            "oracle",
            "--state",
            &state,
            "--observe",
            &log.display().to_string(),
            "--k",
            "1",
        ],
        "only a synthetic history records",
    );
}

#[test]
fn evolve_takes_the_papers_protocol_on_one_flag() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "evolve",
            "--data",
            SAMPLE,
            "--seeds",
            "1",
            "--population",
            "20",
            "--generations",
            "2",
            "--json",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    let search = run(&[]);
    let paper = run(&["--paper"]);
    let sizes = |v: &serde_json::Value| v["best"]["formula"].as_str().unwrap().len();
    assert!(search["best"]["formula"].is_string() && sizes(&paper) > 0);
    // The search starts from the literature's formulas, the paper from random ones only.
    assert!(search["seeds"][0]["best_seed"].is_object());
    assert!(paper["seeds"][0]["best_seed"].is_null());
    fails_with(
        &[
            "evolve",
            "--data",
            SAMPLE,
            "--paper",
            "--gp-config",
            "x.ron",
        ],
        "--paper: it sets the GP settings",
    );
    fails_with(
        &["evolve", "--data", SAMPLE, "--also-metrics", "speed"],
        "--also-metrics",
    );
}

#[test]
fn formulas_print_as_their_rank_form() {
    let out = freshgp()
        .args([
            "formula",
            "print",
            "--style",
            "rank",
            "exp(2 * (t * (1 - exp(-NAD * n))) + 3)",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(out).unwrap(), "t * (1 - exp(-NAD * n))\n");
}
