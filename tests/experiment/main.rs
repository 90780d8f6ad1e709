//! `freshgp experiment` and `freshgp report` on tiny studies, run as a user would:
//! errors, atomic unit files, resume, shards and thread-count independence; studies with
//! weights, host caps, the literature's policies, bandits and budget sweeps in
//! `studies.rs`.

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
    "report.html",
];

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").expect("the freshgp binary is built")
}

fn write_study(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("tiny.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// The error `freshgp experiment` gives for the study `text`; checks that no output was
/// written.
fn refused(dir: &Path, text: &str) -> String {
    let study = write_study(dir, text);
    let out = dir.join("refused");
    let run = freshgp()
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .failure();
    assert!(!out.exists(), "nothing written for a refused study");
    String::from_utf8_lossy(&run.get_output().stderr).into_owned()
}

/// A history of 1,500 `commerce` offers × 21 days in `dir`.
fn commerce_history(dir: &Path) -> PathBuf {
    let data = dir.join("commerce.tsv");
    freshgp()
        .args([
            "dataset", "synth", "--preset", "commerce", "--pages", "1500", "--days", "21",
        ])
        .arg("--out")
        .arg(&data)
        .assert()
        .success();
    data
}

/// `freshgp evolve` of a small search on `data` (the extended grammar, WNDCG, one seed of
/// 12 individuals over 2 generations), for more flags.
fn small_evolve(data: &Path) -> Command {
    let mut cmd = freshgp();
    cmd.arg("evolve").arg("--data").arg(data).args([
        "--grammar",
        "extended",
        "--fitness",
        "wndcg",
        "--population",
        "12",
        "--generations",
        "2",
        "--seeds",
        "1",
        "--quiet",
    ]);
    cmd
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

/// `freshgp experiment STUDY --out OUT` as a process of its own, to be signalled or killed
/// while it runs.
fn experiment_process(study: &Path, out: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("freshgp"));
    command.arg("experiment").arg(study).arg("--out").arg(out);
    command
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

/// Ctrl-C stops a study at its next step: exit status 130, a message that says where the
/// finished units are and how to go on, and `--resume` finishes it with the reports of a
/// run never interrupted.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_study_and_resume_finishes_it() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    // Longer evolutions than TINY's, so that the run is still going when Ctrl-C comes.
    let longer = TINY.replace("generations: 2", "generations: 40");
    let study = write_study(tmp.path(), &longer);
    let a = tmp.path().join("a");
    run(&study, &a, &[]);
    let b = tmp.path().join("b");
    let mut child = experiment_process(&study, &b)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    // The plain progress lines (stderr is no terminal): Ctrl-C once the first unit is done.
    loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "{seen}");
        seen.push_str(&line);
        if line.contains(": done in ") {
            break;
        }
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    stderr.read_to_string(&mut seen).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen}");
    assert!(
        seen.contains("interrupted: the units finished are stored in")
            && seen.contains("run again with --resume"),
        "{seen}"
    );
    let (stored, all) = (unit_files(&b).len(), unit_files(&a).len());
    assert!(stored >= 1 && stored < all, "{stored} of {all} units");
    run(&study, &b, &["--resume"]);
    assert_eq!(unit_files(&a), unit_files(&b));
    assert_same_reports(&a, &b);
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
    let mut child = experiment_process(&study, &b)
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
    // A shard of another study is refused, naming the two directories, no experiment file.
    let other = write_study(tmp.path(), &TINY.replace("seeds: 2", "seeds: 3"));
    let s2 = tmp.path().join("s2");
    run(&other, &s2, &["--shard", "1/2"]);
    let out = freshgp()
        .arg("report")
        .arg(&s0)
        .arg("--merge")
        .arg(&s2)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("holds a different study")
            && stderr.contains(&format!("differs from the study of {}", s0.display()))
            && !stderr.contains("experiment file"),
        "{stderr}"
    );
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
        let done = freshgp()
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
        if task == "1" {
            let said = String::from_utf8_lossy(&done.get_output().stderr).into_owned();
            assert!(
                said.contains("shards run into this directory (--resume) write the report when the last of them ends"),
                "{said}"
            );
        }
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

/// `study.json` records its format; a directory whose study leaves out a setting this
/// version writes (one added after it was written, which reading fills with today's
/// default) is not resumed, but still reports; a complete one without the format key (as
/// written before the key existed) resumes; a newer format is refused.
#[test]
fn a_study_written_before_a_setting_existed_is_not_resumed() {
    let tmp = tempfile::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let out = tmp.path().join("out");
    run(&study, &out, &[]);
    let path = out.join("study.json");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{\n  \"format\": 2,\n"), "{text}");
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let write = |value: &serde_json::Value| {
        std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap()
    };
    let resume = || {
        freshgp()
            .arg("experiment")
            .arg(&study)
            .arg("--out")
            .arg(&out)
            .args(["--resume", "--quiet"])
            .assert()
    };
    // Complete, without the key: as a file of format 1; nothing left to run.
    value.as_object_mut().unwrap().remove("format");
    write(&value);
    resume().success();
    // A setting left out: refused, with the setting named, and the file kept as it was.
    let gp = value["configurations"][0]["gp"].as_object_mut().unwrap();
    gp.remove("literature_seeds");
    write(&value);
    let before = std::fs::read(&path).unwrap();
    let refused = resume().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr
            .contains("written before the setting `configurations[0].gp.literature_seeds` existed")
            && stderr.contains("another --out directory"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // The stored results still report, also merged into a new directory, which keeps the
    // study as written, so that it is not resumed either.
    freshgp().arg("report").arg(&out).assert().success();
    let merged = tmp.path().join("merged");
    (freshgp()
        .arg("report")
        .arg(&merged)
        .arg("--merge")
        .arg(&out))
    .assert()
    .success();
    assert_eq!(std::fs::read(merged.join("study.json")).unwrap(), before);
    let refused = (freshgp()
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(&merged))
    .args(["--resume", "--quiet"])
    .assert()
    .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("written before the setting"), "{stderr}");
    // Nor is it merged with a study written after the setting existed.
    let whole = tmp.path().join("whole");
    run(&study, &whole, &[]);
    let refused = (freshgp().arg("report").arg(&whole).arg("--merge").arg(&out))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("they are not merged") && stderr.contains("literature_seeds"),
        "{stderr}"
    );
    // A newer format is refused by name.
    value["format"] = serde_json::json!(99);
    write(&value);
    let refused = resume().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("format 99, written by a newer freshgp"),
        "{stderr}"
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

/// A weighted history with hosts (docs/src/reference/data.md#page-weights and #hosts): 10
/// hosts of 10 pages, 21 cycles, `BITS<TAB>id<TAB>host<TAB>weight=W` lines.
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

mod robust;
mod sample;
mod studies;
