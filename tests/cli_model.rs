//! `freshgp model ...` end to end on the `commerce` preset: metadata through the binary
//! cache and `dataset stats`, the AUC table (text and JSON), a trained model file, and the
//! errors a user meets (an attribute no page has, a non-positive K, overwriting).

use assert_cmd::Command;
use std::path::Path;

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small commerce history with metadata, written as a binary cache.
fn commerce(dir: &Path) -> std::path::PathBuf {
    commerce_of(dir, 1500)
}

/// A commerce history of `pages` pages over 36 days.
fn commerce_of(dir: &Path, pages: usize) -> std::path::PathBuf {
    let path = dir.join(format!("c{pages}.fgpd"));
    freshgp()
        .args(["dataset", "synth", "--preset", "commerce", "--days", "36"])
        .arg("--pages")
        .arg(pages.to_string())
        .arg("--out")
        .arg(&path)
        .assert()
        .success();
    path
}

#[test]
fn stats_list_the_attributes_read_back_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let out = freshgp()
        .args(["dataset", "stats"])
        .arg(&data)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    for name in ["category", "brand", "country"] {
        assert!(
            text.contains(&format!("attribute          {name}: ")),
            "{text}"
        );
    }
    let out = freshgp()
        .args(["dataset", "stats", "--json"])
        .arg(&data)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let attributes = json["stats"]["attributes"].as_array().unwrap();
    assert_eq!(attributes[2]["name"], "country");
    assert!(attributes[2]["cardinality"].as_u64().unwrap() <= 12);
}

#[test]
fn eval_prints_and_writes_the_auc_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let json = dir.path().join("auc.json");
    let out = freshgp()
        .args(["model", "eval", "--rotations", "2", "--data"])
        .arg(&data)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("partial observability: the visits of NAD at resources 0.2"),
        "{text}"
    );
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = table["rows"].as_array().unwrap();
    let methods: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(
        methods,
        [
            "freq1",
            "freq7",
            "freq30",
            "since_change",
            "group:category",
            "group:brand",
            "group:country",
            "group:host",
            "combined",
            "groups"
        ]
    );
    // Change history predicts change: every page-level feature and the combined model
    // rank better than chance on seen pages, under both observabilities.
    for r in rows.iter().filter(|r| {
        r["method"] != "group:host" && !r["method"].as_str().unwrap().starts_with("group:")
    }) {
        for obs in ["full", "partial"] {
            let auc = r[obs]["seen"]["mean"].as_f64().unwrap();
            assert!(auc > 0.6, "{} {obs}: {auc}", r["method"]);
        }
    }
    // The staleness table follows, in text and JSON: the stale model beats the base rate.
    assert!(text.contains("staleness at the crawl's visits"), "{text}");
    let stale = table["stale"]["rows"].as_array().unwrap();
    let names: Vec<&str> = stale
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hazard", "poisson", "combined·stale"]);
    let c = &stale[0]["unseen"]["calibration"];
    assert!(
        c["brier"].as_f64().unwrap() < c["base"].as_f64().unwrap(),
        "{c}"
    );
    // The same table again: refused without --force (nothing overwritten).
    let out = freshgp()
        .args(["model", "eval", "--rotations", "1", "--data"])
        .arg(&data)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(!out.status.success() && stderr(&out).contains("--force"));
}

/// `model train` on `data` with `extra` flags fails with a message containing `want`, and
/// writes nothing.
fn refuses_training(data: &Path, dir: &Path, extra: &[&str], want: &str) {
    let out = freshgp()
        .args(["model", "train", "--force", "--data"])
        .arg(data)
        .arg("--out")
        .arg(dir.join("bad.json"))
        .args(extra)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains(want), "{extra:?}: {}", stderr(&out));
    assert!(!dir.join("bad.json").exists());
}

#[test]
fn train_writes_a_model_file_and_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let model = dir.path().join("m.json");
    let out = freshgp()
        .args(["model", "train", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&model).unwrap();
    let (m, k) = freshgp::model::Model::from_json_with_horizon(&text, "m.json").unwrap();
    assert_eq!(k, 1);
    // The default features are those a policy computes: the frequencies and the host's
    // group rate (no other grouping was asked for), so the model runs as a policy.
    let names = |m: &freshgp::model::Model| -> Vec<String> {
        (m.features().features().iter())
            .map(|f| f.to_string())
            .collect()
    };
    assert_eq!(
        names(&m),
        ["freq1", "freq7", "freq30", "since_change", "group:host"]
    );
    let policy = format!("NAD,model:{}", model.display());
    let run = freshgp()
        .args(["baselines", "--data"])
        .arg(&data)
        .args(["--policies", &policy])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    // Grouped by an attribute, the default reads its group rate too, and says how to run it.
    let grouped = dir.path().join("g.json");
    let out = freshgp()
        .args(["model", "train", "--group", "category", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&grouped)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("runs on data grouped by category (--group category)"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&grouped).unwrap();
    let g = freshgp::model::Model::from_json(&text, "g.json").unwrap();
    assert_eq!(names(&g)[4..], ["group:category", "group:host"]);
    let bad = |extra: &[&str], want: &str| refuses_training(&data, dir.path(), extra, want);
    bad(&["--memory", "0"], "--memory 0: expected at least 1 (MiB)");
    bad(
        &["--features", "freq7,group:colour"],
        "no page has the attribute `colour` (the data has: category, brand, country)",
    );
    bad(&["--features", "freq0"], "unknown feature `freq0`");
    bad(
        &["--horizon", "0"],
        "the label horizon K must be at least 1",
    );
    bad(&["--rotation", "5"], "expected 0..=4");
    bad(
        &["--horizon", "13"],
        "the label horizon K is longer than the training period",
    );
    assert!(!dir.path().join("bad.json").exists());
}

#[test]
fn examples_over_the_memory_limit_are_streamed_to_the_same_regression() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce_of(dir.path(), 8000);
    let train = |memory: &str, out: &str| {
        let out = dir.path().join(out);
        let run = freshgp()
            .args(["model", "train", "--memory", memory])
            .args([
                "--features",
                "freq1,freq7,freq30,since_change,group:category,group:brand",
            ])
            .args(["--features", "group:country,group:host", "--data"])
            .arg(&data)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", stderr(&run));
        let text = std::fs::read_to_string(&out).unwrap();
        let m = freshgp::model::Model::from_json(&text, "m.json").unwrap();
        match m {
            freshgp::model::Model::Logistic {
                weights, intercept, ..
            } => {
                let w: Vec<f64> = weights.iter().chain([&intercept]).copied().collect();
                (w, stderr(&run))
            }
            other => panic!("{other:?}"),
        }
    };
    let (in_memory, said) = train("1024", "m.json");
    assert!(!said.contains("streaming"), "{said}");
    let (streamed, said) = train("1", "s.json");
    assert!(
        said.contains("over --memory 1; streaming them in chunks of 4032"),
        "{said}"
    );
    for (a, b) in in_memory.iter().zip(&streamed) {
        assert!((a - b).abs() < 1e-6, "{in_memory:?} against {streamed:?}");
    }
}

#[test]
fn a_model_over_a_category_rate_runs_where_the_data_is_grouped_by_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let model = dir.path().join("category.json");
    let out = freshgp()
        .args([
            "model",
            "train",
            "--features",
            "freq7,since_change,group:category",
            "--data",
        ])
        .arg(&data)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let policies = format!("NAD,model:{m},P * t [model {m}]", m = model.display());
    for command in ["baselines", "requests"] {
        let out = freshgp()
            .args([command, "--policies", &policies, "--data"])
            .arg(&data)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{command}");
        assert!(
            stderr(&out).contains(
                "reads group:category, but the data is grouped by host: it runs on data whose pages have the attribute `category`, grouped by it (--group category"
            ),
            "{command}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
    let out = freshgp()
        .args([
            "baselines",
            "--group",
            "category",
            "--policies",
            &policies,
            "--data",
        ])
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("model:{}", model.display())),
        "{text}"
    );
    // A study with that model and no grouping is refused before its output exists, so a
    // second try says the same (not that the directory holds results).
    let study = dir.path().join("s.ron");
    std::fs::write(
        &study,
        format!(
            "(name: \"s\", dataset: Path({:?}), seeds: 1, gp: (population: 4, generations: 1, keep_best: 2),\n\
             configurations: [(name: \"A\", grammar: \"all\", fitness: ndcg)], baselines: [NAD, model({:?})])",
            data.display().to_string(),
            model.display().to_string()
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    for _ in 0..2 {
        let out = freshgp()
            .arg("experiment")
            .arg(&study)
            .arg("--out")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("reads group:category, but the data is grouped by host"),
            "{}",
            stderr(&out)
        );
        assert!(!out_dir.exists(), "{}", stderr(&out));
    }
}

#[test]
fn a_network_trains_reports_its_epochs_and_drives_the_table_and_the_requests() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let model = dir.path().join("n.json");
    let out = freshgp()
        .args([
            "model", "train", "--kind", "network", "--epochs", "2", "--data",
        ])
        .arg(&data)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("epoch 2/2: training cross-entropy"));
    // The seed paper's network reads codes, which no policy can: training says so.
    assert!(
        stderr(&out).contains("note: not usable as a policy (model:")
            && stderr(&out).contains("reads cat:category"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&model).unwrap();
    let m = freshgp::model::Model::from_json(&text, "n.json").unwrap();
    let names: Vec<String> = m
        .features()
        .features()
        .iter()
        .map(|f| f.to_string())
        .collect();
    // Every frequency feature, then the code of each attribute and of the host.
    assert_eq!(
        names[8..],
        ["cat:category", "cat:brand", "cat:country", "cat:host"]
    );
    // A logistic regression cannot read codes; an unknown kind is named.
    let bad = |extra: &[&str], want: &str| refuses_training(&data, dir.path(), extra, want);
    bad(
        &["--features", "freq7,cat:brand"],
        "a categorical code is an input of the network only",
    );
    bad(
        &["--kind", "forest"],
        "unknown model kind `forest` (known: logistic, network)",
    );
    bad(
        &["--kind", "network", "--epochs", "0"],
        "epochs and the batch size must be at least 1",
    );
    // The simulation keeps no attribute codes: a network over them is refused as a policy;
    // one over the page-level features and the host rate drives a crawl.
    let simulate = |model: &Path| {
        freshgp()
            .args(["simulate", "--data"])
            .arg(&data)
            .arg("--policy")
            .arg(format!("model:{}", model.display()))
            .output()
            .unwrap()
    };
    // A one-epoch network over `features`, written to `name` in the directory.
    let train = |features: &str, name: &str| {
        let path = dir.path().join(name);
        let out = freshgp()
            .args([
                "model", "train", "--kind", "network", "--epochs", "1", "--data",
            ])
            .arg(&data)
            .args(["--features", features, "--out"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        path
    };
    let out = simulate(&train("freq7,since_change,cat:brand", "brand.json"));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("reads cat:brand: a model file keeps no attribute values"));
    let out = simulate(&train(
        "freq1,freq7,freq30,since_change,group:host",
        "page.json",
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    // The network, learned per rotation, decides request-driven crawls.
    let out = freshgp()
        .args([
            "requests",
            "--policies",
            "NAD",
            "--learned",
            "network",
            "--data",
        ])
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let savings = String::from_utf8_lossy(&out.stdout);
    assert!(
        savings.lines().any(|l| l.contains(" network ")),
        "{savings}"
    );
    // The AUC table with its network row, one rotation, full observability.
    let out = freshgp()
        .args([
            "model",
            "eval",
            "--network",
            "--epochs",
            "2",
            "--rotations",
            "1",
        ])
        .args(["--partial-policy", "none", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    let row = table.lines().find(|l| l.starts_with("network")).unwrap();
    let aucs: Vec<f64> = row
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(aucs.len() >= 6 && aucs[0] > 0.6 && aucs[2] > 0.6, "{row}");
}

/// A formula reading `P` without its model is refused with a hint every command can
/// follow: the model in the policy text, not a flag only `evolve` has.
#[test]
fn the_hint_for_p_without_a_model_names_no_missing_flag() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let state = dir.path().join("s.state");
    let runs: [Vec<std::ffi::OsString>; 3] = [
        vec![
            "simulate".into(),
            "--data".into(),
            data.clone().into(),
            "--formula".into(),
            "P * t".into(),
        ],
        vec![
            "baselines".into(),
            "--data".into(),
            data.clone().into(),
            "--policies".into(),
            "NAD,P * t".into(),
        ],
        vec![
            "schedule".into(),
            "--state".into(),
            state.clone().into(),
            "--formula".into(),
            "P * t".into(),
            "--k".into(),
            "1".into(),
        ],
    ];
    for args in runs {
        let out = freshgp().args(&args).output().unwrap();
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains("give its model in the policy text: `P * t [model FILE]`"),
            "{args:?}: {said}"
        );
        assert!(!said.contains("--model"), "{args:?}: {said}");
    }
    assert!(!state.exists());
}

/// The stale model end to end: trained and saved with its label, refused where a change
/// model's flags or readings would misuse it, run by the requests (by quantile and
/// directly) and, with a prior of no groups, as a policy in the simulation.
#[test]
fn a_stale_model_trains_and_drives_requests_and_policies() {
    let dir = tempfile::tempdir().unwrap();
    let data = commerce(dir.path());
    let model = dir.path().join("stale.json");
    let out = freshgp()
        .args(["model", "train", "--kind", "hazard", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for key in ["none", "category", "brand", "country", "host"] {
        assert!(text.contains(&format!("prior groups {key} ")), "{text}");
    }
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(
        (file["version"].as_u64(), file["label"].as_str()),
        (Some(3), Some("stale"))
    );
    assert_eq!(file["model"]["kind"], "hazard");
    // A prior over groups cannot run as a policy, and the training says so.
    if file["model"]["prior"]["key"].is_string() {
        assert!(
            stderr(&out).contains("not usable as a policy"),
            "{}",
            stderr(&out)
        );
    }
    // The change label's horizon, a foreign feature, an unknown group: refused, named.
    refuses_training(
        &data,
        dir.path(),
        &["--kind", "hazard", "--horizon", "2"],
        "--horizon 2: the horizon is the change label's",
    );
    refuses_training(
        &data,
        dir.path(),
        &["--kind", "hazard", "--features", "freq7"],
        "`freq7` is not a feature of the stale model",
    );
    refuses_training(
        &data,
        dir.path(),
        &["--kind", "hazard", "--prior-group", "colour"],
        "no page has the attribute `colour`",
    );
    refuses_training(
        &data,
        dir.path(),
        &["--features", "since_visit"],
        "`since_visit` is a feature of the stale model (--kind hazard)",
    );
    // No groups: the model runs as a policy and inside a formula's P.
    let flat = dir.path().join("flat.json");
    freshgp()
        .args([
            "model",
            "train",
            "--kind",
            "hazard",
            "--prior-group",
            "none",
            "--data",
        ])
        .arg(&data)
        .arg("--out")
        .arg(&flat)
        .assert()
        .success();
    let flat_s = flat.to_str().unwrap();
    let out = freshgp()
        .args(["baselines", "--data"])
        .arg(&data)
        .arg("--policies")
        .arg(format!("NAD,model:{flat_s},w * P [model {flat_s}]"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        table.lines().filter(|l| l.contains("flat.json")).count(),
        2,
        "{table}"
    );
    // Requests: `hazard` by quantile, `p:hazard` directly; `stale:hazard` compounds a
    // staleness again and `p:combined` is no staleness: both refused with the reason.
    let requests = |learned: &str, extra: &[&str]| {
        freshgp()
            .args([
                "requests",
                "--policies",
                "NAD",
                "--rotations",
                "1",
                "--levels",
                "0.4",
            ])
            .arg("--learned")
            .arg(learned)
            .args(extra)
            .arg("--data")
            .arg(&data)
            .output()
            .unwrap()
    };
    let out = requests("hazard,p:hazard", &["--once-per-cycle"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(" hazard ") && table.contains(" hazard·p "),
        "{table}"
    );
    let out = requests("p:hazard", &[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("compare them under --once-per-cycle"),
        "{}",
        stderr(&out)
    );
    let out = requests("stale:hazard", &[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("already that the page changed since the last visit"),
        "{}",
        stderr(&out)
    );
    let out = requests("p:combined", &["--once-per-cycle"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("only a model of the label `stale`"),
        "{}",
        stderr(&out)
    );
}
