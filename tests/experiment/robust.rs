//! The search that holds at every budget (docs/src/reference/gp.md#seeds,
//! #training-budgets, #constant-search): a study seeded with the literature's formulas,
//! trained over several budgets, with the constant search and parsimony, run as a user
//! would; its report; and the errors of its new fields.

use super::{commerce_history, refused, run, run_on_threads, small_evolve, write_study};

const ROBUST: &str = r#"(
    name: "robust",
    dataset: Synthetic(preset: "commerce", pages: 1500, days: 21, seed: 2),
    rotations: [0, 1],
    resources: [0.01, 0.05, 0.2],
    train_resources: [0.05, 0.2],
    runs: 3,
    reference: lambda,
    metric: wndcg,
    seeds: 1,
    gp: (population: 12, generations: 2, keep_best: 6, constants: (individuals: 2, evaluations: 8)),
    configurations: [
        (name: "Ext-WNDCG", grammar: "extended", fitness: wndcg),
    ],
    baselines: [lambda, value, formula("w * (1 - exp(-MLE * t))")],
)
"#;

#[test]
fn a_robust_study_reports_seeds_fronts_and_every_rival() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), ROBUST);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in [
        "evolved over the training budgets 5%, 20%, each relative to the fittest seed formula",
        "the mean over the training budgets of the fitness relative to the fittest seed",
        "front (size, validation)",
        "the fittest seed formula, train ",
        "## Against each rival",
        "### Ext-WNDCG/best: WFreshness",
        "| w * (1 - exp(-MLE * t)) |",
    ] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}:\n{summary}"
        );
    }
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(
        results["study"]["train_resources"],
        serde_json::json!([0.05, 0.2])
    );
    let chosen = &results["methods"][0]["chosen"][0];
    let seed_train = chosen["best_seed"]["train"].as_f64().unwrap();
    // Relative to the fittest seed at each budget, the fittest seed scores 1 exactly when
    // it is the fittest at every budget, and never more.
    assert!(seed_train > 0.0 && seed_train <= 1.0, "{seed_train}");
    assert!(!chosen["front"].as_array().unwrap().is_empty());
    assert!(std::fs::read_to_string(out.join("plots/front-Ext-WNDCG.svg")).is_ok());
    let again = tmp.path().join("again");
    run_on_threads(&study, &again, "1");
    for name in ["summary.md", "results.json", "plots/front-Ext-WNDCG.svg"] {
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(again.join(name)).unwrap(),
            "{name} depends on the thread count"
        );
    }
}

#[test]
fn bad_budgets_seeds_and_constant_searches_name_their_field() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            ROBUST.replace("train_resources: [0.05, 0.2]", "train_resources: []"),
            "tiny.ron:6: train_resources: list at least one budget",
        ),
        (
            ROBUST.replace("train_resources: [0.05, 0.2]", "train_resources: [0.05, 1.5]"),
            "tiny.ron:6: train_resources: 1.5: distinct fractions in (0, 1]",
        ),
        (
            ROBUST.replace("evaluations: 8", "evaluations: 0"),
            "tiny.ron:11: gp.constants.evaluations: constants.evaluations = 0: at least 1 when constants.individuals > 0",
        ),
        (
            ROBUST.replace("keep_best: 6,", "keep_best: 6, seed_formulas: [\"GR * t\"],"),
            "configurations[0].gp.seed_formulas: seed formula `GR * t` reads GR, which grammar `extended` lacks",
        ),
    ];
    for (text, expected) in cases {
        let stderr = refused(tmp.path(), &text);
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn evolve_starts_from_its_seeds_and_refuses_bad_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let data = commerce_history(tmp.path());
    let evolve = |extra: &[&str]| {
        let mut cmd = small_evolve(&data);
        cmd.args(extra);
        cmd
    };
    let out = evolve(&["--seed-formula", "w * t", "--no-literature-seeds", "--json"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let seed = &json["seeds"][0];
    assert_eq!(seed["best_seed"]["formula"], "w * t");
    let best = seed["choices"][0]["train"].as_f64().unwrap();
    assert!(best >= seed["best_seed"]["train"].as_f64().unwrap());
    // Over several budgets, fitness is relative to the fittest seed at each: a lone seed
    // scores 1 exactly.
    let out = evolve(&[
        "--seed-formula",
        "w * t",
        "--no-literature-seeds",
        "--train-resources",
        "0.05,0.2",
        "--json",
    ])
    .assert()
    .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["seeds"][0]["best_seed"]["train"], 1.0);
    assert_eq!(json["seeds"][0]["best_seed"]["validation"], 1.0);
    let text = evolve(&["--train-resources", "0.05,0.2"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(text.contains("mean over budgets 0.05, 0.2"), "{text}");
    assert!(text.contains("from seed"), "{text}");
    for (flags, expected) in [
        (
            &["--train-resources", "0.05,1.5"][..],
            "--train-resources 1.5: the budgets are distinct fractions in (0, 1]",
        ),
        (
            &["--train-resources", "0.05,0.05"][..],
            "--train-resources 0.05: the budgets are distinct fractions in (0, 1]",
        ),
        (
            &["--seed-formula", "GR * t"][..],
            "--seed-formula `GR * t` (grammar `extended`)",
        ),
    ] {
        let out = evolve(flags).assert().failure();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
    }
}
