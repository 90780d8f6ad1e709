//! The scheduler as the live counterpart of the simulation's hosts, host cap
//! (docs/src/reference/simulation.md#politeness-the-host-cap), page weights and extended
//! terminals (docs/src/reference/terminals.md), on a real history: a formula reading every
//! extended terminal (`w tc n7 X7 HR MLE`) schedules, batch for batch, the reference
//! simulation's visits, also across a restart from a saved state; and the weight column of
//! `freshgp schedule`.
//!
//! The real file (the text format, `BITS<TAB>page_id`) has no hosts or weights: each test
//! writes a copy in a temporary directory with the page's service (the id up to its first
//! `/`) as its host and, when weighted, a `weight=` attribute.

use assert_cmd::Command;
use freshgp::data::{self, Dataset, LoadOptions};
use freshgp::formula::{Closure, Formula, Grammar};
use freshgp::metric::Metric;
use freshgp::policy::{Adaptive, Baseline, Policy};
use freshgp::schedule::Scheduler;
use freshgp::sim::{Decision, Period, SimConfig, Simulator};
use std::path::{Path, PathBuf};

const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/real/OpenTermsArchive+contrib-versions.57.tsv"
);

/// Every extended terminal, and some of the paper's (docs/src/reference/terminals.md).
const EXTENDED: &str = "w * MLE * t / (HR + 0.1) + n7 - X7 * tc + X / (n + 1)";

/// The real file with hosts (and weights, if `weighted`), loaded from a copy in `dir`.
fn hosted(dir: &Path, weighted: bool) -> Dataset {
    let text = std::fs::read_to_string(REAL).expect("the repository's real history");
    let mut out = String::new();
    for (i, line) in text.lines().filter(|l| !l.starts_with('#')).enumerate() {
        let (bits, id) = line.split_once('\t').unwrap();
        let host = id.split_once('/').map_or("", |(service, _)| service);
        out.push_str(&format!("{bits}\t{id}\t{host}"));
        if weighted {
            let weight = [1.0, 0.0, 2.5, 0.25, 10.0][i % 5];
            out.push_str(&format!("\tweight={weight}"));
        }
        // A categorical attribute (docs/src/reference/data.md#attributes) for GR; every
        // 11th page lacks it.
        if i % 11 != 0 {
            out.push_str(&format!("\tkind=k{}", i % 7));
        }
        out.push('\n');
    }
    let path = dir.join("hosted.tsv");
    std::fs::write(&path, out).unwrap();
    let d = data::load(&path, &LoadOptions::default()).unwrap().dataset;
    assert!(d.host_names().len() > 300, "{} hosts", d.host_names().len());
    d
}

/// A crawler over the whole of `d`: pages added in file order with their hosts and
/// weights; warm-up days download everything, later days the capped batch.
/// `restart_at`: save and reload the state before that day. Returns each scheduled
/// day's batch.
fn crawl(
    d: &Dataset,
    rule: &Policy,
    config: &SimConfig,
    restart_at: Option<(u32, &Path)>,
) -> Vec<Vec<String>> {
    let period = Period::whole(d).unwrap();
    let ids: Vec<String> = (0..d.pages())
        .map(|p| d.id(p).unwrap().to_string())
        .collect();
    let mut s: Scheduler = Scheduler::new(rule.clone()).with_seed(config.seed());
    for (p, id) in ids.iter().enumerate() {
        let host = d.host(p).map(|h| d.host_names()[h as usize].as_str());
        let host = host.filter(|h| !h.is_empty());
        s.add_weighted(id.clone(), host, d.weight(p)).unwrap();
        for a in d.attributes().iter() {
            s.set_attribute(id.as_str(), a.name(), a.value(p)).unwrap();
        }
    }
    s.group_by(d.grouping()).unwrap();
    let cap = config.host_cap().map(|m| m as usize);
    let mut stale = vec![false; ids.len()];
    let mut batches = Vec::new();
    for day in 1..=period.len() as u32 {
        if let Some((at, path)) = restart_at.filter(|(at, _)| *at == day) {
            s.save(path).unwrap();
            s = Scheduler::load(path).unwrap();
            assert_eq!(at, day);
        }
        for &p in period.changes(day as usize) {
            stale[p as usize] = true;
        }
        let batch = if day as usize <= config.warmup() {
            ids.clone()
        } else {
            let k = config.k(ids.len());
            let b = match config.decision() {
                Decision::TopK => s.next_batch_capped(day, k, cap).unwrap(),
                Decision::Sample => s
                    .next_batch_sampled(day, k)
                    .unwrap()
                    .into_iter()
                    .map(|pick| pick.page)
                    .collect(),
            };
            batches.push(b.clone());
            b
        };
        for id in &batch {
            let p = s.slot(id).unwrap() as usize;
            s.observe(id.as_str(), day, stale[p]).unwrap();
            stale[p] = false;
        }
    }
    batches
}

/// The reference simulation's visits, as page ids.
fn visits(d: &Dataset, rule: &Policy, config: &SimConfig) -> Vec<Vec<String>> {
    let period = Period::whole(d).unwrap();
    let (_, visits) = Simulator::new(*config)
        .run_reference_traced(&period, rule)
        .unwrap();
    assert_eq!(visits.len(), period.len() - config.warmup());
    visits
        .iter()
        .map(|v| {
            v.iter()
                .map(|&p| d.id(p as usize).unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Whether the cap binds: some host has more than `cap` pages in some uncapped visit.
fn cap_binds(d: &Dataset, uncapped: &[Vec<String>], cap: usize) -> bool {
    let host_of: std::collections::HashMap<&str, u32> = (0..d.pages())
        .filter_map(|p| Some((d.id(p)?, d.host(p)?)))
        .collect();
    uncapped.iter().any(|batch| {
        let mut per_host = std::collections::HashMap::new();
        batch.iter().any(|id| {
            let n = per_host.entry(host_of[id.as_str()]).or_insert(0);
            *n += 1;
            *n > cap
        })
    })
}

#[test]
fn capped_batches_are_the_simulations_visits_on_a_real_file_with_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let d = hosted(dir.path(), false);
    let extended = Grammar::extended();
    let f: Formula = "(t * X + CG) / (n + 1) - exp(-NAD * t)".parse().unwrap();
    let rules = [
        Policy::formula(&f, Closure::Paper),
        Policy::from(Baseline::Nad),
        Policy::from(Baseline::Age),
        Policy::from(Adaptive::NUTCH),
        Policy::parse("HR * t + X / (n + 1)", &extended).unwrap(),
    ];
    let uncapped_config = SimConfig::paper().with_seed(5);
    for rule in &rules {
        let uncapped = visits(&d, rule, &uncapped_config);
        assert_eq!(crawl(&d, rule, &uncapped_config, None), uncapped, "{rule}");
        for cap in [1, 2] {
            let config = uncapped_config.with_host_cap(Some(cap)).unwrap();
            assert!(
                cap_binds(&d, &uncapped, cap as usize),
                "{rule}: the cap {cap} never binds, the test would prove nothing"
            );
            let expected = visits(&d, rule, &config);
            assert_eq!(
                crawl(&d, rule, &config, None),
                expected,
                "{rule}, cap {cap}"
            );
        }
    }
}

#[test]
fn section8_formula_batches_are_the_simulations_visits_on_a_weighted_real_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = hosted(dir.path(), true);
    let rule = Policy::parse(EXTENDED, &Grammar::extended()).unwrap();
    let state = dir.path().join("crawler.state");
    for cap in [None, Some(2)] {
        let config = SimConfig::paper().with_seed(1).with_host_cap(cap).unwrap();
        let expected = visits(&d, &rule, &config);
        assert_eq!(crawl(&d, &rule, &config, None), expected, "cap {cap:?}");
        // A restart from the saved state (version 3: MLE intervals, n7/X7 masks,
        // weights) changes nothing.
        let restarted = crawl(&d, &rule, &config, Some((30, &state)));
        assert_eq!(restarted, expected, "cap {cap:?}, restarted at day 30");
    }
    // The weights matter: the same formula over the unweighted file visits otherwise.
    let plain = hosted(dir.path(), false);
    assert_ne!(
        visits(&plain, &rule, &SimConfig::paper()),
        visits(&d, &rule, &SimConfig::paper())
    );
}

/// The frequency grammar's terminals (`n30 X30 GR`), pages grouped by an attribute for
/// `GR`: the scheduler's batches are the simulation's visits, through a restart from the
/// saved state (attributes and grouping saved), with and without a host cap; grouped by
/// host, `GR` visits as `HR` does.
#[test]
fn frequency_terminals_grouped_by_an_attribute_schedule_as_they_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = hosted(dir.path(), true);
    let rule = Policy::parse(
        "GR * t + X30 / (n30 + 1) - 0.01 * n7",
        &Grammar::frequency(),
    )
    .unwrap();
    let by_host = visits(&d, &rule, &SimConfig::paper());
    let hr = Policy::parse(
        "HR * t + X30 / (n30 + 1) - 0.01 * n7",
        &Grammar::frequency(),
    )
    .unwrap();
    assert_eq!(visits(&d, &hr, &SimConfig::paper()), by_host);
    d.group_by(Some("kind")).unwrap();
    let state = dir.path().join("grouped.state");
    for cap in [None, Some(2)] {
        let config = SimConfig::paper().with_seed(3).with_host_cap(cap).unwrap();
        let expected = visits(&d, &rule, &config);
        assert_eq!(crawl(&d, &rule, &config, None), expected, "cap {cap:?}");
        let restarted = crawl(&d, &rule, &config, Some((30, &state)));
        assert_eq!(restarted, expected, "cap {cap:?}, restarted at day 30");
    }
    // The grouping matters: by kind, GR visits otherwise than by host.
    assert_ne!(visits(&d, &rule, &SimConfig::paper()), by_host);
    // A learned model over the kind's group rate schedules as it simulates, grouped by
    // the kind; grouped by host, the simulation and the scheduler refuse it.
    use freshgp::model::{Feature, FeatureSet, Model};
    let path = dir.path().join("kind.json");
    let model = Model::Logistic {
        features: FeatureSet::new(vec![
            Feature::Frequency(7),
            Feature::SinceChange,
            Feature::Group("kind".into()),
        ]),
        mean: vec![0.1, 5.0, 0.2],
        scale: vec![0.3, 4.0, 0.2],
        weights: vec![0.8, -0.4, 0.9],
        intercept: -0.5,
        alpha: 1.0,
    };
    std::fs::write(&path, model.to_json()).unwrap();
    let learned =
        Policy::parse(&format!("model:{}", path.display()), &Grammar::predictive()).unwrap();
    let config = SimConfig::paper().with_seed(3);
    let expected = visits(&d, &learned, &config);
    assert_eq!(crawl(&d, &learned, &config, Some((30, &state))), expected);
    d.group_by(None).unwrap();
    let e = Simulator::new(config)
        .run(&Period::whole(&d).unwrap(), &learned)
        .unwrap_err();
    assert!(e.to_string().contains("grouped by it (--group kind"), "{e}");
    let mut s: Scheduler = Scheduler::new(learned);
    s.add("p".to_string()).unwrap();
    let e = s.next_batch(3, 1).unwrap_err();
    assert!(
        e.to_string()
            .contains("reads group:kind, but the data is grouped by host"),
        "{e}"
    );
}

/// Every policy of the literature (docs/src/reference/policies.md) schedules, in the
/// scheduler, the pages the simulation visits — on the weighted real file with hosts, with
/// and without a cap, and after a restart from the saved state (visit intervals for the
/// MLE, adaptive intervals). The bandit presets too (docs/src/reference/bandit.md#presets):
/// a scheduler rewards them with the change rate (what a crawler observes), so the
/// simulation runs with that metric; the restart then also resumes the bandit's weights and
/// pending batch.
#[test]
fn literature_policies_schedule_as_they_simulate_on_a_weighted_real_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = hosted(dir.path(), true);
    let state = dir.path().join("crawler.state");
    for rule in Policy::named().into_iter().skip(Baseline::ALL.len()) {
        for cap in [None, Some(2)] {
            let config = SimConfig::paper()
                .with_seed(3)
                .with_host_cap(cap)
                .unwrap()
                .with_metric(Metric::ChangeRate);
            let expected = visits(&d, &rule, &config);
            assert_eq!(
                crawl(&d, &rule, &config, None),
                expected,
                "{rule}, cap {cap:?}"
            );
            let restarted = crawl(&d, &rule, &config, Some((30, &state)));
            assert_eq!(
                restarted, expected,
                "{rule}, cap {cap:?}, restarted at day 30"
            );
        }
    }
}

/// The sampled decision (docs/src/reference/simulation.md#sampled-decisions) in a live
/// crawl: the scheduler draws the pages the simulation draws with the same run seed, for a
/// formula over the extended terminals and every policy of the literature, also across a
/// restart from the saved state.
#[test]
fn sampled_batches_are_the_simulations_visits_on_a_weighted_real_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = hosted(dir.path(), true);
    let state = dir.path().join("crawler.state");
    let extended = Policy::parse(EXTENDED, &Grammar::extended()).unwrap();
    let literature = Policy::named().into_iter().skip(Baseline::ALL.len());
    for rule in std::iter::once(extended).chain(literature) {
        let config = SimConfig::paper()
            .with_seed(11)
            .with_metric(Metric::ChangeRate)
            .with_decision(Decision::Sample)
            .unwrap();
        let expected = visits(&d, &rule, &config);
        let top_k = config.with_decision(Decision::TopK).unwrap();
        assert_ne!(
            expected,
            visits(&d, &rule, &top_k),
            "{rule} draws its top k"
        );
        assert_eq!(crawl(&d, &rule, &config, None), expected, "{rule}");
        let restarted = crawl(&d, &rule, &config, Some((40, &state)));
        assert_eq!(restarted, expected, "{rule}, restarted at day 40");
    }
}

// ---- the command line ----

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").expect("the freshgp binary is built")
}

/// The error `freshgp schedule` prints (exit status 2) for the log `log` on `state`.
fn refused_log(state: &str, log: &Path) -> String {
    let out = freshgp()
        .args(["schedule", "--state", state, "--observe"])
        .arg(log)
        .args(["--k", "1"])
        .assert()
        .failure()
        .code(2);
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `--group KEY` on the data commands and on `schedule`: GR over an attribute, and a key no
/// page has is an error naming it.
#[test]
fn cli_group_by_an_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(
        dir.path(),
        "offers.tsv",
        "1111\ta\th\tcategory=x\n0000\tb\th\tcategory=x\n1010\tc\th\n0101\td\th\tcategory=y\n",
    );
    let data = data.to_str().unwrap();
    let simulate = |group: &[&str]| {
        let mut args = vec![
            "simulate",
            "--data",
            data,
            "--formula",
            "GR * t",
            "--period",
            "all",
            "--resources",
            "0.5",
            "--warmup",
            "1",
        ];
        args.extend_from_slice(group);
        freshgp().args(&args).assert()
    };
    let by_category = simulate(&["--group", "category"]).success();
    let by_host = simulate(&[]).success();
    assert_ne!(by_category.get_output().stdout, by_host.get_output().stdout);
    let err = simulate(&["--group", "brand"]).code(2);
    let err = String::from_utf8(err.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("group by `brand`: no page has that attribute (the data has: host, category)"),
        "{err}"
    );
    // The scheduler keeps the grouping and the attributes of the log in its state.
    let state = dir.path().join("g.state");
    let s = state.to_str().unwrap();
    let log = write(
        dir.path(),
        "day1.tsv",
        "a\t1\t1\t\t\tcategory=x\nb\t1\t0\t\t\tcategory=x\nc\t1\t0\n",
    );
    freshgp()
        .args([
            "schedule",
            "--formula",
            "GR",
            "--grammar",
            "frequency",
            "--group",
            "category",
        ])
        .args([
            "--state",
            s,
            "--observe",
            log.to_str().unwrap(),
            "--k",
            "3",
            "--json",
        ])
        .assert()
        .success();
    let back: freshgp::schedule::Scheduler = freshgp::schedule::Scheduler::load(&state).unwrap();
    assert_eq!(back.grouping(), Some("category"));
    assert_eq!(back.attribute("b", "category"), Some("x"));
    // A key no page of the state has is refused, and the state kept as it was.
    let before = std::fs::read(&state).unwrap();
    let err = freshgp()
        .args(["schedule", "--state", s, "--k", "1", "--group", "color"])
        .assert()
        .code(2);
    let err = String::from_utf8(err.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("--group color: no page has that attribute (the pages have: host, category)"),
        "{err}"
    );
    assert_eq!(std::fs::read(&state).unwrap(), before, "the state changed");
    let bad = write(dir.path(), "bad.tsv", "a\t2\t1\t\t\tcategory\n");
    let err = refused_log(s, &bad);
    assert!(
        err.contains("bad.tsv:1: field 6 `category`: an attribute must be key=value"),
        "{err}"
    );
}

#[test]
fn cli_weight_column_sets_weights_and_bad_weights_name_the_line() {
    let help = freshgp().args(["schedule", "--help"]).assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(
        help.contains("[<TAB>host[<TAB>weight[<TAB>key=value ...]]]"),
        "{help}"
    );
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("w.state");
    let s = state.to_str().unwrap();
    // Weights 4, 1 (default) and 0.5 (host left empty); all unchanged at day 1.
    let log = write(
        dir.path(),
        "day1.tsv",
        "a\t1\t0\th.org\t4\nb\t1\t0\nc\t1\t0\t\t0.5\n",
    );
    let out = freshgp()
        .args([
            "schedule",
            "--formula",
            "w * t",
            "--grammar",
            "extended",
            "--state",
            s,
        ])
        .args(["--observe", log.to_str().unwrap(), "--k", "3", "--json"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let batch: Vec<(&str, f64, f64)> = json["batch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let f = |k: &str| p[k].as_f64().unwrap();
            (p["page"].as_str().unwrap(), f("score"), f("weight"))
        })
        .collect();
    assert_eq!(batch, [("a", 4.0, 4.0), ("b", 1.0, 1.0), ("c", 0.5, 0.5)]);
    let back: Scheduler = Scheduler::load(&state).unwrap();
    assert_eq!(
        (back.weight("a"), back.host("a"), back.host("c")),
        (Some(4.0), Some("h.org"), None)
    );
    // A bad weight names the file, the line and the field; nothing is saved.
    let bad = write(dir.path(), "bad.tsv", "b\t2\t0\n# note\nc\t2\t1\t\tlots\n");
    let err = refused_log(s, &bad);
    assert!(
        err.contains("bad.tsv:3: fifth field `lots` must be a weight (a finite number >= 0)"),
        "{err}"
    );
    let again: Scheduler = Scheduler::load(&state).unwrap();
    assert_eq!(again.latest_cycle(), 1, "the state is not written");
    // A cap of 0 is still an error.
    let out = freshgp()
        .args(["schedule", "--state", s, "--k", "1", "--host-cap", "0"])
        .assert()
        .failure()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--host-cap must be at least 1"), "{err}");
    // So is a batch of 0 pages, as --resources 0 is, in a run and in the query.
    let saved = std::fs::read(&state).unwrap();
    for args in [&["--state", s][..], &["--emit-sql", "--formula", "t"][..]] {
        let out = freshgp()
            .args(["schedule", "--k", "0"])
            .args(args)
            .assert()
            .code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains("--k must be at least 1"), "{args:?}: {err}");
    }
    let out = freshgp()
        .args(["schedule", "--state", s, "--resources", "0"])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("resources"), "{err}");
    assert_eq!(
        std::fs::read(&state).unwrap(),
        saved,
        "the state is not written"
    );
}
