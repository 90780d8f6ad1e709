//! Tests of the generator: presets, determinism, calibration, promotions, weights and
//! metadata.

use super::generate::*;
use super::params::*;
use super::weights::*;
use crate::data::stats::Stats;
use crate::data::Dataset;

fn small(pages: usize, days: usize) -> SynthParams {
    let mut p = SynthParams::preset("brdc12").unwrap();
    p.pages = pages;
    p.days = days;
    p
}

#[test]
fn deterministic_and_thread_independent() {
    let p = small(3000, 57);
    let a = generate(&p, 3).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let b = pool.install(|| generate(&p, 3).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, generate(&p, 4).unwrap());
}

#[test]
fn realistic_shape() {
    let p = small(40_000, 57);
    let d = generate(&p, 1).unwrap();
    let s = Stats::of(&d);
    let per_host = s.pages_per_host.unwrap();
    assert!(
        (35.0..90.0).contains(&per_host),
        "pages per host {per_host}"
    );
    assert!(
        s.largest_host.unwrap() > 500,
        "heavy tail: largest {:?}",
        s.largest_host
    );
    assert!(
        s.never_changed_fraction > 0.4,
        "{}",
        s.never_changed_fraction
    );
    assert!(
        s.half_or_more_fraction > 0.02,
        "{}",
        s.half_or_more_fraction
    );
    // weekends (days 5, 6 with start_weekday 0) change less than weekdays
    let wk = s.weekday_change_fraction;
    assert!(wk[5] < wk[1] && wk[6] < wk[2], "{wk:?}");
    // clustering: a change makes another one much likelier
    assert!(
        s.p_change_after_change > 5.0 * s.p_change_after_no_change,
        "{s}"
    );
}

#[test]
fn persistence_makes_daily_runs_of_ordinary_pages_only() {
    let mut p = small(2000, 40);
    p.rates.static_fraction = 0.0;
    p.rates.frequent = vec![FrequentClass {
        fraction: 0.5,
        min: 0.3,
        max: 0.3,
    }];
    p.rates.persistence = 1.0;
    // ordinary pages: λ = 0.1 per day, so nearly all change within 40 days
    p.rates.log10_mean = -1.0;
    p.rates.log10_sigma = 0.0;
    p.hosts.activity_sigma = 0.0;
    p.bursts.start = 0.0;
    p.dormancy.start = 0.0;
    p.host_events.rate = 0.0;
    let d = generate(&p, 5).unwrap();
    let rows: Vec<Vec<bool>> = (0..d.pages())
        .map(|i| (1..=d.cycles()).map(|c| d.changed(i, c)).collect())
        .collect();
    // an ordinary page that changed once changes every day after: its row is 0..01..1
    let runs = rows
        .iter()
        .filter(|r| r.iter().any(|&b| b) && r.windows(2).all(|w| !w[0] || w[1]))
        .count();
    // frequent pages (p = 0.3, memoryless) break runs: about half the pages are ordinary
    assert!(
        (800..1200).contains(&runs),
        "{runs} pages in one unbroken run"
    );
    let mut none = p.clone();
    none.rates.persistence = 0.0;
    let d0 = generate(&none, 5).unwrap();
    let after = |d: &Dataset| -> f64 {
        let (mut both, mut first) = (0, 0);
        for i in 0..d.pages() {
            for c in 2..=d.cycles() {
                if d.changed(i, c - 1) {
                    first += 1;
                    both += usize::from(d.changed(i, c));
                }
            }
        }
        both as f64 / first as f64
    };
    assert!(after(&d) > after(&d0) + 0.2, "{} {}", after(&d), after(&d0));
    let mut bad = small(10, 10);
    bad.rates.persistence = 1.5;
    assert!(bad.validate("x").is_err());
}

/// A fingerprint of a history's change bits.
fn bits_fingerprint(d: &Dataset) -> u64 {
    let (bits, unknown) = d.raw_words();
    bits.iter()
        .chain(unknown)
        .fold(d.pages() as u64, |h, &w| crate::hash::mix64(h ^ w))
}

#[test]
fn brdc12_bits_are_pinned_and_weights_leave_them_alone() {
    // The change bits of brdc12 for this seed, as before weights and promotions were
    // added (the calibration in tests/calibration.rs rests on them): weights and
    // promotions draw from their own streams.
    let p = small(777, 130);
    let d = generate(&p, 9).unwrap();
    assert_eq!(
        bits_fingerprint(&d),
        3_864_350_411_155_841_030,
        "brdc12's change bits moved"
    );
    assert!(d.has_weights());
    let mut none = p.clone();
    none.weights = None;
    let u = generate(&none, 9).unwrap();
    assert!(!u.has_weights());
    assert_eq!(u.raw_words(), d.raw_words());
    assert_eq!(u.id_arena(), d.id_arena());
    // an older preset file, without the new sections, loads: no weights, same bits
    let old: String = none
        .to_ron()
        .lines()
        .filter(|l| !l.contains("weights: None") && !l.contains("promotions: None"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        !old.contains("weights") && !old.contains("promotions"),
        "{old}"
    );
    let back = SynthParams::from_ron(&old, "old.ron").unwrap();
    assert_eq!(back, none);
}

/// Pearson correlation.
fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    sxy / (sxx * syy).sqrt()
}

#[test]
fn weights_are_heavy_tailed_host_driven_and_rate_correlated() {
    let mut p = small(20_000, 57);
    let d = generate(&p, 2).unwrap();
    let w: Vec<f64> = (0..d.pages()).map(|i| d.weight(i)).collect();
    assert!(w.iter().all(|x| x.is_finite() && *x >= 0.0));
    // rounded to 4 significant digits: short in text
    assert!(w.iter().all(|x| format!("{x:e}").len() <= 9), "{w:?}");
    let ws = crate::data::stats::WeightStats::of(&w).unwrap();
    assert!(ws.top1_share > 0.3, "{ws:?}");
    assert!((0.5..2.0).contains(&ws.mean), "{ws:?}");
    // log weight against the page's number of changes: positive with rate_correlation
    let changes: Vec<f64> = (0..d.pages()).map(|i| d.changes_of(i) as f64).collect();
    let logw = |d: &Dataset| -> Vec<f64> { (0..d.pages()).map(|i| d.weight(i).ln()).collect() };
    let with = correlation(&logw(&d), &changes);
    p.weights.as_mut().unwrap().rate_correlation = 0.0;
    let d0 = generate(&p, 2).unwrap();
    let without = correlation(&logw(&d0), &changes);
    assert!(with > 0.15 && without.abs() < 0.05, "{with} {without}");
    // the host factor: a share of the variance of log weight lies between hosts
    let between = |d: &Dataset| {
        let l = logw(d);
        let mut sum = vec![(0.0, 0usize); d.host_names().len()];
        for (i, x) in l.iter().enumerate() {
            let h = d.host(i).unwrap() as usize;
            sum[h].0 += x;
            sum[h].1 += 1;
        }
        let means: Vec<f64> = (0..l.len())
            .map(|i| {
                let (s, n) = sum[d.host(i).unwrap() as usize];
                s / n as f64
            })
            .collect();
        correlation(&l, &means).powi(2)
    };
    p.weights.as_mut().unwrap().host_sigma = 0.0;
    let flat = generate(&p, 2).unwrap();
    assert!(
        between(&d0) > 0.15 && between(&flat) < 0.05,
        "{} {}",
        between(&d0),
        between(&flat)
    );
    assert_eq!(flat.raw_words(), d.raw_words());
    let mut bad = small(10, 10);
    bad.weights.as_mut().unwrap().rate_correlation = 1.5;
    assert!(bad.validate("x").is_err());
}

#[test]
fn commerce_metadata_predicts_change_and_leaves_other_draws_alone() {
    let mut p = SynthParams::preset("commerce").unwrap();
    p.pages = 20_000;
    let d = generate(&p, 3).unwrap();
    let a = d.attributes();
    assert_eq!(a.names(), ["category", "brand", "country"]);
    // a shop's offers share its country; brands are missing on about a quarter
    let country = a.get("country").unwrap();
    for i in 1..d.pages() {
        if d.host(i) == d.host(i - 1) {
            assert_eq!(country.code(i), country.code(i - 1));
        }
    }
    let brand = a.get("brand").unwrap();
    let missing = 1.0 - brand.pages_with() as f64 / d.pages() as f64;
    assert!((missing - 0.25).abs() < 0.02, "{missing}");
    // category values with high multipliers change more: the spread of the change
    // fraction by category is wide, and without rate_sigma it nearly vanishes
    let spread = |d: &Dataset| {
        let (lo, hi) = Stats::of(d).attributes[0].change_fraction_range;
        hi / lo.max(1e-9)
    };
    let mut flat = p.clone();
    for m in &mut flat.metadata {
        m.rate_sigma = 0.0;
    }
    let f = generate(&flat, 3).unwrap();
    assert!(
        spread(&d) > 3.0 && spread(&f) < spread(&d) / 1.5,
        "{} {}",
        spread(&d),
        spread(&f)
    );
    // with every multiplier 1 the bits are those of the preset without metadata
    let mut none = p.clone();
    none.metadata.clear();
    let n = generate(&none, 3).unwrap();
    assert_eq!(n.raw_words(), f.raw_words());
    assert!(n.attributes().is_empty() && f.attributes().get("brand") == Some(brand));
    let mut bad = p.clone();
    bad.metadata[1].name = "category".into();
    assert!(bad
        .validate("x")
        .unwrap_err()
        .to_string()
        .contains("given twice"));
    bad.metadata[1].name = "host".into();
    assert!(bad.validate("x").is_err());
}

#[test]
fn commerce_preset_seasons_promotions_and_popularity() {
    let mut p = SynthParams::preset("commerce").unwrap();
    assert_eq!((p.pages, p.days), (100_000, 57));
    p.pages = 20_000;
    let d = generate(&p, 1).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| generate(&p, 1).unwrap()), d);
    let s = Stats::of(&d);
    // weekly seasonality as configured: Mondays (day 0) busiest, Sundays quietest
    let wk = s.weekday_change_fraction;
    assert!(
        wk[0] > 1.6 * wk[6] && wk[0] > wk[2] && wk[5] < wk[3],
        "{wk:?}"
    );
    // heavy-tailed click popularity
    let ws = s.weights.clone().unwrap();
    assert!(ws.top1_share > 0.3 && ws.p50 < 0.5 * ws.mean, "{ws:?}");
    // promotions: a shop's offers change far more often on its promotion days; without
    // promotions, the same calendars show no such difference
    let pr = p.promotions.clone().unwrap();
    let (on, off) = promotion_contrast(&d, &pr, 1);
    assert!(on > 2.0 * off, "{on} {off}");
    let mut quiet = p.clone();
    quiet.promotions = None;
    let (on, off) = promotion_contrast(&generate(&quiet, 1).unwrap(), &pr, 1);
    assert!(on < 1.3 * off, "{on} {off}");
    let mut bad = p.clone();
    bad.promotions.as_mut().unwrap().mean_days = 0.5;
    assert!(bad.validate("x").is_err());
}

/// The change fraction of every shop's offers on its promotion days and on the others,
/// with the calendars `pr` and `seed` give.
fn promotion_contrast(d: &Dataset, pr: &PromotionParams, seed: u64) -> (f64, f64) {
    let (mut on, mut off) = ((0usize, 0usize), (0usize, 0usize));
    let mut first = 0;
    for h in 0..d.host_names().len() {
        let cal = Promotions::of_host(pr, seed, h, d.cycles()).calendar;
        let n = (first..d.pages())
            .take_while(|&i| d.host(i) == Some(h as u32))
            .count();
        for i in first..first + n {
            for (k, c) in cal.iter().enumerate() {
                let slot = if c.is_some() { &mut on } else { &mut off };
                slot.0 += usize::from(d.changed(i, k + 1));
                slot.1 += 1;
            }
        }
        first += n;
    }
    assert_eq!(first, d.pages());
    assert!(on.1 > 0 && off.1 > 0);
    (on.0 as f64 / on.1 as f64, off.0 as f64 / off.1 as f64)
}

#[test]
fn promotion_calendars() {
    let pr = PromotionParams {
        rate: 0.1,
        mean_days: 4.0,
        coverage: 1.0,
        factor: 1.0,
        boost: 0.0,
    };
    let mut lengths = Vec::new();
    for h in 0..400 {
        let cal = Promotions::of_host(&pr, 9, h, 60).calendar;
        assert_eq!(cal.len(), 60);
        // numbered in order, each one contiguous
        for run in cal.chunk_by(|a, b| a == b) {
            if let Some(i) = run[0] {
                lengths.push(run.len());
                assert!(cal.iter().filter(|c| **c == Some(i)).count() == run.len());
            }
        }
    }
    let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
    assert!((3.3..4.5).contains(&mean), "mean length {mean}");
}

#[test]
fn inverse_normal_matches_statrs() {
    use statrs::distribution::{ContinuousCDF, Normal};
    let n = Normal::new(0.0, 1.0).unwrap();
    for p in [1e-9, 0.001, 0.02, 0.0243, 0.3, 0.5, 0.7, 0.98, 0.999_99] {
        let (a, b) = (inverse_normal_cdf(p), n.inverse_cdf(p));
        assert!((a - b).abs() < 1e-8 * b.abs().max(1.0), "{p}: {a} {b}");
    }
    // ties share their mean rank; scores ascend with the values
    let s = normal_scores(&[0.0, 5.0, 0.0, 1.0]);
    assert_eq!(s[0], s[2]);
    assert!(s[0] < s[3] && s[3] < s[1]);
    assert_eq!(s[0], inverse_normal_cdf(1.0 / 4.0));
}

#[test]
fn significant_rounding() {
    assert_eq!(round_significant(0.012_345_67, Some(4)), 0.01235);
    assert_eq!(round_significant(123_456.7, Some(4)), 123_500.0);
    assert_eq!(round_significant(9.999_96, Some(4)), 10.0);
    assert_eq!(round_significant(0.0, Some(4)), 0.0);
    assert_eq!(round_significant(3.14159e-30, Some(4)), 3.142e-30);
    assert_eq!(round_significant(6.02214e40, Some(4)), 6.022e40);
    assert_eq!(round_significant(0.012_345_67, Some(2)), 0.012);
    assert_eq!(round_significant(6.02214e40, Some(2)), 6.0e40);
    assert_eq!(round_significant(0.012_345_678_96, Some(9)), 0.012_345_679);
    let x = 0.123_456_789_012_345_67;
    assert_eq!(round_significant(x, None), x);
    assert_eq!(round_significant(x, Some(17)), x);
    // Over heavy-tailed values: 17 digits give the value itself, and every precision the
    // double nearest the value's decimal rounding (the arithmetic way up to 9 digits
    // agrees with the exact expansion's).
    let mut rng = <rand_pcg::Pcg64 as rand::SeedableRng>::seed_from_u64(11);
    for _ in 0..20_000 {
        let x = (rand::Rng::gen::<f64>(&mut rng) * 60.0 - 30.0).exp();
        assert_eq!(
            round_significant(x, Some(17)).to_bits(),
            x.to_bits(),
            "{x:e}"
        );
        for digits in 1..=16 {
            let exact: f64 = format!("{x:.*e}", digits as usize - 1).parse().unwrap();
            let got = round_significant(x, Some(digits));
            assert_eq!(got.to_bits(), exact.to_bits(), "{x:e} to {digits} digits");
        }
    }
}

#[test]
fn full_precision_weights_are_nearly_all_distinct() {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 20_000;
    params.days = 3;
    let distinct = |params: &SynthParams| {
        let d = generate(params, 1).unwrap();
        let mut w: Vec<u64> = (0..d.pages()).map(|p| d.weight(p).to_bits()).collect();
        w.sort_unstable();
        w.dedup();
        w.len()
    };
    let rounded = distinct(&params);
    params.weights.as_mut().unwrap().digits = None;
    let full = distinct(&params);
    assert!(rounded < 20_000 * 3 / 4, "{rounded} distinct at 4 digits");
    assert_eq!(full, 20_000, "every weight its own at full precision");
    // The same pages and changes: only the weights' rounding differs.
    let d = generate(&params, 1).unwrap();
    params.weights.as_mut().unwrap().digits = Some(4);
    let e = generate(&params, 1).unwrap();
    for p in (0..d.pages()).step_by(97) {
        assert_eq!(round_significant(d.weight(p), Some(4)), e.weight(p));
    }
}

#[test]
fn weight_digits_are_checked() {
    let mut params = SynthParams::preset("commerce").unwrap();
    for bad in [0, 18] {
        params.weights.as_mut().unwrap().digits = Some(bad);
        let e = params.validate("p").unwrap_err().to_string();
        assert!(e.contains("digits"), "{e}");
    }
    params.weights.as_mut().unwrap().digits = None;
    params.validate("p").unwrap();
}

#[test]
fn preset_errors_are_located() {
    let e = SynthParams::from_ron("(pages: 1,\n days: x)", "p.ron").unwrap_err();
    assert!(e.to_string().starts_with("p.ron:2:"), "{e}");
    let mut p = small(10, 10);
    p.rates.static_fraction = 1.5;
    assert!(p.validate("x").is_err());
    assert!(SynthParams::preset("nope").is_err());
    let back = SynthParams::from_ron(&small(10, 10).to_ron(), "rt").unwrap();
    assert_eq!(back, small(10, 10));
}

#[test]
fn featured_weights_are_multiplied_and_rounded_again() {
    let mut w = vec![1.234, 1.234, 0.333_33, 2.0];
    reweigh_featured(&mut w, &[true, false, true, false], 10.0, Some(4));
    assert_eq!(w, [12.34, 1.234, 3.333, 2.0]);
}

/// Every preset records each page's latent change probability: in [0, 1], zero for a page
/// that can never change, and on `steady` (rates that hold still) close to the share of
/// days the page changed, page by page and in total.
#[test]
fn latent_probabilities_match_the_changes_drawn() {
    for name in ["brdc12", "commerce", "regimes", "steady"] {
        let mut p = SynthParams::preset(name).unwrap();
        p.pages = 3000;
        p.days = 200;
        let d = generate(&p, 5).unwrap();
        assert!(d.has_latent(), "{name}");
        let (mut latent, mut drawn) = (0.0, 0.0);
        for page in 0..d.pages() {
            let q = d.latent(page).unwrap();
            assert!((0.0..=1.0).contains(&q), "{name} page {page}: {q}");
            let share = d.changes_of(page) as f64 / d.cycles() as f64;
            if q == 0.0 {
                assert_eq!(share, 0.0, "{name} page {page} changed at q = 0");
            }
            latent += q;
            drawn += share;
        }
        let (latent, drawn) = (latent / 3000.0, drawn / 3000.0);
        assert!(
            (latent - drawn).abs() < 0.01,
            "{name}: mean q {latent} vs {drawn}"
        );
    }
    let mut p = SynthParams::preset("steady").unwrap();
    p.pages = 2000;
    p.days = 400;
    let d = generate(&p, 6).unwrap();
    // A binomial share over 400 days is within 0.08 of q for every page but a few.
    let far = (0..d.pages())
        .filter(|&page| {
            let share = d.changes_of(page) as f64 / d.cycles() as f64;
            (share - d.latent(page).unwrap()).abs() > 0.08
        })
        .count();
    assert!(far < 10, "{far} pages far from their latent probability");
    // The latent probabilities draw nothing: brdc12's pinned bits
    // (`brdc12_bits_are_pinned_and_weights_leave_them_alone`) are those of before them.
}
