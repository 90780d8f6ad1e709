//! Outputs frozen bit for bit: what freshgp prints for every policy on the real files and on
//! the presets, so that a change meant to move code (a new module layout, a faster
//! simulator) is proven not to move a single number.
//!
//! Each case is one `freshgp` command; its standard output (JSON, every float printed
//! exactly) is reduced to a 64-bit FNV-1a digest and compared with `tests/golden/outputs.txt`.
//! A mismatch names the command, so the two builds can be diffed by rerunning it.
//!
//! When a change is *meant* to move numbers, rewrite the file and say why in the commit:
//!
//! ```sh
//! FRESHGP_BLESS=1 cargo test --release --test golden
//! ```

use std::path::{Path, PathBuf};

const EXPECTED: &str = "tests/golden/outputs.txt";

/// The real files of `datasets/real/`, by short name.
const REAL: [(&str, &str); 4] = [
    ("contrib", "OpenTermsArchive+contrib-versions.57.tsv"),
    ("pga", "OpenTermsArchive+pga-versions.57.tsv"),
    ("endoflife", "endoflife-date+release-data.57.tsv"),
    ("scoop", "ScoopInstaller+Main.57.tsv"),
];

/// Formulas of every kind of terminal: a GP4C formula, the extended grammar's (weights,
/// hosts, windows, MLE) and the frequency grammar's group rate.
const FORMULAS: [&str; 4] = [
    "X / (n + 0.5) * t + CG * log(t + 1)",
    "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
    "(w + 0.1) * (1 - exp(-(NAD + 0.01) * t)) * (1 + X30 / (n30 + 1))",
    "GR * t + w * n7 - tc / 100",
];

/// 64-bit FNV-1a.
fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[path = "common/run.rs"]
mod common;

/// Runs `freshgp args` in `dir` and returns its standard output.
fn run(dir: &Path, args: &[String]) -> Vec<u8> {
    common::run_in(dir, args)
}

fn words(text: &str) -> Vec<String> {
    text.split(' ').map(str::to_string).collect()
}

/// The commands, in order. `dir` holds the data made by the first commands.
fn cases(repo: &Path) -> Vec<Vec<String>> {
    let real = repo.join("datasets/real");
    let mut data: Vec<(String, bool)> = REAL
        .iter()
        .map(|(_, file)| (real.join(file).display().to_string(), false))
        .collect();
    data.push((
        repo.join("datasets/brdc12-sample.tsv")
            .display()
            .to_string(),
        true,
    ));
    data.push(("commerce.tsv".to_string(), true));
    data.push(("brdc12.tsv".to_string(), true));
    let mut cases = Vec::new();
    for (file, hosted) in &data {
        let with = |rest: &str| {
            let mut args = words(rest);
            args.splice(1..1, ["--data".to_string(), file.clone()]);
            args
        };
        cases.push(with("baselines --json"));
        cases.push(with("baselines --json --decision sample --runs 3"));
        cases.push(with(
            "baselines --json --resources 0.04,0.2 --metric wndcg --policies lambda,value,kab5,nutch --savings-against lambda",
        ));
        if *hosted {
            cases.push(with("baselines --json --host-cap 2 --metric wfreshness"));
        }
        for policy in FORMULAS
            .iter()
            .chain(&["kab5", "lambda-harmonic", "stormcrawler"])
        {
            let mut args = with("simulate --json --period all --metric wndcg --policy");
            args.push(policy.to_string());
            cases.push(args.clone());
            if *hosted {
                args.extend(words("--host-cap 3 --resources 0.02"));
                cases.push(args);
            }
        }
    }
    let commerce = |rest: &str| {
        let mut args = words(rest);
        args.splice(1..1, words("--data commerce.tsv"));
        args
    };
    cases.push(commerce(
        "requests --policies NAD,lambda,value --learned combined --pages unseen,cold --rotations 2",
    ));
    cases.push(commerce(
        "simulate --json --period all --policy model:model.json",
    ));
    cases.push(commerce(
        "evolve --grammar extended --fitness wndcg --population 40 --generations 4 --json --quiet",
    ));
    cases.push(commerce(
        "evolve --grammar all --fitness ndcg --population 40 --generations 3 --host-cap 2 --json --quiet",
    ));
    cases.push(commerce(
        "evolve --grammar extended --fitness wfreshness --population 30 --generations 3 --no-literature-seeds --seed-formula w*t --json --quiet",
    ));
    cases.push(commerce(
        "evolve --grammar basic --population 20 --generations 2 --no-literature-seeds --gp-config constants.ron --json --quiet",
    ));
    cases.push(commerce(
        "evolve --grammar extended --fitness wndcg --population 30 --generations 3 --gp-config nsga2.ron --json --quiet",
    ));
    cases
}

/// An evolution's JSON without its `seconds` fields, the one thing in it that is not a
/// function of the inputs.
fn without_timings(json: &[u8]) -> Vec<u8> {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("seconds");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(json).unwrap();
    strip(&mut value);
    serde_json::to_vec(&value).unwrap()
}

#[test]
fn outputs_are_bit_for_bit_as_recorded() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        &words("dataset synth --preset commerce --pages 8000 --seed 3 --out commerce.tsv"),
    );
    run(
        dir.path(),
        &words("dataset synth --preset brdc12 --pages 20000 --seed 5 --out brdc12.tsv"),
    );
    let model = words(
        "model train --data commerce.tsv --out model.json --features freq1,freq7,since_change,group:host",
    );
    // The constant search on the best 3 of the hall of fame, 30 evaluations each.
    let constants = "(keep_best: 10, constants: (individuals: 3, evaluations: 30))";
    std::fs::write(dir.path().join("constants.ron"), constants).unwrap();
    std::fs::write(dir.path().join("nsga2.ron"), "(selection: nsga2)").unwrap();
    let mut got = Vec::new();
    for args in std::iter::once(model).chain(cases(repo)) {
        let mut out = run(dir.path(), &args);
        if args[0] == "model" {
            out = std::fs::read(dir.path().join("model.json")).unwrap();
        }
        if args[0] == "evolve" {
            out = without_timings(&out);
        }
        // Paths of this machine are not part of the record.
        let shown = args.join(" ").replace(&format!("{}/", repo.display()), "");
        got.push(format!("{:016x}  {shown}", digest(&out)));
    }
    let path: PathBuf = repo.join(EXPECTED);
    if std::env::var_os("FRESHGP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got.join("\n") + "\n").unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    let expected: Vec<&str> = expected.lines().collect();
    let moved: Vec<String> = got
        .iter()
        .zip(&expected)
        .filter(|(g, e)| g != e)
        .map(|(g, e)| format!("  now {g}\n  was {e}"))
        .collect();
    assert!(
        moved.is_empty() && got.len() == expected.len(),
        "{} of {} outputs moved ({} cases now, {} recorded); rerun a command on both builds \
         to see the difference, or bless a deliberate change (see the module docs):\n{}",
        moved.len(),
        got.len(),
        got.len(),
        expected.len(),
        moved.join("\n")
    );
}
