//! Tests of the policy layer: scores, features, memory, text and files.

use super::spec::PolicySpec;
use super::*;
use crate::formula::{Closure, Grammar, Terminal};

/// Page states of a page visited every cycle, keeping every statistic, of weight 2.5
/// and host 1 (its memory is nutch's).
fn pages() -> Vec<PageState> {
    let mut pages = Vec::new();
    let nutch = Policy::from(Adaptive::NUTCH);
    let everything = Policy::parse("w + tc + n7 + X7 + HR + MLE", &Grammar::extended()).unwrap();
    let mut histories = Histories::default();
    let mut s = everything.fresh_page_of(2.5, 1, 0);
    s.memory = nutch.fresh_page().memory;
    for d in 1..=12u32 {
        let mut memory = PageState {
            memory: s.memory,
            ..nutch.fresh_page()
        };
        nutch.visit(&mut memory, d, d % 3 == 0 || d == 4, &mut histories);
        everything.visit(&mut s, d, d % 3 == 0 || d == 4, &mut histories);
        s.memory = memory.memory;
        pages.push(s);
    }
    pages
}

/// Host totals for `pages()`: host 1 has 10 changes in 40 visits.
fn hosts() -> Surroundings {
    let mut hosts = Surroundings::new(2, 1);
    for i in 0..40 {
        hosts.record(1, 0, i % 4 == 0);
    }
    hosts
}

fn policies() -> Vec<Policy> {
    let mut all = Policy::named();
    for text in [
        "X / n * t",
        "log(t) - CG * SAD",
        "3",
        "exp(GAD) / (AAD + NAD)",
        "w * MLE * t / (HR + 0.1) + n7 - X7 * tc",
    ] {
        all.push(Policy::parse(text, &Grammar::extended()).unwrap());
    }
    all
}

#[test]
fn baseline_formulas_compute_the_builtin_scores() {
    for b in Baseline::ALL {
        let f = Scorer::formula_with(&b.formula(), Closure::Paper, None).unwrap();
        for s in &pages() {
            for d in s.stats.last_visit + 1..s.stats.last_visit + 5 {
                let hosts = hosts();
                let at = ScoreContext::at(d, &hosts);
                let built_in = Scorer::Baseline(b).score_one(s, &at);
                assert_eq!(
                    f.score_one(s, &at).to_bits(),
                    built_in.to_bits(),
                    "{b} at {d}"
                );
            }
        }
    }
}

#[test]
fn batch_scores_equal_single_scores() {
    // The pages of `pages()`, and as many again of weight 0 (no LambdaCrawl rate).
    let mut pages = pages();
    let weightless: Vec<PageState> = (pages.iter())
        .map(|p| {
            let mut stats = p.stats;
            stats.weight = 0.0;
            PageState { stats, ..*p }
        })
        .collect();
    pages.extend(weightless);
    let mut buffers = ScoreBuffers::default();
    let mut out = vec![f64::NAN; pages.len() + 3];
    // Two copies of each page: 24 of positive weight among 48. With k = 3 LambdaCrawl's
    // rates are scaled, with k = 30 every positive page's is 1 (`Rates::Positive`), with
    // k = 48 every page's is.
    let mut solutions = Vec::new();
    // A bandit scores with its arms (each among these).
    for policy in policies().iter().filter_map(Policy::scorer) {
        for (k, sampled) in [(3, false), (3, true), (30, false), (30, true), (48, false)] {
            let hosts = hosts();
            let population = pages.iter().map(|p| (p, 2));
            let context = policy.context(14, k, &hosts, population, &mut buffers);
            let context = if sampled { context.sampled() } else { context };
            if matches!(policy, Scorer::Rate(RatePolicy::Lambda)) {
                solutions.push(context.rates());
            }
            policy.score_into(&pages, &context, &mut out, &mut buffers);
            for (page, score) in pages.iter().zip(&out) {
                assert_eq!(
                    score.to_bits(),
                    policy.score_one(page, &context).to_bits(),
                    "{policy} with k = {k}, sampled: {sampled}"
                );
            }
        }
    }
    assert!(
        matches!(solutions[0], Some(Rates::Scaled(_))),
        "{solutions:?}"
    );
    assert_eq!(solutions[2], Some(Rates::Positive));
    assert_eq!(solutions[4], Some(Rates::Same(1.0)));
}

#[test]
fn features_are_what_the_score_reads() {
    let all = Grammar::all();
    let reads = |text: &str| Policy::parse(text, &all).unwrap().features();
    assert_eq!(reads("Rand"), Features::NONE);
    assert_eq!(reads("NAD"), Features::of(&[Terminal::T, Terminal::NAD]));
    assert_eq!(reads("CG"), Features::of(&[Terminal::CG]));
    assert_eq!(reads("nutch"), Features::of(&[Terminal::T]));
    assert_eq!(reads("X / n"), Features::of(&[Terminal::X, Terminal::N]));
    // Every feature a baseline declares is one its formula reads, and conversely.
    for b in Baseline::ALL {
        let formula = Features::of(&b.formula().terminals());
        assert_eq!(b.features(), formula, "{b}");
    }
}

#[test]
fn adaptive_intervals_follow_the_rule_and_stay_in_bounds() {
    let a = Adaptive::NUTCH;
    assert_eq!(a.next_interval(30.0, false), 42.0);
    assert_eq!(a.next_interval(30.0, true), 24.0);
    assert_eq!(a.next_interval(300.0, false), 365.0);
    assert_eq!(a.next_interval(1.1, true), 1.0);
    let s = Adaptive::STORMCRAWLER;
    assert_eq!(s.next_interval(1.0, true), 1.0);
    assert_eq!(s.next_interval(10.0, false), 14.0);
    let mut interval = s.initial();
    for i in 0..100 {
        interval = s.next_interval(interval, i % 7 == 0);
        assert!(
            s.reaches(interval) && (1.0..=14.0).contains(&interval),
            "{interval}"
        );
    }
}

#[test]
fn text_round_trips_and_bad_parameters_are_refused() {
    let all = Grammar::extended();
    for policy in policies() {
        let text = policy.to_string();
        assert_eq!(Policy::parse(&text, &all).unwrap(), policy, "{text}");
    }
    let custom = "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)";
    let p = Policy::parse(custom, &all).unwrap();
    assert_eq!(p.to_string(), custom);
    assert_eq!(
        Policy::parse("NUTCH", &all).unwrap(),
        Policy::from(Adaptive::NUTCH)
    );
    for bad in [
        "adaptive(init: 0.5, min: 1, max: 28, inc: 0.25, dec: 0.5)",
        "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 1)",
        "adaptive(init: 7, min: 1, max: 28, inc: -1, dec: 0.5)",
        "adaptive(init: 7, min: 1, max: 28, inc: 0.25)",
        "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5, extra: 1)",
    ] {
        assert!(
            matches!(Policy::parse(bad, &all), Err(PolicyError::Adaptive(_))),
            "{bad}"
        );
    }
    assert!(matches!(
        Policy::parse("t *", &all),
        Err(PolicyError::Formula(_))
    ));
}

#[test]
fn a_formula_named_like_a_policy_stays_a_formula() {
    let all = Grammar::extended();
    for name in ["NAD", "CG", "SAD"] {
        let formula = Policy::formula(&name.parse().unwrap(), Closure::Paper);
        let text = formula.to_string();
        assert_eq!(text, format!("({name})"));
        assert_eq!(Policy::parse(&text, &all).unwrap(), formula);
        assert_ne!(
            Policy::parse(name, &all).unwrap(),
            formula,
            "{name} is the baseline"
        );
        let json = serde_json::to_string(&formula).unwrap();
        assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), formula);
    }
    // Labels tell a closure apart.
    let paper = Policy::formula(&"X / n".parse().unwrap(), Closure::Paper);
    let reference = Policy::formula(&"X / n".parse().unwrap(), Closure::Reference);
    assert_ne!(paper.label(), reference.label());
}

#[test]
fn formula_errors_are_not_taken_for_unknown_names() {
    let all = Grammar::all();
    for text in ["exp(t) * / 2", "log(q)", "MLE"] {
        assert!(
            matches!(Policy::parse(text, &all), Err(PolicyError::Formula(_))),
            "{text}"
        );
    }
    assert!(matches!(
        Policy::parse("lamda", &all),
        Err(PolicyError::UnknownName { .. })
    ));
}

#[test]
fn ron_writes_policies_as_the_command_line_does() {
    let written = r#"[NAD, lambda, lambda_harmonic, value, nutch,
        adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5), formula("X / n * t")]"#;
    let read: Vec<Policy> = ron::from_str(written).unwrap();
    let texts = [
        "NAD",
        "lambda",
        "lambda-harmonic",
        "value",
        "nutch",
        "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)",
        "X / n * t",
    ];
    let expected: Vec<Policy> = texts
        .iter()
        .map(|t| Policy::parse(t, &Grammar::extended()).unwrap())
        .collect();
    assert_eq!(read, expected);
    for (bad, says) in [
        ("[lamda]", "unknown policy `lamda`"),
        (
            "[adaptive(init: 0, min: 1, max: 2, inc: 0.1, dec: 0.1)]",
            "min <= init",
        ),
        ("[adaptive(init: 1, min: 1, max: 2, inc: 0.1)]", "dec"),
        (r#"[formula("X / ")]"#, "expected an operand"),
    ] {
        let err = ron::from_str::<Vec<Policy>>(bad).unwrap_err().to_string();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn serialized_policies_are_checked_on_the_way_in() {
    for policy in policies() {
        let json = serde_json::to_string(&policy).unwrap();
        let back: Policy = serde_json::from_str(&json).unwrap();
        assert_eq!(back, policy, "{json}");
    }
    // Text in JSON, the checked specification in binary (the scheduler's state).
    let reference = Policy::formula(&"X / n".parse().unwrap(), Closure::Reference);
    for policy in policies().into_iter().chain([reference]) {
        let json = serde_json::to_string(&policy).unwrap();
        assert_eq!(json, format!("\"{policy}\""));
        assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), policy);
        let binary = bincode::serialize(&policy).unwrap();
        assert_eq!(bincode::deserialize::<Policy>(&binary).unwrap(), policy);
    }
    let bad = r#""adaptive(init: 0, min: 1, max: 2, inc: 0.1, dec: 0.1)""#;
    let err = serde_json::from_str::<Policy>(bad).unwrap_err().to_string();
    assert!(err.contains("min <= init"), "{err}");
    let spec = PolicySpec::Adaptive(RawAdaptive {
        init: 0.0,
        min: 1.0,
        max: 2.0,
        inc: 0.1,
        dec: 0.1,
    });
    let err = bincode::deserialize::<Policy>(&bincode::serialize(&spec).unwrap());
    assert!(err.unwrap_err().to_string().contains("min <= init"));
    let err = serde_json::from_str::<Policy>(r#""lamda""#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown policy `lamda`") && err.contains("lambda-harmonic"),
        "{err}"
    );
}

#[test]
fn the_binary_specification_is_the_state_format() {
    // Each policy's encoding as the scheduler's state holds it, written by the build before
    // scorers and bandits were told apart by type: any change here breaks saved states.
    let cases = [
        (
            "NAD",
            "0100000002000000",
        ),
        (
            "nutch",
            "020000000000000000003e40000000000000f03f0000000000d076409a9999999999d93f9a9999999999c93f",
        ),
        (
            "oracle",
            "09000000",
        ),
        (
            "kab2",
            "050000000200000000000000030000000200000003000000010000009a9999999999b93f00",
        ),
        (
            "X / n [Reference closure]",
            "00000000050000000000000058202f206e01000000",
        ),
        (
            "exp3(arms: [kab3, value], rate: anytime, forget: share(alpha: 0.1), reward: found)",
            "080000000400000000000000030000000200000003000000010000000300000000000000040000009a9999999999b93f0002000000020000009a9999999999b93f0101000000",
        ),
        (
            "exp3(arms: [NAD, age], reward: wndcg)",
            "050000000200000000000000010000000200000001000000010000009a9999999999b93f0104000000",
        ),
    ];
    for (text, hex) in cases {
        let policy = Policy::parse(text, &Grammar::every()).unwrap();
        let bytes = bincode::serialize(&policy).unwrap();
        let written: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(written, hex, "{text}");
        assert_eq!(bincode::deserialize::<Policy>(&bytes).unwrap(), policy);
    }
    // An arm whose encoding is a bandit's (the `Bandit` variant, 5) is refused.
    let nested = "05000000010000000000000005000000";
    let bytes: Vec<u8> = (0..nested.len() / 2)
        .map(|i| u8::from_str_radix(&nested[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let err = bincode::deserialize::<Policy>(&bytes)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a saved arm is a bandit"), "{err}");
}
