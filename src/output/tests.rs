//! The answers' schemas: the keys each one has (so a dropped or renamed field fails here
//! before it reaches a user), the order-free bytes, and the figures they carry.

use super::*;
use crate::data::split::Horizon;
use crate::data::synth::{generate, SynthParams};
use crate::data::Dataset;
use crate::experiment::{baselines, sweep};
use crate::formula::Grammar;
use crate::metric::Metric;
use crate::policy::Policy;
use crate::sim::{Period, SimConfig, Simulator};
use serde_json::Value;

fn dataset() -> Dataset {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 400;
    params.days = 24;
    generate(&params, 7).unwrap()
}

fn policy(text: &str) -> Policy {
    Policy::parse(text, &Grammar::every()).unwrap()
}

/// The keys of the object `value`, sorted.
fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn keys_are_written_sorted_whatever_the_field_order() {
    #[derive(serde::Serialize)]
    struct Backwards {
        zebra: u8,
        apple: (u8, u8),
        mango: Inner,
    }
    #[derive(serde::Serialize)]
    struct Inner {
        y: u8,
        x: u8,
    }
    let v = Backwards {
        zebra: 1,
        apple: (2, 3),
        mango: Inner { y: 4, x: 5 },
    };
    assert_eq!(
        compact(&v).unwrap(),
        r#"{"apple":[2,3],"mango":{"x":5,"y":4},"zebra":1}"#
    );
    let text = pretty(&v).unwrap();
    assert!(text.find("apple").unwrap() < text.find("zebra").unwrap());
    assert!(text.find("\"x\"").unwrap() < text.find("\"y\"").unwrap());
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        serde_json::from_str::<Value>(&compact(&v).unwrap()).unwrap()
    );
}

#[test]
fn a_run_carries_its_settings_cycles_and_means() {
    let d = dataset();
    let period = Period::whole(&d).unwrap();
    let config = SimConfig::new(0.1, 2)
        .unwrap()
        .with_host_cap(Some(3))
        .unwrap();
    let rule = policy("NAD");
    let outcome = Simulator::new(config).run(&period, &rule).unwrap();
    let run = SimulateRun::new(&rule, &period, config, outcome.clone());
    let v = serde_json::to_value(&run).unwrap();
    assert_eq!(
        keys(&v),
        [
            "cycles",
            "host_cap",
            "k",
            "mean",
            "pages",
            "period_cycles",
            "policy",
            "scorer"
        ]
    );
    assert_eq!(run.k, 40);
    assert_eq!(run.host_cap, Some(3));
    assert_eq!(run.cycles, outcome.cycles);
    assert_eq!(run.mean.len(), Metric::ALL.len());
    for m in Metric::ALL {
        assert_eq!(run.mean[m.name()], outcome.mean(m), "{m:?}");
    }
    // The policy's text parses back to the policy.
    assert_eq!(policy(&run.policy), rule);
}

#[test]
fn a_bandits_run_carries_its_draws() {
    let d = dataset();
    let period = Period::whole(&d).unwrap();
    let config = SimConfig::new(0.1, 2).unwrap().with_metric(Metric::WNdcg);
    let rule = policy("kab3");
    let outcome = Simulator::new(config).run(&period, &rule).unwrap();
    let scored = outcome.cycles.len();
    let run = SimulateRun::new(&rule, &period, config, outcome);
    let bandit = run.bandit.as_ref().expect("a bandit's draws");
    assert_eq!(bandit.arms.len(), 3);
    assert_eq!(bandit.shares.len(), 3);
    assert!((bandit.shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(bandit.choices.len(), scored);
    let v = serde_json::to_value(&run).unwrap();
    assert_eq!(
        keys(&v["bandit"]),
        ["arms", "choices", "gamma", "reward", "shares"]
    );
}

#[test]
fn a_sweep_keeps_every_budgets_runs_in_order() {
    let d = dataset();
    let period = Period::whole(&d).unwrap();
    let config = SimConfig::new(0.1, 2).unwrap();
    let rule = policy("lambda");
    let seeds = sweep::run_seeds(Some(3), config.seed());
    let levels = [0.2, 0.05];
    let table = sweep::table(
        std::slice::from_ref(&period),
        config,
        std::slice::from_ref(&rule),
        &levels,
        &seeds,
        &mut |_, _| {},
    )
    .unwrap();
    let out = SimulateSweep::new(&rule, &table, &period, config, &seeds);
    let v = serde_json::to_value(&out).unwrap();
    assert_eq!(
        keys(&v),
        [
            "decision",
            "levels",
            "pages",
            "period_cycles",
            "policy",
            "scorer",
            "seeds"
        ]
    );
    assert_eq!(
        out.levels.iter().map(|l| l.resources).collect::<Vec<_>>(),
        levels
    );
    for (level, row) in out.levels.iter().zip(&table.runs) {
        assert_eq!(level.runs, row[0]);
        let s = level.metrics["wndcg"];
        assert!(s.low <= s.median && s.median <= s.high);
        assert_eq!(s.median, sweep::summary(&row[0], Metric::WNdcg).median);
    }
    // A larger budget keeps more pages fresh.
    assert!(out.levels[0].metrics["freshness"].median > out.levels[1].metrics["freshness"].median);
}

#[test]
fn baselines_keep_the_order_given_and_every_rotation() {
    let d = dataset();
    let config = SimConfig::new(0.1, 2).unwrap();
    let rules = vec![policy("value"), policy("NAD"), policy("kab2")];
    let results = baselines::run_over(&d, config, &rules, Horizon::Temporal).unwrap();
    let out = Baselines::new(&results, d.pages(), config, Horizon::Temporal, None);
    assert_eq!(out.policies, ["value", "NAD", "kab2"]);
    let v = serde_json::to_value(&out).unwrap();
    assert_eq!(
        keys(&v),
        [
            "baselines",
            "cycles",
            "host_cap",
            "metric",
            "pages",
            "policies",
            "resources",
            "test_horizon",
            "ties",
            "warmup"
        ]
    );
    assert_eq!(
        keys(&v["baselines"]["NAD"]),
        [
            "captured",
            "changerate",
            "freshness",
            "ndcg",
            "policy",
            "random",
            "rotations",
            "wfreshness",
            "wndcg"
        ]
    );
    assert_eq!(keys(&v["baselines"]["NAD"]["ndcg"]), ["ci95", "mean", "n"]);
    for (r, label) in results.iter().zip(&out.policies) {
        let entry = &out.baselines[label];
        assert_eq!(entry.rotations, r.cycles);
        assert_eq!(entry.metrics.of(Metric::Ndcg), r.metrics.of(Metric::Ndcg));
        // No oracle listed: nothing is captured.
        assert!(entry.captured.is_none());
        assert_eq!(entry.arms.is_some(), label == "kab2");
    }
    assert_eq!(
        out.cycles,
        results[0].cycles.iter().map(Vec::len).sum::<usize>()
    );
}

#[test]
fn a_baseline_sweep_gives_p_values_against_the_reference_only() {
    let d = dataset();
    let config = SimConfig::new(0.1, 2).unwrap();
    let rules = vec![policy("NAD"), policy("uniform")];
    let periods = baselines::test_periods_over(&d, Horizon::Temporal).unwrap();
    let seeds = sweep::run_seeds(Some(6), config.seed());
    let table = sweep::table(&periods, config, &rules, &[0.1], &seeds, &mut |_, _| {}).unwrap();
    let out = BaselineSweep::new(&table, d.pages(), config, &seeds, Some(1), &[]);
    let v = serde_json::to_value(&out).unwrap();
    assert_eq!(
        keys(&v),
        [
            "decision",
            "levels",
            "metric",
            "pages",
            "reference",
            "runs",
            "savings"
        ]
    );
    assert_eq!(out.reference.as_deref(), Some("uniform"));
    let level = &out.levels[0];
    assert!(level.policies["uniform"].metrics["ndcg"]
        .wilcoxon_p
        .is_none());
    let p = level.policies["NAD"].metrics["ndcg"].wilcoxon_p.unwrap();
    assert!((0.0..=1.0).contains(&p));
    let cell = serde_json::to_value(level.policies["NAD"].metrics["ndcg"]).unwrap();
    assert_eq!(keys(&cell), ["high", "low", "mean", "median", "wilcoxon_p"]);
}
