//! Parity with the authors' implementation (github.com/aecio/gp4c, C++).
//!
//! The figures below are what their `baselines` program printed (6 significant digits)
//! when built here with g++ 12 / libstdc++ and run on the real files in `datasets/real/` (BITS column
//! only): mean over the 17 scored test cycles of the 5 rotations, resources 0.05, warm-up
//! 2. Their ranking breaks ties by libstdc++'s `std::sort` on the previous cycle's order,
//! which `TieBreak::Reference` reproduces; on these small files ties decide much, so this
//! checks terminals, metrics, folds and tie order together. Rand is left out: theirs
//! draws from the C library's unseeded `rand()`.

use freshgp::data::{self, LoadOptions};
use freshgp::experiment::baselines;
use freshgp::policy::{Baseline, Policy};
use freshgp::sim::{SimConfig, TieBreak};
use std::path::PathBuf;

const BASELINES: [Baseline; 6] = [
    Baseline::Age,
    Baseline::Nad,
    Baseline::Sad,
    Baseline::Aad,
    Baseline::Gad,
    Baseline::Cg,
];

/// (file, [ChangeRate of Age NAD SAD AAD GAD CG], [NDCG of the same]).
const THEIRS: [(&str, [f64; 6], [f64; 6]); 4] = [
    (
        "OpenTermsArchive+contrib-versions.57.tsv",
        [0.0588235, 0.114706, 0.114706, 0.114706, 0.114706, 0.114706],
        [0.0588907, 0.175559, 0.17101, 0.173324, 0.172728, 0.174599],
    ),
    (
        "OpenTermsArchive+pga-versions.57.tsv",
        [0.0588235, 0.2, 0.117647, 0.2, 0.2, 0.2],
        [0.0588235, 0.2, 0.117647, 0.2, 0.2, 0.2],
    ),
    (
        "ScoopInstaller+Main.57.tsv",
        [0.141176, 0.20549, 0.0980392, 0.200784, 0.2, 0.199216],
        [0.142681, 0.251471, 0.109512, 0.24632, 0.235824, 0.249261],
    ),
    (
        "endoflife-date+release-data.57.tsv",
        [0.185294, 0.244118, 0.155882, 0.182353, 0.164706, 0.202941],
        [0.190092, 0.256043, 0.168036, 0.1926, 0.175946, 0.21208],
    ),
];

fn real(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/real")
        .join(file)
}

/// Agreement to the 6 significant digits they printed.
fn same_digits(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= 5e-6 * theirs.abs().max(1e-3)
}

/// The bar: within 0.005 for every deterministic baseline. All figures but AAD's
/// also agree to every printed digit. Their AAD adds `h / Σj` term by term where we divide
/// `Σh` once: the two can differ in the last bit, which splits or joins ties between
/// pages whose histories have equal sums (on Scoop, NDCG 0.246277 vs their 0.24632).
fn close(baseline: &Policy, ours: f64, theirs: f64) -> bool {
    if *baseline == Policy::from(Baseline::Aad) {
        (ours - theirs).abs() <= 0.005
    } else {
        same_digits(ours, theirs)
    }
}

#[test]
fn deterministic_baselines_match_the_reference_implementation() {
    let config = SimConfig::paper().with_ties(TieBreak::Reference);
    for (file, change_rate, ndcg) in THEIRS {
        let path = real(file);
        let dataset = data::load(&path, &LoadOptions::default()).unwrap().dataset;
        let results = baselines::run(&dataset, config, &BASELINES.map(Policy::from)).unwrap();
        for (k, r) in results.iter().enumerate() {
            assert_eq!(r.metrics.changerate.n, 85, "5 rotations × 17 cycles");
            assert!(
                close(&r.policy, r.metrics.changerate.mean, change_rate[k]),
                "{file} {}: ChangeRate {} vs theirs {}",
                r.policy,
                r.metrics.changerate.mean,
                change_rate[k]
            );
            assert!(
                close(&r.policy, r.metrics.ndcg.mean, ndcg[k]),
                "{file} {}: NDCG {} vs theirs {}",
                r.policy,
                r.metrics.ndcg.mean,
                ndcg[k]
            );
        }
    }
}

#[test]
fn seeded_ties_stay_within_sampling_noise_of_the_reference_on_large_sets() {
    // With a seeded tie-break, the figures are not the reference's digit for digit, but
    // the rankings differ only inside tied groups: on Scoop (the largest file) NAD, whose
    // score separates most stale pages from the rest, agrees to within 0.02.
    let path = real("ScoopInstaller+Main.57.tsv");
    let dataset = data::load(&path, &LoadOptions::default()).unwrap().dataset;
    let seeded =
        baselines::run(&dataset, SimConfig::paper(), &[Policy::from(Baseline::Nad)]).unwrap();
    assert!(
        (seeded[0].metrics.ndcg.mean - 0.251471).abs() < 0.02,
        "{}",
        seeded[0].metrics.ndcg.mean
    );
}
