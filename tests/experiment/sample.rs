//! Searching on a sample of the training pages
//! (docs/src/reference/gp.md#searching-on-a-sample-of-the-pages), run as a user would:
//! `evolve --train-sample` judges its choices on every training page, a study's
//! configuration takes `train_sample`, the results do not depend on the thread count,
//! and bad shares are refused naming the flag or field.

use super::{commerce_history, freshgp, refused, run, run_on_threads, small_evolve, write_study};
use std::path::Path;

const SAMPLED: &str = r#"(
    name: "sampled",
    dataset: Synthetic(preset: "commerce", pages: 1500, days: 21, seed: 2),
    rotations: [0],
    resources: 0.05,
    metric: wndcg,
    seeds: 1,
    gp: (population: 12, generations: 2, keep_best: 6, constants: (individuals: 0)),
    configurations: [
        (name: "Sampled", grammar: "extended", fitness: wndcg, train_sample: 0.3),
        (name: "Full", grammar: "extended", fitness: wndcg),
    ],
    baselines: [lambda],
)
"#;

/// `freshgp evolve` of a small search on `data`, on WNDCG alone, with `extra` flags.
fn evolve(data: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    small_evolve(data)
        .args(["--also-metrics", "none"])
        .args(extra)
        .assert()
}

/// The mean WNDCG of `formula` on rotation 0's training set, as `simulate` gives it.
fn training_wndcg(data: &Path, formula: &str) -> f64 {
    let out = freshgp()
        .arg("simulate")
        .arg("--data")
        .arg(data)
        .args(["--period", "train", "--grammar", "extended", "--json"])
        .args(["--formula", formula])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    json["mean"]["wndcg"].as_f64().unwrap()
}

#[test]
fn evolve_searches_on_the_sample_and_judges_on_every_page() {
    let tmp = tempfile::tempdir().unwrap();
    let data = commerce_history(tmp.path());
    let out = evolve(&data, &["--train-sample", "0.3", "--json"]).success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["train_sample"], 0.3);
    let (sample, train) = (
        json["sample_pages"].as_u64().unwrap(),
        json["set_sizes"][0].as_u64().unwrap(),
    );
    // At least 30% of the 900 training pages, and less than the whole.
    assert!(sample >= 270 && sample < train, "{sample} of {train}");
    // One budget and one metric: a training figure is the formula's mean WNDCG, which
    // the choices and the front report on every training page, not on the sample.
    let seed = &json["seeds"][0];
    let (choices, front) = (
        seed["choices"].as_array().unwrap(),
        seed["front"].as_array().unwrap(),
    );
    assert!(!front.is_empty());
    for choice in choices.iter().chain(front) {
        let formula = choice["formula"].as_str().unwrap();
        let reported = choice["train"].as_f64().unwrap();
        let whole = training_wndcg(&data, formula);
        assert!(
            (reported - whole).abs() <= 1e-12,
            "{formula}: train {reported}, on every training page {whole}"
        );
    }
    // The generations' figures are the sample's: the last generation's best differs from
    // its figure on every page.
    let last = &seed["generations"][2];
    let whole = training_wndcg(&data, last["best_formula"].as_str().unwrap());
    let sampled = last["best"].as_f64().unwrap();
    assert!((sampled - whole).abs() > 1e-9, "{sampled} {whole}");
    let text = evolve(&data, &["--train-sample", "0.3"]).success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(
        text.contains(&format!("{train} ({sample} searched on) training")),
        "{text}"
    );
    let whole = evolve(&data, &["--json"]).success();
    let whole: serde_json::Value = serde_json::from_slice(&whole.get_output().stdout).unwrap();
    assert!(whole.get("train_sample").is_none() && whole.get("sample_pages").is_none());
}

#[test]
fn bad_shares_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let data = commerce_history(tmp.path());
    for (share, expected) in [
        (
            "1",
            "page sample 1: expected a share of the pages in (0, 1)",
        ),
        (
            "0",
            "page sample 0: expected a share of the pages in (0, 1)",
        ),
        ("half", "`half` is not a number"),
        (
            "-0.1",
            "page sample -0.1: expected a share of the pages in (0, 1)",
        ),
        (
            "nan",
            "page sample NaN: expected a share of the pages in (0, 1)",
        ),
        (
            "inf",
            "page sample inf: expected a share of the pages in (0, 1)",
        ),
    ] {
        let out = evolve(&data, &["--train-sample", share]).failure();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(expected), "{share}: {stderr}");
        assert!(stderr.contains("--train-sample"), "{share}: {stderr}");
    }
    // 100 pages without hosts: 60 train, a twentieth of them is 3 pages, and a budget of
    // 10% visits 6 of the training set but none of the sample.
    let lone = tmp.path().join("lone.tsv");
    let text: String = (0..100u32)
        .map(|p| {
            let bits: String = (0..21u32)
                .map(|d| if (p * 7 + d * 3) % 5 == 0 { '1' } else { '0' })
                .collect();
            format!("{bits}\tp{p}\n")
        })
        .collect();
    std::fs::write(&lone, text).unwrap();
    let out = evolve(&lone, &["--train-sample", "0.05", "--resources", "0.1"]).failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(
            "cannot simulate the training sample (3 pages, share 0.05; a larger share may fit)"
        ),
        "{stderr}"
    );
    evolve(&lone, &["--train-sample", "0.5", "--resources", "0.1"]).success();
    let stderr = refused(
        tmp.path(),
        &SAMPLED.replace("train_sample: 0.3", "train_sample: 1.5"),
    );
    assert!(
        stderr.contains("page sample 1.5: expected a share of the pages in (0, 1)"),
        "{stderr}"
    );
}

#[test]
fn a_sampled_configuration_runs_alike_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), SAMPLED);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    run(&study, &one, &[]);
    run_on_threads(&study, &two, "1");
    for name in ["summary.md", "results.json"] {
        assert_eq!(
            std::fs::read(one.join(name)).unwrap(),
            std::fs::read(two.join(name)).unwrap(),
            "{name} depends on the thread count"
        );
    }
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(
        summary.contains("searched on 30% of the training pages"),
        "{summary}"
    );
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["study"]["configurations"][0]["train_sample"], 0.3);
    assert!(results["study"]["configurations"][1]
        .get("train_sample")
        .is_none());
    // The unit files record the sample's pages (at least 30% of the training pages).
    let unit = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(one.join("units").join(name)).unwrap()).unwrap()
    };
    let sampled = unit("Sampled-r0-s1.json");
    let (pages, train) = (
        sampled["sample_pages"].as_u64().unwrap(),
        sampled["set_sizes"][0].as_u64().unwrap(),
    );
    assert!(
        pages * 10 >= train * 3 && pages < train,
        "{pages} of {train}"
    );
    assert!(unit("Full-r0-s1.json").get("sample_pages").is_none());
    // The same search from the same seeds, on the sample and on every page: the first
    // generation's mean fitness differs.
    let generations = std::fs::read_to_string(one.join("generations.csv")).unwrap();
    let first_mean = |configuration: &str| -> f64 {
        let row = generations
            .lines()
            .find(|l| l.starts_with(&format!("{configuration},wndcg,0,1,0,")))
            .unwrap_or_else(|| panic!("no first generation of {configuration}:\n{generations}"));
        row.split(',').nth(6).unwrap().parse().unwrap()
    };
    assert!(
        (first_mean("Sampled") - first_mean("Full")).abs() > 1e-9,
        "{generations}"
    );
}
