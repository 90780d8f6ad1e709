//! Learned models in the simulation (docs/src/reference/policies.md#learned-models):
//! `model:FILE` and formulas over `P`, fast against reference, as text and in binary, and
//! the errors a user meets.

use super::*;
use crate::data::text;
use crate::formula::Grammar;
use crate::model::{Feature, FeatureSet, Model};
use crate::policy::*;
use std::path::{Path, PathBuf};

/// A logistic model over `features` written to `dir`; its weights are chosen so that
/// every feature matters.
fn model_file(dir: &Path, name: &str, features: &[Feature]) -> PathBuf {
    let n = features.len();
    let model = Model::Logistic {
        features: FeatureSet::new(features.to_vec()),
        mean: vec![0.1; n],
        scale: vec![0.5; n],
        weights: (0..n).map(|i| [1.5, -0.7, 2.0, -0.2, 0.9][i % 5]).collect(),
        intercept: -0.3,
        alpha: 1.0,
    };
    let path = dir.join(name);
    std::fs::write(&path, model.to_json()).unwrap();
    path
}

fn page_features() -> Vec<Feature> {
    vec![
        Feature::Frequency(1),
        Feature::Frequency(7),
        Feature::Frequency(30),
        Feature::SinceChange,
        Feature::Group("host".into()),
    ]
}

fn parse(text: &str) -> Policy {
    Policy::parse(text, &Grammar::predictive()).unwrap()
}

fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// A random history of `pages` pages over `cycles` cycles on a few hosts.
fn history(state: &mut u64, pages: usize, cycles: usize) -> crate::data::Dataset {
    let mut lines = String::new();
    for p in 0..pages {
        let rate = [0, 5, 25, 70][lcg(state) as usize % 4];
        let bits: String = (0..cycles)
            .map(|_| if lcg(state) % 100 < rate { '1' } else { '0' })
            .collect();
        lines.push_str(&format!("{bits}\tp{p}\th{}\n", lcg(state) % 4));
    }
    text::read(lines.as_bytes(), "<test>").unwrap()
}

#[test]
fn model_policies_run_alike_in_both_simulators() {
    let dir = tempfile::tempdir().unwrap();
    let m = model_file(dir.path(), "m.json", &page_features());
    let m = m.display();
    let texts = [
        format!("model:{m}"),
        format!("P * t [model {m}]"),
        format!("1 - pow(1 - P, t) [model {m}]"),
        format!("P + NAD * w [model {m}]"),
        format!("exp3(arms: [NAD, model(\"{m}\"), formula(\"P * t [model {m}]\")], gamma: 0.2)"),
    ];
    let mut state = 11u64;
    for case in 0..12u64 {
        // Periods longer than 30 cycles, so the 30-cycle window slides.
        let cycles = 20 + lcg(&mut state) as usize % 30;
        let pages = 3 + lcg(&mut state) as usize % 80;
        let d = history(&mut state, pages, cycles);
        let period = Period::whole(&d).unwrap();
        let cap = [None, Some(1), Some(3)][case as usize % 3];
        let config = SimConfig::new(0.1 + (case % 4) as f64 * 0.1, 2)
            .unwrap()
            .with_seed(case)
            .with_host_cap(cap)
            .unwrap();
        if config.check(&period).is_err() {
            continue;
        }
        let mut sim = Simulator::new(config);
        let prepared = Prepared::new(&period, config).unwrap();
        for text in &texts {
            let policy = parse(text);
            let fast = sim.run(&period, &policy).unwrap();
            assert_eq!(fast, sim.run_reference(&period, &policy).unwrap(), "{text}");
            assert_eq!(
                fast,
                sim.run_prepared(&period, &policy, &prepared),
                "{text}"
            );
        }
        // The model as a policy ranks as the formula `P` over it, bit for bit.
        let (a, b) = (parse(&texts[0]), parse(&format!("P + 0 [model {m}]")));
        assert_eq!(
            sim.run(&period, &a).unwrap().cycles,
            sim.run(&period, &b).unwrap().cycles
        );
    }
}

/// A model over `group:category` reads the run's group rate when the data is grouped by
/// the category: increasing in it alone, it ranks as the formula `GR`, in both
/// simulators, alone and inside a formula and a bandit.
#[test]
fn a_group_model_reads_the_rate_of_the_datas_grouping() {
    let dir = tempfile::tempdir().unwrap();
    let m = model_file(dir.path(), "g.json", &[Feature::Group("category".into())]);
    let both = model_file(
        dir.path(),
        "b.json",
        &[
            Feature::Frequency(7),
            Feature::Group("category".into()),
            Feature::Group("host".into()),
        ],
    );
    let mut state = 17u64;
    for case in 0..6u64 {
        let mut d = history(&mut state, 40 + case as usize * 9, 25);
        let mut lines = String::new();
        for p in 0..d.pages() {
            let bits: String = (1..=d.cycles())
                .map(|c| if d.changed(p, c) { '1' } else { '0' })
                .collect();
            let host = d
                .host(p)
                .map(|h| d.host_names()[h as usize].clone())
                .unwrap_or_default();
            let category =
                ["", "\tcategory=a", "\tcategory=b", "\tcategory=c"][lcg(&mut state) as usize % 4];
            lines.push_str(&format!("{bits}\tp{p}\t{host}{category}\n"));
        }
        d = text::read(lines.as_bytes(), "<test>").unwrap();
        d.group_by(Some("category")).unwrap();
        let period = Period::whole(&d).unwrap();
        let config = SimConfig::new(0.15, 2).unwrap().with_seed(case);
        let mut sim = Simulator::new(config);
        let model = sim
            .run(&period, &parse(&format!("model:{}", m.display())))
            .unwrap();
        assert_eq!(
            model.cycles,
            sim.run(&period, &parse("GR")).unwrap().cycles,
            "case {case}"
        );
        for text in [
            format!("model:{}", both.display()),
            format!("P * t [model {}]", both.display()),
            format!(
                "exp3(arms: [NAD, model(\"{}\")], gamma: 0.2)",
                both.display()
            ),
        ] {
            let policy = parse(&text);
            let fast = sim.run(&period, &policy).unwrap();
            assert_eq!(fast, sim.run_reference(&period, &policy).unwrap(), "{text}");
        }
    }
}

/// A learned `since_change` with its sign (recent changes first) is the formula `0 - tc`.
#[test]
fn a_single_feature_model_is_its_formula() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("since.json");
    std::fs::write(&path, Model::single(Feature::SinceChange, -1.0).to_json()).unwrap();
    let mut state = 5u64;
    let d = history(&mut state, 60, 40);
    let period = Period::whole(&d).unwrap();
    let mut sim = Simulator::new(SimConfig::new(0.2, 2).unwrap());
    let model = sim
        .run(&period, &parse(&format!("model:{}", path.display())))
        .unwrap();
    let formula = sim.run(&period, &parse("0 - tc")).unwrap();
    assert_eq!(model.cycles, formula.cycles);
}

#[test]
fn model_policies_round_trip_as_text_ron_and_binary() {
    let dir = tempfile::tempdir().unwrap();
    let m = model_file(dir.path(), "m.json", &page_features());
    let m = m.display();
    for text in [
        format!("model:{m}"),
        format!("P * t [model {m}]"),
        format!("P * t [model {m}] [Reference closure]"),
        format!("exp3(arms: [NAD, model(\"{m}\")], gamma: 0.2)"),
    ] {
        let policy = parse(&text);
        assert_eq!(parse(&policy.to_string()), policy, "{text}");
        let ron: Policy = ron::from_str(&policy.ron()).unwrap();
        assert_eq!(ron, policy, "{}", policy.ron());
        let json: Policy = serde_json::from_str(&serde_json::to_string(&policy).unwrap()).unwrap();
        assert_eq!(json, policy);
        // Binary (the scheduler's state) carries the model itself: the file may go.
        let bytes = bincode::serialize(&policy).unwrap();
        let back: Policy = bincode::deserialize(&bytes).unwrap();
        assert_eq!(back, policy);
        assert_eq!(
            back.learned().map(|l| l.text().len()),
            policy.learned().map(|l| l.text().len())
        );
    }
    // Another model under the same path is another policy.
    let before = parse(&format!("model:{m}"));
    model_file(dir.path(), "m.json", &page_features()[..2]);
    assert_ne!(parse(&format!("model:{m}")), before);
}

#[test]
fn what_cannot_run_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let groups = model_file(dir.path(), "g.json", &[Feature::Group("category".into())]);
    let page = model_file(dir.path(), "p.json", &page_features());
    let error = |text: &str| {
        Policy::parse(text, &Grammar::predictive())
            .unwrap_err()
            .to_string()
    };
    assert!(error("P * t").contains("reads P, a learned model's prediction"));
    assert!(error(&format!("t [model {}]", page.display())).contains("does not read P"));
    let two = model_file(
        dir.path(),
        "two.json",
        &[
            Feature::Group("category".into()),
            Feature::Group("brand".into()),
        ],
    );
    assert!(error(&format!("model:{}", two.display())).contains("two attributes"));
    // A model of one attribute's group rate parses, and runs on data grouped by it only.
    let policy = parse(&format!("model:{}", groups.display()));
    let mut state = 3u64;
    let d = history(&mut state, 30, 12);
    let mut sim = Simulator::new(SimConfig::new(0.2, 2).unwrap());
    let e = sim.run(&Period::whole(&d).unwrap(), &policy).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "reads group:category, but the data is grouped by host: it runs on data whose pages have the attribute `category`, grouped by it (--group category; a study's `group: \"category\"`)"
        ),
        "{e}"
    );
    assert!(error("model:/no/such/file.json").contains("cannot read model file /no/such/file.json"));
    assert!(error("model:").contains("needs the path of a model file"));
    let not_a_model = dir.path().join("x.json");
    std::fs::write(&not_a_model, "{\"format\": \"other\"}").unwrap();
    assert!(error(&format!("model:{}", not_a_model.display())).contains("not a freshgp model file"));
    // Grammars without P refuse it as any terminal they lack.
    let e = Policy::parse(
        &format!("P [model {}]", page.display()),
        &Grammar::extended(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains('P'), "{e}");
}

/// A model named relative to a study file is named by its absolute path, so the study's
/// stored copy (read from the results directory) finds it too.
#[test]
fn a_study_relative_model_reads_back_from_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("studies")).unwrap();
    model_file(dir.path(), "m.json", &page_features());
    let read = |from: &Path, text: &str| {
        crate::policy::with_policy_files_in(from, || ron::from_str::<Policy>(text))
    };
    let policy = read(&dir.path().join("studies"), "model(\"../m.json\")").unwrap();
    let path = policy.learned().unwrap().path().to_string();
    assert!(Path::new(&path).is_absolute(), "{path}");
    let elsewhere = read(dir.path(), &format!("model({path:?})")).unwrap();
    assert_eq!(elsewhere, policy);
    // Outside a study, the path stays as written.
    let m = dir.path().join("m.json");
    assert_eq!(
        parse(&format!("model:{}", m.display()))
            .learned()
            .unwrap()
            .path(),
        m.to_str().unwrap()
    );
}
