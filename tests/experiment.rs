//! `freshgp experiment` and `freshgp report` on tiny studies, run as a user would:
//! errors, atomic unit files, resume, shards and thread-count independence.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const TINY: &str = r#"// a tiny study for tests
(
    name: "tiny",
    dataset: Synthetic(preset: "brdc12", pages: 1000, days: 21, seed: 5),
    seeds: 2,
    top_resources: [0.02, 0.05],
    gp: (population: 10, generations: 2, keep_best: 5),
    configurations: [
        (name: "Basic-CR", grammar: "basic", fitness: changerate),
        (name: "All-NDCG", grammar: "all", fitness: ndcg),
    ],
    baselines: [Rand, NAD, AAD],
)
"#;

/// Report files compared between runs (unit files hold wall-clock timings).
const REPORTS: &[&str] = &[
    "summary.md",
    "results.json",
    "cycles.csv",
    "generations.csv",
    "plots/cycles-ndcg.svg",
    "plots/cycles-wndcg.svg",
    "plots/top-changerate.svg",
    "plots/newly-visited.svg",
    "plots/fitness-All-NDCG.svg",
];

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").expect("the freshgp binary is built")
}

fn write_study(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("tiny.ron");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(study: &Path, out: &Path, extra: &[&str]) {
    freshgp()
        .arg("experiment")
        .arg(study)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .assert()
        .success();
}

/// Runs `study` into `out` with `threads` worker threads.
fn run_on_threads(study: &Path, out: &Path, threads: &str) {
    freshgp()
        .env("RAYON_NUM_THREADS", threads)
        .arg("experiment")
        .arg(study)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .assert()
        .success();
}

fn assert_same_reports(a: &Path, b: &Path) {
    for name in REPORTS {
        let (x, y) = (
            std::fs::read(a.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")),
            std::fs::read(b.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")),
        );
        assert!(
            x == y,
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

fn unit_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("units"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

#[test]
fn full_run_writes_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    // 5 baseline units + 2 configurations × 5 rotations × 2 seeds.
    assert_eq!(unit_files(&out).len(), 25);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in [
        "## Table 2",
        "| All-NDCG/sum_sigma | NDCG |",
        "| NAD | (baseline) |",
        "## Table 3",
        "## Table 4",
        "### Basic-CR (fitness ChangeRate",
    ] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}:\n{summary}"
        );
    }
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let methods = results["methods"].as_array().unwrap();
    assert_eq!(methods.len(), 2 * 3 + 3);
    // 21 days: a test period of 7 cycles, 5 scored after the warm-up; 5 rotations.
    assert_eq!(results["cycles_per_rotation"], 5);
    assert_eq!(methods[0]["ndcg"]["n"], 25);
    assert_eq!(methods[0]["chosen"].as_array().unwrap().len(), 5);
    // ChangeRate, NDCG, WFreshness and WNDCG (freshgp::report::COMPARED).
    assert_eq!(results["comparisons"].as_array().unwrap().len(), 6 * 3 * 4);
    // Each of the 2 × 3 GP methods against the other configuration's method of its
    // strategy, on the 4 compared metrics (Table 3b).
    let between = results["between_configurations"].as_array().unwrap();
    assert_eq!(between.len(), 6 * 4);
    assert_eq!(between[0]["method"], "Basic-CR/best");
    assert_eq!(between[0]["baseline"], "All-NDCG/best");
    assert!(summary.contains("## Table 3b: per-cycle victories between configurations"));
    assert!(
        summary.contains("| Basic-CR/best | All-NDCG/best |"),
        "{summary}"
    );
    // The brdc12 preset has page weights: the weighted metrics differ from the unweighted
    // ones, and the report says what they would be without weights.
    assert_ne!(methods[0]["wndcg"], methods[0]["ndcg"]);
    assert!(
        summary.contains("| ChangeRate | NDCG | Freshness | WFreshness | WNDCG |")
            && summary.contains("without page weights they would equal Freshness and NDCG"),
        "{summary}"
    );
    let csv = std::fs::read_to_string(out.join("cycles.csv")).unwrap();
    // 9 methods × (1 + 2 resources levels) × 5 rotations × 5 cycles, plus the header.
    assert_eq!(csv.lines().count(), 1 + 9 * 3 * 5 * 5);
    let svg = std::fs::read_to_string(out.join("plots/cycles-changerate.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("All-NDCG/best"));
}

#[test]
fn misspelt_field_names_field_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), &TINY.replace("seeds: 2", "sedes: 2"));
    let out = freshgp()
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("tiny.ron:5:"), "{stderr}");
    assert!(stderr.contains("sedes"), "{stderr}");
    let study = write_study(tmp.path(), &TINY.replace("population: 10", "population: 1"));
    let out = freshgp()
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("tiny.ron:7: gp.population"), "{stderr}");
    assert!(
        !tmp.path().join("out").exists(),
        "nothing written for a bad file"
    );
}

#[test]
fn resume_after_losing_units_gives_identical_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let a = tmp.path().join("a");
    run(&study, &a, &[]);
    // A copy of the directory with some units and every report removed, as if the run had
    // been killed.
    let b = tmp.path().join("b");
    std::fs::create_dir_all(b.join("units")).unwrap();
    std::fs::copy(a.join("study.json"), b.join("study.json")).unwrap();
    for (i, name) in unit_files(&a).iter().enumerate() {
        if i % 3 != 1 {
            std::fs::copy(a.join("units").join(name), b.join("units").join(name)).unwrap();
        }
    }
    // A stray temporary file of a killed write is ignored.
    std::fs::write(
        b.join("units").join(".All-NDCG-r0-s1.json.99.tmp"),
        "{\"trunc",
    )
    .unwrap();
    // Without --resume the directory is refused.
    let out = freshgp()
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(&b)
        .arg("--quiet")
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("--resume"), "{stderr}");
    run(&study, &b, &["--resume"]);
    assert_eq!(unit_files(&a), unit_files(&b));
    assert_same_reports(&a, &b);
}

#[test]
fn killed_run_leaves_only_whole_units_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let a = tmp.path().join("a");
    run(&study, &a, &[]);
    let b = tmp.path().join("b");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("freshgp"))
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(&b)
        .arg("--quiet")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < 60 {
        if b.join("units").exists() && unit_files(&b).len() >= 7 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    for name in unit_files(&b) {
        let bytes = std::fs::read(b.join("units").join(&name)).unwrap();
        serde_json::from_slice::<serde_json::Value>(&bytes)
            .unwrap_or_else(|e| panic!("{name} is not whole: {e}"));
    }
    run(&study, &b, &["--resume"]);
    assert_same_reports(&a, &b);
}

#[test]
fn shards_merge_into_the_unsharded_report() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let whole = tmp.path().join("whole");
    run(&study, &whole, &[]);
    let s0 = tmp.path().join("s0");
    let s1 = tmp.path().join("s1");
    run(&study, &s0, &["--shard", "0/2"]);
    run(&study, &s1, &["--shard", "1/2"]);
    let (n0, n1) = (unit_files(&s0).len(), unit_files(&s1).len());
    assert_eq!((n0, n1), (13, 12));
    assert!(
        !s0.join("summary.md").exists(),
        "an incomplete shard writes no report"
    );
    // An incomplete directory cannot be reported.
    let out = freshgp().arg("report").arg(&s0).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("12 of 25 units are not finished"),
        "{stderr}"
    );
    // Merge both into a fresh directory.
    let merged = tmp.path().join("merged");
    freshgp()
        .arg("report")
        .arg(&merged)
        .arg("--merge")
        .arg(&s0)
        .arg("--merge")
        .arg(&s1)
        .assert()
        .success();
    assert_same_reports(&whole, &merged);
    // Merging the other shard into the first also works.
    freshgp()
        .arg("report")
        .arg(&s0)
        .arg("--merge")
        .arg(&s1)
        .assert()
        .success();
    assert_same_reports(&whole, &s0);
}

/// `--shard auto` in a Slurm array (`sbatch --array=1-2`): each task runs its shard into
/// one shared directory with `--resume`, and the last one writes the report.
#[test]
fn slurm_array_tasks_shard_a_study_into_one_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let whole = tmp.path().join("whole");
    run(&study, &whole, &[]);
    let shared = tmp.path().join("shared");
    for task in ["1", "2"] {
        freshgp()
            .env("SLURM_ARRAY_TASK_ID", task)
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_MAX", "2")
            .env("SLURM_ARRAY_TASK_STEP", "1")
            .args(["experiment", "--shard", "auto", "--resume", "--out"])
            .arg(&shared)
            .arg(&study)
            .assert()
            .success();
        let expected = if task == "1" { 13 } else { 25 };
        assert_eq!(unit_files(&shared).len(), expected, "after task {task}");
    }
    assert_same_reports(&whole, &shared);
    // Outside Slurm, `auto` says what it needs.
    let out = freshgp()
        .env_remove("SLURM_ARRAY_TASK_ID")
        .args(["experiment", "--shard", "auto", "--out"])
        .arg(tmp.path().join("nowhere"))
        .arg(&study)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("--shard auto") && stderr.contains("SLURM_ARRAY_TASK_ID is not set"),
        "{stderr}"
    );
    assert!(!tmp.path().join("nowhere").exists());
}

#[test]
fn a_different_study_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let out = tmp.path().join("out");
    run(&study, &out, &["--shard", "0/5"]);
    let other = write_study(
        tmp.path(),
        &TINY.replace("generations: 2", "generations: 3"),
    );
    let result = freshgp()
        .arg("experiment")
        .arg(&other)
        .arg("--out")
        .arg(&out)
        .arg("--resume")
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&result.get_output().stderr).into_owned();
    assert!(
        stderr.contains("holds a different study")
            && stderr.contains("`configurations[0].gp.generations` differs")
            && stderr.contains("(stored 2, file 3)"),
        "{stderr}"
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        run_on_threads(&study, dir, threads);
    }
    assert_same_reports(&one, &two);
}

#[test]
fn shipped_experiment_files_are_valid() {
    use freshgp::experiment::study::Study;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    for name in [
        "quick.ron",
        "paper.ron",
        "scoop.ron",
        "endoflife.ron",
        "contrib.ron",
        "pga.ron",
    ] {
        let study = Study::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(study.rotations, [0, 1, 2, 3, 4], "{name}");
        assert_eq!(study.configurations.len(), 4, "{name}");
        assert_eq!(study.baselines.len(), 7, "{name}");
    }
    let paper = Study::load(&dir.join("paper.ron")).unwrap();
    let gp = &paper.configurations[0].gp;
    assert_eq!((gp.population, gp.generations, gp.keep_best), (300, 50, 50));
    assert_eq!(paper.configurations[3].seeds, [1, 2, 3, 4, 5]);
}

#[test]
fn scoop_study_runs_on_the_real_file() {
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/real/ScoopInstaller+Main.57.tsv"
    );
    assert!(Path::new(data).exists(), "{data}");
    // experiments/scoop.ron, scaled down: same dataset, 1 seed, a tiny GP.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/scoop.ron"
    ))
    .unwrap()
    .replace("seeds: 5", "seeds: 1")
    .replace(
        "gp: (population: 300, generations: 50)",
        "gp: (population: 8, generations: 1, keep_best: 4)",
    );
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("scoop.ron");
    let relative = "../datasets/real/ScoopInstaller+Main.57.tsv";
    assert!(text.contains(relative));
    std::fs::write(&study, text.replace(relative, data)).unwrap();
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["dataset"][0], 1590);
    assert_eq!(results["cycles_per_rotation"], 17);
}

/// `freshgp report DIR` on a directory whose `study.json` was edited into a broken study:
/// exit status 2 and an error naming `path` and `field`, never a panic.
fn report_refuses(dir: &Path, field: &str) {
    let out = freshgp()
        .arg("report")
        .arg(dir)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(!text.contains("panicked"), "{text}");
    let file = dir.join("study.json").display().to_string();
    assert!(
        text.contains(&file) && text.contains(field),
        "stderr lacks {file} and {field}:\n{text}"
    );
}

#[test]
fn an_edited_study_json_is_checked_when_read() {
    use freshgp::experiment::study::Study;
    let study = Study::from_ron(TINY, "tiny.ron").unwrap();
    let good = serde_json::to_value(&study).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 4] = [
        ("configurations[0].seeds", |v| {
            v["configurations"][0]["seeds"] = serde_json::json!([])
        }),
        ("rotations", |v| v["rotations"] = serde_json::json!([0, 7])),
        ("configurations[1].population", |v| {
            v["configurations"][1]["gp"]["population"] = serde_json::json!(1)
        }),
        ("unknown", |v| v["unknown"] = serde_json::json!("sometimes")),
    ];
    for (k, (field, edit)) in edits.into_iter().enumerate() {
        let dir = tmp.path().join(format!("out{k}"));
        std::fs::create_dir_all(dir.join("units")).unwrap();
        let mut value = good.clone();
        edit(&mut value);
        std::fs::write(dir.join("study.json"), value.to_string()).unwrap();
        report_refuses(
            &dir,
            if field == "unknown" {
                "sometimes"
            } else {
                field
            },
        );
    }
}

/// A weighted history with hosts (SPEC §1, §8): 10 hosts of 10 pages, 21 cycles,
/// `BITS<TAB>id<TAB>host<TAB>weight=W` lines.
fn weighted_history(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for p in 0..100usize {
        let host = p % 10;
        let bits: String = (0..21usize)
            .map(|d| {
                if (p * 31 + d * 17 + (p * d) % 7) % 13 <= host {
                    '1'
                } else {
                    '0'
                }
            })
            .collect();
        text += &format!(
            "{bits}\tp{p}\th{host}.example\tweight={}\n",
            1 + (p * 7) % 5
        );
    }
    let path = dir.join("weighted.tsv");
    std::fs::write(&path, text).unwrap();
    path
}

const POLITE: &str = r#"(
    name: "polite",
    dataset: Path("weighted.tsv"),
    resources: 0.2,
    host_cap: 2,
    top_resources: [0.1, 0.2],
    seeds: 1,
    gp: (population: 8, generations: 1, keep_best: 4),
    configurations: [
        (name: "All-WNDCG", grammar: "extended", fitness: wndcg),
        (name: "All-WFresh", grammar: "all", fitness: wfreshness),
    ],
    baselines: [Rand, NAD],
)
"#;

#[test]
fn a_weighted_fitness_under_a_host_cap_runs_and_reports() {
    let tmp = tempfile::tempdir().unwrap();
    weighted_history(tmp.path());
    let study = write_study(tmp.path(), POLITE);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in [
        "host cap 2 (at most 2 pages of one host",
        "fitness WNDCG",
        "| All-WNDCG/best | WNDCG |",
        "| All-WFresh/best | WFreshness |",
        "### WNDCG",
        "### WFreshness",
        "without page weights they would equal Freshness and NDCG",
    ] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}:\n{summary}"
        );
    }
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["study"]["sim"]["host_cap"], 2);
    assert_eq!(results["study"]["configurations"][0]["fitness"], "wndcg");
    let best = &results["methods"][0];
    assert_ne!(best["wndcg"]["mean"], best["ndcg"]["mean"]);
    assert!(best["top"][0]["wndcg"]["mean"].is_f64());
    let csv = std::fs::read_to_string(out.join("cycles.csv")).unwrap();
    assert!(csv.starts_with("method,kind,configuration,strategy,fitness,rotation,resources,position,cycle,change_rate,ndcg,freshness,newly_visited,stale,visited,wfreshness,wndcg\n"));
    for plot in ["plots/cycles-wndcg.svg", "plots/top-wndcg.svg"] {
        let svg = std::fs::read_to_string(out.join(plot)).unwrap();
        assert!(svg.contains("All-WNDCG/best"), "{plot}");
    }
    // Another cap is another study: resuming with it is refused.
    let other = write_study(tmp.path(), &POLITE.replace("host_cap: 2", "host_cap: 3"));
    let refused = freshgp()
        .arg("experiment")
        .arg(&other)
        .arg("--out")
        .arg(&out)
        .arg("--resume")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("holds a different study")
            && stderr.contains("`sim.host_cap` differs")
            && stderr.contains("(stored 2, file 3)"),
        "{stderr}"
    );
    // A cap of 0 names the file, the line and the field.
    let zero = write_study(tmp.path(), &POLITE.replace("host_cap: 2", "host_cap: 0"));
    let refused = freshgp().arg("experiment").arg(&zero).assert().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("tiny.ron:5: host_cap: the host cap must be at least 1"),
        "{stderr}"
    );
}

#[test]
fn units_written_before_the_weighted_metrics_still_report() {
    let tmp = tempfile::tempdir().unwrap();
    // Units from before SPEC §8 were simulated without weights: the tiny history without
    // its weight column.
    let history = tmp.path().join("weighted.tsv");
    freshgp()
        .args(["dataset", "synth", "--preset", "brdc12", "--pages", "1000"])
        .args(["--days", "21", "--seed", "5", "--out"])
        .arg(&history)
        .assert()
        .success();
    let plain: String = std::fs::read_to_string(&history)
        .unwrap()
        .lines()
        .map(|line| line.split("\tweight=").next().unwrap().to_string() + "\n")
        .collect();
    std::fs::write(tmp.path().join("plain.tsv"), plain).unwrap();
    let study = write_study(
        tmp.path(),
        &TINY
            .replace("seeds: 2,", "seeds: 1,\n    rotations: [0, 1],")
            .replace(
                r#"Synthetic(preset: "brdc12", pages: 1000, days: 21, seed: 5)"#,
                r#"Path("plain.tsv")"#,
            ),
    );
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("here they equal Freshness and NDCG in every cycle"),
        "{summary}"
    );
    let before: Vec<Vec<u8>> = REPORTS
        .iter()
        .map(|name| std::fs::read(out.join(name)).unwrap())
        .collect();
    // Rewrite every unit file as freshgp wrote it before SPEC §8: cycles without `wndcg`
    // and `wfreshness`.
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("wndcg");
                map.remove("wfreshness");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    for name in unit_files(&out) {
        let path = out.join("units").join(&name);
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        strip(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap();
        assert!(!text.contains("wndcg"), "{name}");
        std::fs::write(&path, text).unwrap();
    }
    let study_json = std::fs::read_to_string(out.join("study.json")).unwrap();
    assert!(!study_json.contains("host_cap"), "{study_json}");
    for name in REPORTS {
        std::fs::remove_file(out.join(name)).unwrap();
    }
    freshgp().arg("report").arg(&out).assert().success();
    for (name, bytes) in REPORTS.iter().zip(before) {
        assert!(
            std::fs::read(out.join(name)).unwrap() == bytes,
            "{name} differs after reading the old unit format"
        );
    }
}

#[test]
fn a_study_compares_the_literatures_policies_as_methods() {
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY.replace("seeds: 2", "seeds: 1").replace(
        "baselines: [Rand, NAD, AAD]",
        r#"baselines: [NAD, lambda, lambda_harmonic, value, nutch,
        adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5), formula("w * t")]"#,
    );
    let study = write_study(tmp.path(), &text);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let methods: Vec<&str> = results["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "baseline")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    let adaptive = "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)";
    assert_eq!(
        methods,
        [
            "NAD",
            "lambda",
            "lambda-harmonic",
            "value",
            "nutch",
            adaptive,
            "w * t"
        ]
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in ["| lambda |", "lambda-harmonic", "| w * t |"] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}:\n{summary}"
        );
    }
    // study.json stores them as text, and the study reads back (resume: nothing to do).
    let stored = std::fs::read_to_string(out.join("study.json")).unwrap();
    assert!(stored.contains(r#""lambda-harmonic""#), "{stored}");
    run(&study, &out, &["--resume"]);
    // A misspelt policy is an error naming the file, line and the known names.
    let bad = write_study(
        tmp.path(),
        &TINY.replace("[Rand, NAD, AAD]", "[Rand, lamda]"),
    );
    let err = freshgp()
        .arg("experiment")
        .arg(&bad)
        .arg("--out")
        .arg(tmp.path().join("bad"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("tiny.ron:") && err.contains("unknown policy `lamda`"),
        "{err}"
    );
}

fn fails(args: &[&std::ffi::OsStr]) -> String {
    let out = freshgp()
        .args(args)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn results_of_other_data_are_never_mixed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = weighted_history(tmp.path());
    let study = write_study(tmp.path(), POLITE);
    let out = tmp.path().join("out");
    // A shard on the data as it is now.
    run(&study, &out, &["--shard", "0/2"]);
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("dataset.json")).unwrap()).unwrap();
    let fingerprint = record["fingerprint"].as_str().unwrap().to_string();
    assert_eq!(
        (record["pages"].clone(), record["cycles"].clone()),
        (100.into(), 21.into())
    );
    let unit = std::fs::read_to_string(out.join("units/baselines-r0.json")).unwrap();
    assert!(unit.contains(&fingerprint), "units carry the fingerprint");

    // The data change (one weight); the other shard runs on them elsewhere.
    let text = std::fs::read_to_string(&data)
        .unwrap()
        .replacen("weight=1", "weight=9", 1);
    std::fs::write(&data, text).unwrap();
    let other = tmp.path().join("other");
    run(&study, &other, &["--shard", "1/2"]);
    let theirs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(other.join("dataset.json")).unwrap()).unwrap();
    assert_ne!(theirs["fingerprint"], record["fingerprint"]);

    // Resuming the first directory on the changed data is refused, naming both.
    let err = fails(&[
        "experiment".as_ref(),
        study.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--resume".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert!(
        err.contains("holds results computed on another dataset")
            && err.contains(&format!("fingerprint {fingerprint}"))
            && err.contains(theirs["fingerprint"].as_str().unwrap()),
        "{err}"
    );
    // So is merging the shards.
    let err = fails(&[
        "report".as_ref(),
        out.as_os_str(),
        "--merge".as_ref(),
        other.as_os_str(),
    ]);
    assert!(
        err.contains("another dataset") && err.contains("other"),
        "{err}"
    );
    // Units copied in by hand are caught by the report.
    for entry in std::fs::read_dir(other.join("units")).unwrap() {
        let name = entry.unwrap().file_name();
        let target = out.join("units").join(&name);
        if !target.exists() {
            std::fs::copy(other.join("units").join(&name), target).unwrap();
        }
    }
    let err = fails(&["report".as_ref(), out.as_os_str()]);
    assert!(
        err.contains("was computed on the dataset of fingerprint"),
        "{err}"
    );
}

#[test]
fn ranges_that_depend_on_the_size_are_checked_when_the_study_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    for (from, to, says) in [
        (
            "seeds: 2,",
            "seeds: 2,\n    warmup: 30,",
            "tiny.ron:6: warmup: 30 warm-up cycles leave no cycle to score in periods of 7 cycles (21 days in 3 periods)",
        ),
        (
            "top_resources: [0.02, 0.05],",
            "top_resources: [0.001, 0.05],",
            "tiny.ron:6: top_resources: 0.001 of the smallest set (200 pages) is less than one visit a cycle",
        ),
    ] {
        let study = write_study(tmp.path(), &TINY.replace(from, to));
        let err = fails(&[
            "experiment".as_ref(),
            study.as_os_str(),
            "--out".as_ref(),
            tmp.path().join("out").as_os_str(),
        ]);
        assert!(err.contains(says), "{err}");
        assert!(!tmp.path().join("out").exists(), "nothing was written");
    }
    // A default warm-up that the dataset's days rule out points at the dataset.
    let study = write_study(tmp.path(), &TINY.replace("days: 21", "days: 6"));
    let err = fails(&["experiment".as_ref(), study.as_os_str()]);
    assert!(
        err.contains("tiny.ron:4: warmup: 2 warm-up cycles leave no cycle to score in periods of 2 cycles (6 days"),
        "{err}"
    );
    // A file dataset too: its size is read with the study.
    weighted_history(tmp.path());
    let study = write_study(
        tmp.path(),
        &POLITE.replace("resources: 0.2,", "resources: 0.2,\n    warmup: 7,"),
    );
    let err = fails(&["experiment".as_ref(), study.as_os_str()]);
    assert!(
        err.contains(
            "tiny.ron:5: warmup: 7 warm-up cycles leave no cycle to score in periods of 7 cycles"
        ),
        "{err}"
    );
}

/// A study of bandits (SPEC §10): presets among the baselines, a configuration's evolved
/// formula as one more arm (`kab3+gp`), tested over the whole history; the report shows
/// each bandit's arms and plots their probabilities; thread counts change nothing.
#[test]
fn a_bandit_study_tests_over_the_whole_history_with_the_evolved_arm() {
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY
        .replace("seeds: 2", "seeds: 1")
        .replace("days: 21", "days: 40")
        .replace("top_resources: [0.02, 0.05],", "top_resources: [0.02],\n    test_horizon: whole,\n    metric: wndcg,")
        .replace(
            r#"(name: "All-NDCG", grammar: "all", fitness: ndcg),"#,
            r#"(name: "All-NDCG", grammar: "all", fitness: ndcg, bandits: [kab3]),"#,
        )
        .replace(
            "baselines: [Rand, NAD, AAD]",
            "baselines: [uniform, change, weight, kab3, exp3(arms: [kab2, NAD], gamma: 0.2, reward: changerate)]",
        );
    let study = write_study(tmp.path(), &text);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        run_on_threads(&study, dir, threads);
    }
    let plots = ["plots/arms-kab3.svg", "plots/arms-All-NDCG-best-kab3.svg"];
    for file in [
        "summary.md",
        "results.json",
        "cycles.csv",
        "arms.csv",
        plots[0],
        plots[1],
    ] {
        assert_eq!(
            std::fs::read(one.join(file)).unwrap_or_else(|e| panic!("{file}: {e}")),
            std::fs::read(two.join(file)).unwrap(),
            "{file}"
        );
    }
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("results.json")).unwrap()).unwrap();
    // The whole history: 40 cycles, 2 of warm-up.
    assert_eq!(results["cycles_per_rotation"], 38);
    let methods = results["methods"].as_array().unwrap();
    let method = |name: &str| {
        methods
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("no method {name}"))
    };
    let gp = method("All-NDCG/best+kab3");
    assert_eq!(gp["arms"].as_array().unwrap().len(), 4);
    assert_eq!(gp["arms"][3], "All-NDCG/best");
    // The bandit is compared with its evolved arm alone too.
    let compared = results["bandits_vs_arms"].as_array().unwrap();
    assert!(compared
        .iter()
        .any(|c| c["bandit"] == "All-NDCG/best+kab3" && c["arm"] == "All-NDCG/best"));
    let kab3 = method("kab3");
    let shares: Vec<f64> = kab3["arm_shares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_f64().unwrap())
        .collect();
    assert_eq!(shares.len(), 3);
    assert!(
        (shares.iter().sum::<f64>() - 1.0).abs() < 1e-9,
        "{shares:?}"
    );
    assert!(method("uniform")["arms"].is_null());
    // arms.csv: a row per bandit method, rotation and scored cycle.
    let arms = std::fs::read_to_string(one.join("arms.csv")).unwrap();
    let bandit_methods = methods.iter().filter(|m| m["arms"].is_array()).count();
    assert_eq!(arms.lines().count(), 1 + bandit_methods * 5 * 38);
    assert!(
        arms.starts_with("method,rotation,position,cycle,arm,arm_name,reward,q0,q1,q2,q3\n"),
        "{arms}"
    );
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(summary.contains("## Bandits (SPEC §10)"), "{summary}");
    assert!(summary.contains("### All-NDCG/best+kab3"), "{summary}");
    // A configuration's `bandits` must be bandits.
    let twice = write_study(
        tmp.path(),
        &text.replace("bandits: [kab3]", "bandits: [kab3, kab3]"),
    );
    let err = fails(&[
        "experiment".as_ref(),
        twice.as_os_str(),
        "--out".as_ref(),
        tmp.path().join("twice").as_os_str(),
    ]);
    assert!(err.contains("`kab3` is listed twice"), "{err}");
    let bad = write_study(
        tmp.path(),
        &text.replace("bandits: [kab3]", "bandits: [lambda]"),
    );
    let err = fails(&[
        "experiment".as_ref(),
        bad.as_os_str(),
        "--out".as_ref(),
        tmp.path().join("bad").as_os_str(),
    ]);
    assert!(err.contains("`lambda` is no bandit"), "{err}");
}

/// The shipped bandit studies (SPEC §10) read, with their bandits, long horizon and
/// evolved arm.
#[test]
fn shipped_bandit_studies_are_valid() {
    use freshgp::data::split::Horizon;
    use freshgp::experiment::study::Study;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    for name in [
        "bandit.ron",
        "bandit-commerce.ron",
        "bandit-scoop.ron",
        "bandit-contrib.ron",
    ] {
        let study = Study::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(study.test_horizon, Horizon::Whole, "{name}");
        assert_eq!(
            study.sim.metric(),
            freshgp::metric::Metric::WFreshness,
            "{name}"
        );
        let bandits = study
            .baselines
            .iter()
            .filter(|b| b.bandit().is_some())
            .count();
        assert_eq!(bandits, 4, "{name}");
        assert_eq!(study.configurations[0].bandits.len(), 1, "{name}");
    }
}

/// SPEC §11 in a study: a budget sweep with sampled decisions, repeated runs, a Wilcoxon
/// reference and savings; the report has the tables, the JSON figures and the log-axis
/// plots, identical at 1 and 2 threads.
#[test]
fn a_budget_sweep_with_runs_and_savings_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"(
        name: "sweep",
        dataset: Synthetic(preset: "commerce", pages: 1000, days: 21, seed: 2),
        rotations: [0, 1],
        resources: [0.005, 0.05, 0.5],
        train_resources: 0.1,
        decision: sample,
        runs: 4,
        reference: lambda,
        savings: [lambda, nutch],
        metric: wfreshness,
        seeds: 1,
        gp: (population: 8, generations: 1),
        configurations: [(name: "All-NDCG", grammar: "extended", fitness: wfreshness)],
        baselines: [uniform, lambda, nutch, kab3],
        reports: (strategies: [best, sum_sigma]),
    )"#;
    let study = write_study(tmp.path(), text);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        run_on_threads(&study, dir, threads);
    }
    assert_same_reports(&one, &two);
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(summary.contains("## Budgets (SPEC §11)"), "{summary}");
    assert!(summary.contains("| 0.5% | 5% | 10% | 50% |"), "{summary}");
    assert!(
        summary.contains("## Savings at equal WFreshness"),
        "{summary}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("results.json")).unwrap()).unwrap();
    let methods = json["methods"].as_array().unwrap();
    let uniform = methods.iter().find(|m| m["name"] == "uniform").unwrap();
    let budgets = uniform["budgets"].as_array().unwrap();
    assert_eq!(budgets.len(), 4, "every budget, the training one included");
    let w = budgets[1]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "wfreshness")
        .unwrap();
    let (low, median, high) = (
        w["low"].as_f64().unwrap(),
        w["median"].as_f64().unwrap(),
        w["high"].as_f64().unwrap(),
    );
    assert!(low <= median && median <= high && low < high, "{w}");
    let p = w["wilcoxon_p"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
    // Four paired runs: the exact two-sided p-values are multiples of 2/16.
    assert!(((p * 8.0) - (p * 8.0).round()).abs() < 1e-12, "{p}");
    let savings = uniform["savings"].as_array().unwrap();
    assert_eq!(savings.len(), 2);
    for s in savings {
        if let Some(saved) = s["savings"].as_f64() {
            assert!((0.0..1.0).contains(&saved), "{s}");
            assert!(s["reaches_at"].as_f64().unwrap() <= 0.1);
        }
    }
    // The evolved formula is tested at every budget too; plots show one strategy.
    let x = methods
        .iter()
        .find(|m| m["name"] == "All-NDCG/best")
        .unwrap();
    assert_eq!(x["budgets"].as_array().unwrap().len(), 4);
    let plot = std::fs::read_to_string(one.join("plots/budgets-wfreshness.svg")).unwrap();
    assert!(
        plot.contains("log scale")
            && plot.contains("All-NDCG/best")
            && !plot.contains("All-NDCG/sum_sigma")
    );
}

/// SPEC §11's study fields refuse what cannot work, naming the field.
#[test]
fn sweep_fields_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let base = r#"(
        name: "s",
        dataset: Synthetic(preset: "commerce", pages: 500, days: 21, seed: 2),
        resources: [0.05, 0.1],
        runs: 3,
        configurations: [(name: "X", grammar: "all", fitness: ndcg)],
        baselines: [NAD, lambda],
        reference: lambda,
    )"#;
    for (edit, field) in [
        (
            base.replace("reference: lambda", "reference: nutch"),
            "reference",
        ),
        (base.replace("runs: 3", "runs: 0"), "runs"),
        (base.replace("runs: 3", "runs: 3, tie_seed: 4"), "runs"),
        (
            base.replace(
                "resources: [0.05, 0.1]",
                "resources: [0.05], top_resources: [0.01]",
            ),
            "top_resources",
        ),
        (
            base.replace(
                "resources: [0.05, 0.1]",
                "resources: 0.05, train_resources: 0.1",
            ),
            "train_resources",
        ),
        (
            base.replace("runs: 3", "decision: sample, host_cap: 2"),
            "decision",
        ),
        (
            base.replace("reference: lambda", "savings: [value]"),
            "savings",
        ),
    ] {
        let study = write_study(tmp.path(), &edit);
        let out = freshgp()
            .arg("experiment")
            .arg(&study)
            .arg("--out")
            .arg(tmp.path().join("o"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(field),
            "{field}: {err}"
        );
    }
}
