//! The `brdc12` preset is calibrated: at full size (417,048 pages × 57 days, seed 1) the
//! seven baselines (docs/src/reference/policies.md#baselines) have test-period means within
//! ±0.03 of the published BRDC'12 figures for ChangeRate and NDCG, in the published order
//! (docs/src/results/gp4c-parity.md#the-synthetic-stand-in-for-brdc12 has both).
//!
//! Generating and simulating the full-size history takes about a second in release but
//! minutes in debug, so the test only runs in optimised builds (`cargo test --release`,
//! which CI uses).

use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::baselines::run;
use freshgp::policy::{Baseline, Policy};
use freshgp::sim::SimConfig;

/// Published means (Rand, Age, NAD, SAD, AAD, GAD, CG), as in
/// docs/src/results/gp4c-parity.md#the-synthetic-stand-in-for-brdc12.
const CHANGERATE: [f64; 7] = [0.1566, 0.1753, 0.7162, 0.5451, 0.6778, 0.6535, 0.6672];
const NDCG: [f64; 7] = [0.1565, 0.1754, 0.7288, 0.5674, 0.6986, 0.6769, 0.6888];
/// The baselines in the table's order (the paper's, as `Baseline::ALL` lists them).
const BASELINES: [Baseline; 7] = Baseline::ALL;
/// The published order, best first, as indices into `BASELINES` (the same for both metrics).
const ORDER: [usize; 7] = [2, 4, 6, 5, 3, 1, 0];
const TOLERANCE: f64 = 0.03;

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "full-size run: minutes in debug, ~1 s in release"
)]
fn brdc12_preset_reproduces_the_published_baselines() {
    let params = SynthParams::preset("brdc12").unwrap();
    assert_eq!((params.pages, params.days), (417_048, 57));
    let data = generate(&params, 1).unwrap();
    let results = run(&data, SimConfig::paper(), &BASELINES.map(Policy::from)).unwrap();
    let cr: Vec<f64> = results.iter().map(|r| r.metrics.changerate.mean).collect();
    let ndcg: Vec<f64> = results.iter().map(|r| r.metrics.ndcg.mean).collect();
    let mut failures = Vec::new();
    for (metric, got, want) in [("ChangeRate", &cr, &CHANGERATE), ("NDCG", &ndcg, &NDCG)] {
        for (i, b) in BASELINES.iter().enumerate() {
            if (got[i] - want[i]).abs() > TOLERANCE {
                failures.push(format!(
                    "{metric} {}: {:.4}, published {:.4}",
                    b.name(),
                    got[i],
                    want[i]
                ));
            }
        }
        for w in ORDER.windows(2) {
            if got[w[0]] <= got[w[1]] {
                failures.push(format!(
                    "{metric}: {} ({:.4}) should beat {} ({:.4})",
                    BASELINES[w[0]].name(),
                    got[w[0]],
                    BASELINES[w[1]].name(),
                    got[w[1]]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
