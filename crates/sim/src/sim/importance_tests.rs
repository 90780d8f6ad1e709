//! Page importance, politeness and the extended terminals in the simulation: weighted
//! metrics (docs/src/reference/metrics.md#wndcg), the host cap
//! (docs/src/reference/simulation.md#politeness-the-host-cap) and the extended terminals
//! (docs/src/reference/terminals.md), by hand and fast-versus-reference on random
//! weighted, hosted histories.

use super::metrics::discount;
use super::*;
use crate::data::{text, Dataset};
use crate::formula::Grammar;
use crate::metric::{CycleMetrics, Metric};
use crate::policy::*;

/// A dataset from `(bits, host, weight)` rows (`""`: no host; `None`: no weight attribute).
fn dataset<B: AsRef<str>, H: AsRef<str>>(rows: &[(B, H, Option<f64>)]) -> Dataset {
    dataset_in(rows, &[])
}

/// As [`dataset`], page `i` of category `categories[i]` (none when absent or `None`).
fn dataset_in<B: AsRef<str>, H: AsRef<str>>(
    rows: &[(B, H, Option<f64>)],
    categories: &[Option<u64>],
) -> Dataset {
    let mut lines = String::new();
    for (i, (bits, host, weight)) in rows.iter().enumerate() {
        let (bits, host) = (bits.as_ref(), host.as_ref());
        lines.push_str(&format!("{bits}\tp{i}\t{host}"));
        if let Some(w) = weight {
            lines.push_str(&format!("\tweight={w}"));
        }
        if let Some(Some(c)) = categories.get(i) {
            lines.push_str(&format!("\tcategory=c{c}"));
        }
        lines.push('\n');
    }
    text::read(lines.as_bytes(), "<test>").unwrap()
}

/// `text` with each terminal `b` replaced by the constant `value`.
fn replace_b(text: &str, value: f64) -> String {
    let chars: Vec<char> = text.chars().collect();
    let word = |i: usize| chars.get(i).is_some_and(|c| c.is_alphanumeric());
    (0..chars.len())
        .map(|i| match chars[i] {
            'b' if (i == 0 || !word(i - 1)) && !word(i + 1) => format!("({value:?})"),
            c => c.to_string(),
        })
        .collect()
}

fn policy(text: &str) -> Policy {
    Policy::parse(text, &Grammar::every()).unwrap()
}

/// Runs both simulators (and a prepared run) and checks they agree bit for bit.
fn both(period: &Period, policy: &Policy, config: SimConfig) -> Outcome {
    let mut sim = Simulator::new(config);
    let fast = sim.run(period, policy).unwrap();
    let reference = sim.run_reference(period, policy).unwrap();
    assert_eq!(
        fast, reference,
        "fast and reference differ for {policy} ({config:?})"
    );
    let flat = sim.run_flat(period, policy);
    assert_eq!(flat, reference, "per-page simulator differs for {policy}");
    unweighted_tallies_alike(period, policy, config, &fast);
    let prepared = Prepared::new(period, config).unwrap();
    assert_eq!(
        sim.run_prepared(period, policy, &prepared),
        fast,
        "prepared run differs for {policy}"
    );
    // Grouping and the order of a class's groups change nothing (from scratch, and over
    // the prepared period, whose tie orders some walks read).
    let mut scrambled = Simulator::new(config).scrambled();
    let scratch = scrambled.run(period, policy).unwrap();
    assert_eq!(scratch, fast, "grouping changes {policy}");
    let prepared_run = scrambled.run_prepared(period, policy, &prepared);
    assert_eq!(prepared_run, fast, "grouping changes {policy}, prepared");
    fast
}

/// A simulator told to read only an unweighted metric (as a GP fitness) gives every
/// unweighted metric of `full` bit for bit, and NaN for the weighted ones over a weighted
/// period (a bandit tallies them anyway); told a weighted one, it gives `full`.
/// (The unweighted run also with its groups scrambled: [`Simulator::scrambled`].)
fn unweighted_tallies_alike(period: &Period, policy: &Policy, config: SimConfig, full: &Outcome) {
    for sim in [Simulator::new(config), Simulator::new(config).scrambled()] {
        let lean = sim.unweighted(Metric::Ndcg).run(period, policy).unwrap();
        assert_eq!(lean.cycles.len(), full.cycles.len());
        let skipped = period.weights().is_some() && !matches!(policy, Policy::Bandit(_));
        for (a, b) in lean.cycles.iter().zip(&full.cycles) {
            let plain = |m: &CycleMetrics| (m.change_rate, m.ndcg, m.freshness, m.newly_visited);
            assert_eq!(plain(a), plain(b), "{policy}");
            assert_eq!((a.stale, a.visited, a.cycle), (b.stale, b.visited, b.cycle));
            if skipped {
                assert!(a.wndcg.is_nan() && a.wfreshness.is_nan(), "{policy}");
            } else {
                assert_eq!((a.wndcg, a.wfreshness), (b.wndcg, b.wfreshness), "{policy}");
            }
        }
    }
    let weighted = Simulator::new(config)
        .unweighted(Metric::WNdcg)
        .run(period, policy)
        .unwrap();
    assert_eq!(&weighted, full, "{policy}");
}

#[test]
fn weights_of_one_give_the_unweighted_metrics_bit_for_bit() {
    let bits = [
        "0110101101",
        "0010011100",
        "1111111111",
        "0000000001",
        "0101010101",
    ];
    let weighted: Vec<_> = bits.iter().map(|b| (*b, "", Some(1.0))).collect();
    let plain: Vec<_> = bits.iter().map(|b| (*b, "", None)).collect();
    let (weighted, plain) = (dataset(&weighted), dataset(&plain));
    let config = SimConfig::new(0.4, 2).unwrap().with_seed(3);
    for text in ["NAD", "Age", "Rand", "X / n * t", "nutch"] {
        let w = both(&Period::whole(&weighted).unwrap(), &policy(text), config);
        let p = both(&Period::whole(&plain).unwrap(), &policy(text), config);
        for (a, b) in w.cycles.iter().zip(&p.cycles) {
            assert_eq!(a.wndcg.to_bits(), a.ndcg.to_bits(), "{text}");
            assert_eq!(a.wfreshness.to_bits(), a.freshness.to_bits(), "{text}");
            assert_eq!(a.ndcg.to_bits(), b.ndcg.to_bits(), "{text}");
            assert_eq!(b.wndcg.to_bits(), b.ndcg.to_bits(), "{text}");
        }
    }
}

/// Five pages, k = 2, ranked by weight (`w`), one scored cycle, worked out by hand.
#[test]
fn hand_computed_weighted_cycle() {
    // Cycle 3 (after a 2-cycle warm-up): pages 0, 2, 3 stale (weights 8, 2, 1).
    let d = dataset(&[
        ("001", "", Some(8.0)),
        ("000", "", Some(4.0)),
        ("001", "", Some(2.0)),
        ("001", "", Some(1.0)),
        ("000", "", Some(0.5)),
    ]);
    let p = Period::whole(&d).unwrap();
    // Visit the two lightest pages: 4 (fresh) then 3 (stale).
    let out = both(&p, &policy("-w"), SimConfig::new(0.4, 2).unwrap());
    let c = out.cycles[0];
    assert_eq!((c.stale, c.visited), (3, 2));
    // DCG_w = 1·g(2) (page 3 at rank 2); IDCG_w = 8·g(1) + 2·g(2).
    let ideal = 8.0 * discount(1) + discount(2) * 2.0;
    assert_eq!(c.wndcg, (1.0 * discount(2)) / ideal);
    assert_eq!(c.ndcg, discount(2) / (1.0 + discount(2)));
    // Fresh after: pages 1, 3, 4 = 4 + 1 + 0.5 of 15.5.
    assert_eq!(c.wfreshness, (4.0 + 1.0 + 0.5) / 15.5);
    assert_eq!(c.freshness, 3.0 / 5.0);
    // Heaviest first finds the best possible weighted DCG.
    let best = both(&p, &policy("w"), SimConfig::new(0.4, 2).unwrap()).cycles[0];
    assert_eq!(best.wndcg, (8.0 * discount(1)) / ideal);
    // Zero total weight: WFreshness is 1, WNDCG 0.
    let zero = dataset(&[("011", "", Some(0.0)), ("001", "", Some(0.0))]);
    let z = both(
        &Period::whole(&zero).unwrap(),
        &policy("t"),
        SimConfig::new(0.5, 2).unwrap(),
    );
    assert_eq!((z.cycles[0].wfreshness, z.cycles[0].wndcg), (1.0, 0.0));
}

/// Four pages on two hosts and one without, k = 3, cap 1: the walk skips a capped host.
#[test]
fn the_host_cap_skips_pages_of_a_full_host() {
    let d = dataset(&[
        ("0011", "a", None),
        ("0011", "a", None),
        ("0011", "b", None),
        ("0001", "", None),
        ("0000", "", None),
    ]);
    let p = Period::whole(&d).unwrap();
    let config = SimConfig::new(0.6, 2)
        .unwrap()
        .with_host_cap(Some(1))
        .unwrap();
    // `X` is 0 for every page after a warm-up without changes: all scores tie, and the
    // seeded tie order decides, under the cap.
    let (out, visits) = Simulator::new(config)
        .run_reference_traced(&p, &policy("X"))
        .unwrap();
    both(&p, &policy("X"), config);
    // Every cycle: at most one of pages 0 and 1 (host a) is visited.
    for cycle in &visits {
        let of_a = cycle.iter().filter(|&&page| page < 2).count();
        assert!(of_a <= 1, "{visits:?}");
        assert_eq!(cycle.len(), 3);
    }
    // Only one page per host and two hostless pages: a cap never leaves fewer than 3 here.
    assert!(out.cycles.iter().all(|c| c.visited == 3));
    // All pages on one host, cap 1, k = 2: one visit a cycle; ChangeRate still over k.
    let one_host = dataset(&[
        ("0111", "h", None),
        ("0111", "h", None),
        ("0111", "h", None),
    ]);
    let p = Period::whole(&one_host).unwrap();
    let config = SimConfig::new(0.7, 2)
        .unwrap()
        .with_host_cap(Some(1))
        .unwrap();
    let out = both(&p, &policy("t"), config);
    for c in &out.cycles {
        assert_eq!((c.visited, c.change_rate), (1, 0.5));
    }
}

#[test]
fn a_zero_host_cap_is_an_error_and_the_cap_round_trips() {
    assert_eq!(
        SimConfig::paper().with_host_cap(Some(0)),
        Err(SimError::ZeroHostCap)
    );
    let capped = SimConfig::paper().with_host_cap(Some(3)).unwrap();
    let json = serde_json::to_string(&capped).unwrap();
    assert_eq!(serde_json::from_str::<SimConfig>(&json).unwrap(), capped);
    let zero = json.replace("\"host_cap\":3", "\"host_cap\":0");
    let err = serde_json::from_str::<SimConfig>(&zero)
        .unwrap_err()
        .to_string();
    assert!(err.contains("host cap must be at least 1"), "{err}");
    // Settings stored before the cap existed still read, uncapped.
    let old = r#"{"resources":0.05,"warmup":2,"seed":0,"ties":"seeded"}"#;
    assert_eq!(
        serde_json::from_str::<SimConfig>(old).unwrap(),
        SimConfig::paper()
    );
    assert!(!serde_json::to_string(&SimConfig::paper())
        .unwrap()
        .contains("host_cap"));
}

/// `tc`, `n7`, `X7`, `HR` and `MLE` read off the simulation's own state at known cycles.
#[test]
fn extended_terminals_at_period_edges() {
    // One page visited in the warm-up (cycles 1, 2) and then every cycle (k = P = 1):
    // changes at cycles 2, 5 and 9.
    let d = dataset(&[("0100100010", "", None)]);
    let p = Period::whole(&d).unwrap();
    let config = SimConfig::new(1.0, 2).unwrap();
    // A page alone is visited every cycle: its state at cycle d is that of visits 1..d-1.
    let terminal_at = |text: &str, d: usize| -> f64 {
        // The page's state at cycle d, rebuilt with the policy's own visit rule.
        let policy = policy(text);
        let mut histories = Histories::default();
        let mut page = policy.fresh_page_of(1.0, NO_HOST, crate::policy::NO_GROUP);
        for c in 1..d as u32 {
            let changed = [2, 5, 9].contains(&c);
            policy.visit(&mut page, c, changed, &mut histories);
        }
        policy
            .scorer()
            .unwrap()
            .score_one(&page, &ScoreContext::at(d as u32, &Surroundings::default()))
    };
    assert_eq!(terminal_at("tc", 1), 1.0); // no change detected yet: tc = d
    assert_eq!(terminal_at("tc", 3), 1.0); // detected at 2
    assert_eq!(terminal_at("tc", 9), 4.0); // detected at 5
    assert_eq!(terminal_at("n7", 1), 0.0);
    assert_eq!(terminal_at("n7", 4), 3.0); // cycles 1..3
    assert_eq!(terminal_at("n7", 8), 7.0); // cycles 1..7
    assert_eq!(terminal_at("n7", 10), 7.0); // cycles 3..9
    assert_eq!(terminal_at("X7", 8), 2.0); // 2 and 5
    assert_eq!(terminal_at("X7", 10), 2.0); // 5 and 9 (2 left the window)
    assert_eq!(terminal_at("X7", 13), 1.0); // cycles 6..12, visits up to 12: only 9
                                            // HR of a page without a host is its own X / n; MLE of unit intervals has the closed
                                            // form ln((n + 2) / (n - X + 1)).
    assert_eq!(terminal_at("HR", 10), 3.0 / 9.0);
    let mle = terminal_at("MLE", 10);
    assert!((mle - (11.0f64 / 7.0).ln()).abs() < 1e-12, "{mle}");
    // The simulators agree on all of them over the page's period.
    for text in ["tc", "n7", "X7", "HR", "MLE", "w"] {
        both(&p, &policy(text), config);
    }
}

/// `n30`, `X30`: the visits and detected changes of cycles `d - 30 ..= d - 1`.
#[test]
fn thirty_cycle_windows_at_their_edges() {
    let pol = policy("n30 + 100 * X30");
    let mut histories = Histories::default();
    let mut page = pol.fresh_page_of(1.0, NO_HOST, crate::policy::NO_GROUP);
    let at = |page: &PageState, d: u32| {
        pol.scorer()
            .unwrap()
            .score_one(page, &ScoreContext::at(d, &Surroundings::default()))
    };
    assert_eq!(at(&page, 1), 0.0);
    for (d, changed) in [(1, true), (3, false), (10, true)] {
        pol.visit(&mut page, d, changed, &mut histories);
    }
    assert_eq!(at(&page, 11), 3.0 + 200.0); // cycles 1..=10
    assert_eq!(at(&page, 31), 3.0 + 200.0); // cycles 1..=30: the first still in
    assert_eq!(at(&page, 32), 2.0 + 100.0); // cycles 2..=31: the change at 1 left
    assert_eq!(at(&page, 34), 1.0 + 100.0); // cycles 4..=33
    assert_eq!(at(&page, 40), 1.0 + 100.0); // cycles 10..=39
    assert_eq!(at(&page, 41), 0.0); // cycles 11..=40
                                    // n7/X7 read the same masks when the 30-cycle window is kept.
    let both = policy("n7 + 100 * X7 + 0 * n30");
    assert_eq!(
        both.scorer()
            .unwrap()
            .score_one(&page, &ScoreContext::at(12, &Surroundings::default())),
        1.0 + 100.0
    );
    pol.visit(&mut page, 70, false, &mut histories);
    assert_eq!(at(&page, 71), 1.0);
}

/// `n7`, `X7` after a gap longer than the window: nothing left in it.
#[test]
fn windows_empty_after_a_long_gap() {
    let pol = policy("n7 + X7");
    let mut histories = Histories::default();
    let mut page = pol.fresh_page_of(1.0, NO_HOST, crate::policy::NO_GROUP);
    pol.visit(&mut page, 1, true, &mut histories);
    pol.visit(&mut page, 3, true, &mut histories);
    let at = |d: u32| {
        pol.scorer()
            .unwrap()
            .score_one(&page, &ScoreContext::at(d, &Surroundings::default()))
    };
    assert_eq!(at(4), 4.0); // visits 1, 3, changes 1, 3
    assert_eq!(at(9), 2.0); // window 2..8: visit 3 only
    assert_eq!(at(10), 2.0); // window 3..9
    assert_eq!(at(11), 0.0); // window 4..10
    pol.visit(&mut page, 30, false, &mut histories);
    assert_eq!(
        pol.scorer()
            .unwrap()
            .score_one(&page, &ScoreContext::at(31, &Surroundings::default())),
        1.0
    );
}

/// HR pools a host's pages and GR a group's; pages without either stand alone.
#[test]
fn host_and_group_rates_pool_their_pages() {
    use crate::policy::NO_GROUP;
    let mut rates = Surroundings::new(1, 2);
    let (hr, gr) = (policy("HR"), policy("GR"));
    let mut histories = Histories::default();
    // Page a: host 0, group 1; the page alone has neither.
    let (mut a, mut alone) = (
        hr.fresh_page_of(1.0, 0, 1),
        hr.fresh_page_of(1.0, NO_HOST, NO_GROUP),
    );
    let (mut ga, mut galone) = (
        gr.fresh_page_of(1.0, 0, 1),
        gr.fresh_page_of(1.0, NO_HOST, NO_GROUP),
    );
    assert_eq!(
        hr.scorer()
            .unwrap()
            .score_one(&a, &ScoreContext::at(1, &rates)),
        0.0
    );
    assert_eq!(
        gr.scorer()
            .unwrap()
            .score_one(&ga, &ScoreContext::at(1, &rates)),
        0.0
    );
    for (d, changed) in [(1, true), (2, false), (3, false), (4, false)] {
        hr.visit(&mut a, d, changed, &mut histories);
        gr.visit(&mut ga, d, changed, &mut histories);
        rates.record(0, 1, changed);
    }
    rates.record(0, NO_GROUP, true); // another page of host 0, in no group, changed
    rates.record(NO_HOST, 1, false); // a page of group 1 without a host, unchanged
    rates.record(NO_HOST, 1, false);
    hr.visit(&mut alone, 1, true, &mut histories);
    gr.visit(&mut galone, 1, true, &mut histories);
    assert_eq!(
        hr.scorer()
            .unwrap()
            .score_one(&a, &ScoreContext::at(5, &rates)),
        2.0 / 5.0
    );
    assert_eq!(
        hr.scorer()
            .unwrap()
            .score_one(&alone, &ScoreContext::at(5, &rates)),
        1.0
    );
    assert_eq!(
        gr.scorer()
            .unwrap()
            .score_one(&ga, &ScoreContext::at(5, &rates)),
        1.0 / 6.0
    );
    assert_eq!(
        gr.scorer()
            .unwrap()
            .score_one(&galone, &ScoreContext::at(5, &rates)),
        1.0
    );
    // The group is kept only by a policy that reads GR (pages group as before).
    assert_eq!((a.stats.group, ga.stats.group), (NO_GROUP, 1));
}

/// `cycles` random change bits, each set with `rate` percent chance.
fn random_bits(state: &mut u64, cycles: usize, rate: u64) -> String {
    (0..cycles)
        .map(|_| if lcg(state) % 100 < rate { '1' } else { '0' })
        .collect()
}

/// A small deterministic generator.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// The policies of [`fast_equals_reference_with_weights_hosts_and_caps`].
const POLICIES: &[&str] = &[
    "t",
    "X / n * t",
    "w",
    "w * (1 - exp(-MLE * t))",
    "HR * t + n7 - X7",
    "MLE * t / (tc + 1)",
    "log(w + 1) * CG + HR",
    // Per-page terminals deep inside, state-only subtrees on both sides of them.
    "pow(t + 1, w / 10) / (X7 + HR * w + 1) - exp(-MLE * tc) * w + CG",
    "(t + w) * (X + HR) - log(w * AAD + 1) + n7",
    // Subtrees of `w` alone, or of `HR` alone, beside the rest.
    "exp(-w) * t + pow(w, 0.5) * exp(HR) / log(HR + 2)",
    "log(HR + 1)",
    "GR * w + t",
    "n7",
    "GR * t + n30 - X30",
    "X30 / (n30 + 1) + GR * HR",
    // The budget, beside state-only and per-page subtrees.
    "t * b + X / (b + 0.1)",
    "w * exp(-MLE * t * b) + HR / b",
    "NAD",
    "Rand",
    "nutch",
    "uniform",
    "change",
    "weight",
    "lambda",
    "lambda-harmonic",
    "value",
];

/// Over more pages than a chunk of the evaluator holds, pages with and without hosts side
/// by side: a formula's subtrees of `HR` alone, computed per host (and per state for a
/// page without a host, which is its own host), give what the whole formula gives.
#[test]
fn host_inputs_serve_pages_with_and_without_hosts() {
    let mut state = 3u64;
    let cycles = 12;
    let rows: Vec<(String, String, Option<f64>)> = (0..900)
        .map(|i| {
            let rate = [0, 3, 20, 60][lcg(&mut state) as usize % 4];
            let bits = random_bits(&mut state, cycles, rate);
            let host = match lcg(&mut state) % 4 {
                0 => String::new(),
                h => format!("h{}", h + i % 7),
            };
            let weight = (lcg(&mut state) % 10_000) as f64 / 100.0;
            (bits, host, Some(weight))
        })
        .collect();
    let p = Period::whole(&dataset(&rows)).unwrap();
    let config = SimConfig::new(0.1, 2).unwrap().with_seed(5);
    for text in [
        "exp(-w) * t + pow(w, 0.5) * exp(HR) / log(HR + 2)",
        "w * HR + log(HR + 1) * t",
        "HR",
    ] {
        both(&p, &policy(text), config);
    }
}

#[test]
fn fast_equals_reference_with_weights_hosts_and_caps() {
    let texts = POLICIES;
    let mut state = 7u64;
    for case in 0..40u64 {
        let pages = 2 + lcg(&mut state) as usize % 120;
        let cycles = 4 + lcg(&mut state) as usize % 20;
        let hosts = 1 + lcg(&mut state) % 6;
        let weighted = case % 3 != 0;
        let rows: Vec<(String, String, Option<f64>)> = (0..pages)
            .map(|_| {
                let rate = [0, 3, 20, 60][lcg(&mut state) as usize % 4];
                let bits = random_bits(&mut state, cycles, rate);
                let h = lcg(&mut state) % (hosts + 1);
                let host = if h == hosts {
                    String::new()
                } else {
                    format!("h{h}")
                };
                // Few distinct weights, so pages also tie on `w`; some 0. Or (one case in
                // three) nearly every page its own weight: the fast simulator then keeps
                // a group per page instead of merging equal states.
                let weight = weighted.then(|| match case % 3 {
                    1 => [0.0, 0.5, 1.0, 3.0, 40.0][lcg(&mut state) as usize % 5],
                    _ => (lcg(&mut state) % 100_000) as f64 / 1000.0,
                });
                (bits, host, weight)
            })
            .collect();
        // Categories c0..c3, some pages without; every other case groups GR by them.
        let categories: Vec<Option<u64>> = (0..pages)
            .map(|_| Some(lcg(&mut state) % 5).filter(|&c| c < 4))
            .collect();
        let mut d = dataset_in(&rows, &categories);
        let grouped = case % 2 == 0 && categories.iter().any(Option::is_some);
        if grouped {
            d.group_by(Some("category")).unwrap();
        }
        let p = Period::whole(&d).unwrap();
        let resources = (5 + lcg(&mut state) % 60) as f64 / 100.0;
        let cap = [None, Some(1), Some(2), Some(5)][lcg(&mut state) as usize % 4];
        let config = SimConfig::new(resources, 2)
            .unwrap()
            .with_seed(case)
            .with_host_cap(cap)
            .unwrap();
        if config.check(&p).is_err() {
            continue;
        }
        for text in texts {
            both(&p, &policy(text), config);
        }
        // `b` is the run's k / P, in every simulator: the formula reads as the one with
        // that constant in its place.
        let b = config.k(p.pages()) as f64 / p.pages() as f64;
        for text in texts
            .iter()
            .filter(|t| policy(t).features().contains(crate::formula::Terminal::B))
        {
            let constant = policy(&replace_b(text, b));
            assert_eq!(
                both(&p, &policy(text), config),
                both(&p, &constant, config),
                "{text} at b = {b:?}, case {case}"
            );
        }
        // Grouped by host, GR is HR.
        if !grouped {
            let hr = both(&p, &policy("HR * t"), config);
            assert_eq!(both(&p, &policy("GR * t"), config), hr, "case {case}");
        }
    }
}

/// Warm-ups of any length (none, short, longer than the period's scored part) agree in
/// every simulator, for policies with and without per-page memory.
#[test]
fn warm_ups_of_every_length_agree() {
    let mut state = 11u64;
    for warmup in [0, 1, 2, 5, 10, 11, 13] {
        let cycles = warmup + 2 + lcg(&mut state) as usize % 4;
        let rows: Vec<(String, String, Option<f64>)> = (0..60)
            .map(|i| {
                let bits = random_bits(&mut state, cycles, [0, 10, 50, 90][i % 4]);
                let weight = (lcg(&mut state) % 1000) as f64 / 10.0;
                (bits, format!("h{}", i % 3), Some(weight))
            })
            .collect();
        let p = Period::whole(&dataset(&rows)).unwrap();
        let config = SimConfig::new(0.2, warmup)
            .unwrap()
            .with_seed(warmup as u64);
        for text in [
            "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
            "w * t",
            "nutch",
            "value",
        ] {
            both(&p, &policy(text), config);
        }
    }
}

/// GR grouped by an attribute pools the pages of each value; a page without it is its
/// own group; grouping by a key no page has is an error naming it.
#[test]
fn group_rates_pool_an_attributes_pages() {
    // Pages 0 and 1 in category c0 (changes every cycle / never), page 2 alone.
    let rows = [("1111", "h", None), ("0000", "h", None), ("1000", "", None)];
    let mut d = dataset_in(&rows, &[Some(0), Some(0), None]);
    assert!(d
        .group_by(Some("brand"))
        .unwrap_err()
        .to_string()
        .contains("no page has that attribute (the data has: host, category)"));
    d.group_by(Some("category")).unwrap();
    assert_eq!(d.grouping(), Some("category"));
    let p = Period::whole(&d).unwrap();
    assert_eq!(
        (p.groups(), p.group(0), p.group(2)),
        (1, 0, crate::policy::NO_GROUP)
    );
    // Every page visited every cycle: at cycle 5, c0 has 4 changes in 8 visits; page 2
    // 1 in 4.
    let config = SimConfig::new(0.5, 2).unwrap();
    let mut pages: Vec<PageState> = Vec::new();
    let pol = policy("GR");
    let mut rates = p.surroundings(pol.features().track(), 1);
    let mut histories = Histories::default();
    for page in 0..3u32 {
        let mut s = pol.fresh_page_of(1.0, p.host(page), p.group(page));
        for (c, bit) in rows[page as usize].0.chars().enumerate() {
            pol.visit(&mut s, c as u32 + 1, bit == '1', &mut histories);
            rates.record(p.host(page), p.group(page), bit == '1');
        }
        pages.push(s);
    }
    let scores: Vec<f64> = pages
        .iter()
        .map(|s| {
            pol.scorer()
                .unwrap()
                .score_one(s, &ScoreContext::at(5, &rates))
        })
        .collect();
    assert_eq!(scores, [0.5, 0.5, 0.25]);
    both(&p, &pol, config);
}

/// A weighted period of 3,000 pages (more than the per-page simulator's sample of 1,024
/// score keys: it samples every third page). Every third page, the sampled ones, is
/// heavy, so the sample overrates the scores and the candidates above its bound run out
/// before k pages are taken, with or without a cap.
fn striped_period() -> Period {
    let mut state = 11u64;
    let rows: Vec<(String, String, Option<f64>)> = (0..3000)
        .map(|i| {
            let bits = random_bits(&mut state, 8, [0, 10, 50, 90][i % 4]);
            let weight = match i % 3 {
                0 => 1000.0 + i as f64,
                _ => (lcg(&mut state) % 1000) as f64 / 10.0,
            };
            (bits, format!("h{}", i % 7), Some(weight))
        })
        .collect();
    Period::whole(&dataset(&rows)).unwrap()
}

#[test]
fn candidates_and_the_rest_agree_on_a_period_larger_than_the_sample() {
    let p = striped_period();
    for (share, cap) in [
        (0.001, None),
        (0.05, None),
        (0.3, None),
        (0.05, Some(1)),
        (0.3, Some(2)),
    ] {
        let config = SimConfig::new(share, 2)
            .unwrap()
            .with_host_cap(cap)
            .unwrap();
        for text in ["w * (1 - exp(-MLE * t)) + HR * X7 / tc", "w * t", "w"] {
            both(&p, &policy(text), config);
        }
    }
}

/// One simulator running policy after policy (shared states, then a bandit, then pages of
/// their own, then shared states with other inputs; the histories kept between runs)
/// gives each the outcome a fresh simulator gives it.
#[test]
fn a_simulator_reused_across_policies_gives_fresh_outcomes() {
    let p = striped_period();
    let config = SimConfig::new(0.05, 2).unwrap();
    let mut reused = Simulator::new(config);
    for text in [
        "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
        "kab5",
        "value",
        "GR * w + MLE",
        "t + X",
        "w * X7 + HR * w + tc * w * MLE",
        "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
    ] {
        let policy = policy(text);
        let fresh = Simulator::new(config).run(&p, &policy).unwrap();
        assert_eq!(reused.run(&p, &policy).unwrap(), fresh, "{text}");
    }
}

/// A host cap over a period whose pages have no host skips nothing: every simulator gives
/// the uncapped outcome (the fast ones take the uncapped way to it).
#[test]
fn a_cap_over_pages_without_hosts_changes_nothing() {
    let mut state = 5u64;
    let rows: Vec<(String, String, Option<f64>)> = (0..400)
        .map(|i| {
            let bits = random_bits(&mut state, 10, [0, 10, 50, 90][i % 4]);
            let weight = (lcg(&mut state) % 1000) as f64 / 10.0;
            (bits, String::new(), Some(weight))
        })
        .collect();
    let p = Period::whole(&dataset(&rows)).unwrap();
    assert_eq!(p.hosts(), 0);
    for text in ["w * t", "t * X + CG", "lambda", "kab5"] {
        let uncapped = both(&p, &policy(text), SimConfig::paper());
        let capped = SimConfig::paper().with_host_cap(Some(1)).unwrap();
        assert_eq!(both(&p, &policy(text), capped), uncapped, "{text}");
    }
}
