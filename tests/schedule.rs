//! The scheduler as a crawler uses it: equal to the simulation on a real history, saved
//! and restarted without losing anything, and driven through `freshgp schedule`.

use assert_cmd::Command;
use freshgp::data::{self, Dataset, LoadOptions};
use freshgp::formula::{Closure, Formula};
use freshgp::policy::{Baseline, Policy};
use freshgp::schedule::{ScheduleError, Scheduler, StateError};
use freshgp::sim::{Period, SimConfig, Simulator};
use std::path::{Path, PathBuf};

const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/real/ScoopInstaller+Main.57.tsv"
);

fn real() -> Dataset {
    data::load(Path::new(REAL), &LoadOptions::default())
        .unwrap()
        .dataset
}

fn ids(d: &Dataset) -> Vec<String> {
    (0..d.pages())
        .map(|p| d.id(p).map_or_else(|| format!("page{p}"), str::to_string))
        .collect()
}

fn rules() -> Vec<Policy> {
    let f: Formula = "(t * X + CG) / (n + 1) - exp(-NAD * t)".parse().unwrap();
    let g: Formula = "X / (n + 0.5) * log(t + 1) + GAD * SAD".parse().unwrap();
    vec![
        Policy::formula(&f, Closure::Paper),
        Policy::formula(&g, Closure::Reference),
        Policy::from(Baseline::Nad),
        Policy::from(Baseline::Age),
        Policy::from(Baseline::Cg),
        Policy::from(Baseline::Rand),
    ]
}

/// A crawler over `period`: warm-up days download everything, later days download the
/// scheduler's batch. `restart_at`: save and reload the state before that day.
/// Returns each scheduled day's batch.
fn crawl(
    period: &Period,
    ids: &[String],
    rule: &Policy,
    config: &SimConfig,
    restart_at: Option<(u32, &Path)>,
) -> Vec<Vec<String>> {
    let mut s: Scheduler = Scheduler::new(rule.clone()).with_seed(config.seed());
    for id in ids {
        s.add(id.clone()).unwrap();
    }
    let mut stale = vec![false; ids.len()];
    let mut batches = Vec::new();
    for day in 1..=period.len() as u32 {
        if let Some((at, path)) = restart_at {
            if day == at {
                s.save(path).unwrap();
                s = Scheduler::load(path).unwrap();
            }
        }
        for &p in period.changes(day as usize) {
            stale[p as usize] = true;
        }
        let batch = if day as usize <= config.warmup() {
            ids.to_vec()
        } else {
            let b = s.next_batch(day, config.k(ids.len())).unwrap();
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

#[test]
fn batches_are_the_simulations_visits_on_a_real_history() {
    let d = real();
    let ids = ids(&d);
    let period = Period::whole(&d).unwrap();
    for config in [SimConfig::paper(), SimConfig::paper().with_seed(77)] {
        let sim = Simulator::new(config);
        for rule in rules() {
            let (_, visits) = sim.run_reference_traced(&period, &rule).unwrap();
            let expected: Vec<Vec<String>> = visits
                .iter()
                .map(|v| v.iter().map(|&p| ids[p as usize].clone()).collect())
                .collect();
            assert_eq!(expected.len(), period.len() - 2);
            let got = crawl(&period, &ids, &rule, &config, None);
            assert_eq!(got, expected, "{rule}, seed {}", config.seed());
        }
    }
}

#[test]
fn the_state_survives_a_restart() {
    let d = real();
    let ids = ids(&d);
    let period = Period::whole(&d).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawler.state");
    let config = SimConfig::paper().with_seed(3);
    for rule in rules() {
        let straight = crawl(&period, &ids, &rule, &config, None);
        let restarted = crawl(&period, &ids, &rule, &config, Some((30, &path)));
        assert_eq!(restarted, straight, "{rule}");
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["crawler.state"], "no temporary file left behind");
}

fn small() -> Scheduler {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Nad)).with_seed(4);
    for (i, page) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        s.add_with_host(page.to_string(), if i < 3 { "x.org" } else { "y.org" })
            .unwrap();
    }
    for day in 1..=4u32 {
        for (i, page) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            s.observe(*page, day, (day as usize + i).is_multiple_of(3))
                .unwrap();
        }
    }
    s
}

#[test]
fn save_and_load_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.state");
    let mut s = small();
    s.remove("c").unwrap();
    s.save(&path).unwrap();
    let mut back: Scheduler = Scheduler::load(&path).unwrap();
    assert_eq!(back.len(), 4);
    assert_eq!((back.seed(), back.latest_cycle()), (4, 4));
    for page in ["a", "b", "d", "e"] {
        assert_eq!(back.stats(page), s.stats(page));
        assert_eq!(back.host(page), s.host(page));
    }
    assert!(!back.contains("c"));
    assert_eq!(
        back.next_batch_scored(5, 4, Some(1)).unwrap(),
        s.next_batch_scored(5, 4, Some(1)).unwrap()
    );
    // Both reuse the same freed slot next.
    assert_eq!(back.add("f".into()), s.add("f".into()));
    // Overwriting keeps working (rename over an existing file).
    back.save(&path).unwrap();
    let again: Scheduler = Scheduler::load(&path).unwrap();
    assert_eq!(again.len(), 5);
}

#[test]
fn damaged_or_foreign_state_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.state");
    small().save(&path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let name = path.display().to_string();
    let reason_of = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        let err = Scheduler::<String>::load(&path).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with(&name), "{text}");
        match err {
            StateError::Corrupt { reason, .. } => reason,
            other => panic!("{other:?}"),
        }
    };
    assert!(reason_of(&good[..good.len() / 2]).contains("truncated"));
    let mut flipped = good.clone();
    let middle = good.len() / 2;
    flipped[middle] ^= 1;
    assert!(reason_of(&flipped).contains("checksum"));
    assert!(reason_of(b"0101\tpage\n").contains("magic"));
    assert!(reason_of(b"").contains("magic"));
    let missing = dir.path().join("absent.state");
    assert!(matches!(
        Scheduler::<String>::load(&missing),
        Err(StateError::Io { file, .. }) if file == missing.display().to_string()
    ));
}

#[test]
fn host_cap_and_page_set_changes() {
    let mut s = small();
    let free = s.next_batch(5, 5).unwrap();
    assert_eq!(free.len(), 5);
    let capped = s.next_batch_capped(5, 4, Some(2)).unwrap();
    assert_eq!(capped.len(), 4);
    for host in ["x.org", "y.org"] {
        let n = capped
            .iter()
            .filter(|p| s.host(p.as_str()) == Some(host))
            .count();
        assert_eq!(n, 2, "{host} in {capped:?}");
    }
    // The capped batch is the uncapped ranking with over-cap pages skipped.
    let mut per_host = std::collections::HashMap::new();
    let expected: Vec<String> = free
        .iter()
        .filter(|p| {
            let n = per_host.entry(s.host(p.as_str()).unwrap()).or_insert(0);
            *n += 1;
            *n <= 2
        })
        .cloned()
        .collect();
    assert_eq!(capped, expected);
    // Removing a page keeps the others' order; re-adding it starts its history afresh.
    let gone = free[0].clone();
    s.remove(gone.as_str()).unwrap();
    assert_eq!(s.next_batch(5, 4).unwrap(), free[1..]);
    assert_eq!(
        s.observe(gone.as_str(), 5, true),
        Err(ScheduleError::UnknownPage(format!("{gone:?}")))
    );
    s.add(gone.clone()).unwrap();
    assert_eq!(s.stats(gone.as_str()).unwrap().n, 0);
}

// ---- the command line ----

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").expect("the freshgp binary is built")
}

fn run_ok(args: &[&str]) -> String {
    let out = freshgp().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// A successful run's stdout and stderr.
fn run_ok_both(args: &[&str]) -> (String, String) {
    let out = freshgp().args(args).assert().success();
    let output = out.get_output();
    let text = |bytes: &Vec<u8>| String::from_utf8(bytes.clone()).unwrap();
    (text(&output.stdout), text(&output.stderr))
}

fn run_err(args: &[&str]) -> String {
    let out = freshgp().args(args).assert().failure().code(2);
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const FORMULA: &str = "X / n * t + 0.1 * t";

#[test]
fn cli_restart_carries_history_over() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("crawl.state");
    let state_arg = state.to_str().unwrap();
    // Day 1: six pages downloaded, two had changed.
    let day1 = "# page\tcycle\tchanged\thost\n\
                p1\t1\t1\ta.org\np2\t1\t0\ta.org\np3\t1\t1\tb.org\n\
                p4\t1\t0\tb.org\np5\t1\t0\np6\t1\t0\n";
    // Day 2: the scheduled pages plus one more; p5 had changed.
    let day2 = "p1\t2\t0\np3\t2\t0\np5\t2\t1\n";
    let log1 = write(dir.path(), "day1.tsv", day1);
    let log2 = write(dir.path(), "day2.tsv", day2);
    let first = run_ok(&[
        "schedule",
        "--formula",
        FORMULA,
        "--state",
        state_arg,
        "--observe",
        log1.to_str().unwrap(),
        "--k",
        "2",
    ]);
    // p1 and p3 changed: X/n·t + 0.1t = 1.1 at cycle 2, the others 0.1.
    let mut first: Vec<&str> = first.lines().collect();
    first.sort_unstable();
    assert_eq!(first, ["p1", "p3"]);
    // Restart: no formula (the state has it), the second day's log.
    let second = run_ok(&[
        "schedule",
        "--state",
        state_arg,
        "--observe",
        log2.to_str().unwrap(),
        "--k",
        "3",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&second).unwrap();
    assert_eq!(json["cycle"], 3, "default cycle: 1 + the latest observed");
    assert_eq!(json["pages"], 6);
    // The same as one scheduler that saw both days.
    let f: Formula = FORMULA.parse().unwrap();
    let mut s: Scheduler = Scheduler::new(Policy::formula(&f, Closure::Paper));
    for text in [day1, day2] {
        freshgp::schedule::log::apply(&mut s, text.as_bytes(), "log").unwrap();
    }
    let expected = s.next_batch_scored(3, 3, None).unwrap();
    let got: Vec<(String, f64)> = json["batch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["page"].as_str().unwrap().to_string(),
                p["score"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, f64)> = expected.into_iter().map(|p| (p.page, p.score)).collect();
    assert_eq!(got, expected);
    // p1, p3, p5: one change in two visits, downloaded a day ago: 0.5 + 0.1 = 0.6;
    // p2, p4, p6: never changed, two days old: 0.2.
    let mut top: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    top.sort_unstable();
    assert_eq!(top, ["p1", "p3", "p5"]);
    assert!(got.iter().all(|(_, score)| *score == 0.6), "{got:?}");
    // The saved state holds both days.
    let back: Scheduler = Scheduler::load(&state).unwrap();
    assert_eq!(back.stats("p1").unwrap().n, 2);
    assert_eq!(back.stats("p5").unwrap().x, 1);
    assert_eq!(back.host("p3"), Some("b.org"));
    assert_eq!(back.latest_cycle(), 2);
    // Host cap and an explicit cycle: with one page per host, a.org and b.org give one
    // page each and the third comes from the host-less pages.
    let capped = run_ok(&[
        "schedule",
        "--state",
        state_arg,
        "--resources",
        "0.5",
        "--host-cap",
        "1",
        "--cycle",
        "5",
    ]);
    let capped: Vec<&str> = capped.lines().collect();
    assert_eq!(capped.len(), 3);
    let host_of = |p: &str| back.host(p);
    assert_eq!(
        capped
            .iter()
            .filter(|p| host_of(p) == Some("a.org"))
            .count(),
        1
    );
    assert_eq!(
        capped
            .iter()
            .filter(|p| host_of(p) == Some("b.org"))
            .count(),
        1
    );
}

#[test]
fn cli_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.state");
    let s = state.to_str().unwrap();
    // No formula for a new state.
    assert!(run_err(&["schedule", "--state", s, "--k", "1"]).contains("does not exist"));
    assert!(!state.exists());
    // A malformed log line, by number; the state is not written.
    let bad = write(dir.path(), "bad.tsv", "a\t1\t0\n\nb\t1\tmaybe\n");
    let err = run_err(&[
        "schedule",
        "--baseline",
        "NAD",
        "--state",
        s,
        "--observe",
        bad.to_str().unwrap(),
        "--k",
        "1",
    ]);
    assert!(
        err.contains("bad.tsv:3: third field `maybe` must be 0 or 1"),
        "{err}"
    );
    assert!(!state.exists());
    // A state made with NAD refuses another formula.
    run_ok(&["schedule", "--baseline", "NAD", "--state", s, "--k", "1"]);
    let err = run_err(&["schedule", "--formula", "t", "--state", s, "--k", "1"]);
    assert!(err.contains("schedules with `NAD`"), "{err}");
    let good = write(dir.path(), "good.tsv", "a\t1\t1\n");
    run_ok(&[
        "schedule",
        "--state",
        s,
        "--observe",
        good.to_str().unwrap(),
        "--k",
        "1",
    ]);
    // Lines out of order are applied in cycle order; duplicates and lines older than the
    // state are skipped and counted.
    let back = write(
        dir.path(),
        "back.tsv",
        "a\t3\t0\na\t2\t0\na\t3\t1\na\t1\t1\n",
    );
    let back = back.to_str().unwrap();
    let (_, err) = run_ok_both(&["schedule", "--state", s, "--k", "1", "--observe", back]);
    assert!(
        err.contains("2 observations recorded, 0 new pages"),
        "{err}"
    );
    assert!(
        err.contains("skipped 1 duplicate line (") && err.contains("and 1 line not after"),
        "{err}"
    );
    // A cycle far beyond the state's: refused, nothing applied, unless forced.
    let far = write(dir.path(), "far.tsv", "b\t4\t1\na\t1700000000\t1\n");
    let err = run_err(&[
        "schedule",
        "--state",
        s,
        "--observe",
        far.to_str().unwrap(),
        "--k",
        "1",
    ]);
    assert!(
        err.contains("far.tsv:2: cycle 1700000000 is 1699999996 cycles after the cycle before it (4: the state's latest or the log's), more than the limit of 366"),
        "{err}"
    );
    let scheduler: Scheduler = Scheduler::load(&state).unwrap();
    assert!(
        !scheduler.contains("b"),
        "nothing of the refused log was applied"
    );
    let out = run_ok(&[
        "schedule",
        "--state",
        s,
        "--observe",
        far.to_str().unwrap(),
        "--k",
        "1",
        "--force-jump",
    ]);
    assert!(!out.is_empty());
    let scheduler: Scheduler = Scheduler::load(&state).unwrap();
    assert_eq!(scheduler.latest_cycle(), 1_700_000_000);
    // A batch for a cycle already observed.
    let err = run_err(&["schedule", "--state", s, "--k", "1", "--cycle", "1"]);
    assert!(
        err.contains("must come after the latest observation"),
        "{err}"
    );
    // A corrupt state names the file.
    std::fs::write(&state, b"garbage").unwrap();
    let err = run_err(&["schedule", "--state", s, "--k", "1"]);
    assert!(
        err.contains("s.state: not a usable scheduler state"),
        "{err}"
    );
    // Neither --k nor --resources.
    let err = run_err(&["schedule", "--baseline", "Age", "--state", s]);
    assert!(err.contains("--k"), "{err}");
    // A failed run leaves no lock file behind.
    assert!(!freshgp::schedule::StateLock::path_of(&state).exists());
}

#[test]
fn two_runs_on_one_state_never_lose_observations() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("crawl.state");
    let s = state.to_str().unwrap();
    // A run holding the state makes another fail at once, naming the lock...
    let held = freshgp::schedule::StateLock::try_acquire(&state).unwrap();
    let err = run_err(&["schedule", "--policy", "Age", "--state", s, "--k", "1"]);
    assert!(
        err.contains("in use by another scheduler run") && err.contains("crawl.state.lock"),
        "{err}"
    );
    assert!(!state.exists(), "the refused run wrote nothing");
    // ...or, with --wait, wait for it.
    let waiting = std::process::Command::new(env!("CARGO_BIN_EXE_freshgp"))
        .args([
            "schedule", "--policy", "Age", "--state", s, "--k", "1", "--wait",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!state.exists(), "the waiting run waits");
    drop(held);
    assert!(waiting.wait_with_output().unwrap().status.success());
    // Many concurrent runs, each observing pages of its own: every observation is kept.
    let runs: Vec<_> = (0..8)
        .map(|i| {
            let log = write(dir.path(), &format!("log{i}.tsv"), &format!("p{i}\t1\t1\n"));
            std::process::Command::new(env!("CARGO_BIN_EXE_freshgp"))
                .args(["schedule", "--state", s, "--k", "1", "--wait", "--observe"])
                .arg(log)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for run in runs {
        assert!(run.wait_with_output().unwrap().status.success());
    }
    let scheduler: Scheduler = Scheduler::load(&state).unwrap();
    assert_eq!(scheduler.len(), 8, "every run's page was recorded");
    assert!(
        !dir.path().join("crawl.state.lock").exists(),
        "a lock file left"
    );
}

#[test]
fn pages_can_be_removed_from_a_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("crawl.state");
    let s = state.to_str().unwrap();
    let log = write(dir.path(), "day1.tsv", "a\t1\t1\nb\t1\t1\nc\t1\t0\n");
    let log = log.to_str().unwrap();
    run_ok(&[
        "schedule",
        "--policy",
        "NAD",
        "--state",
        s,
        "--k",
        "3",
        "--observe",
        log,
    ]);
    let gone = write(
        dir.path(),
        "gone.txt",
        "\u{feff}b\r\n# a comment\n\nnowhere\n",
    );
    let gone = gone.to_str().unwrap();
    let (batch, err) = run_ok_both(&["schedule", "--state", s, "--k", "3", "--remove", gone]);
    assert!(!batch.lines().any(|p| p == "b"), "{batch}");
    assert_eq!(batch.lines().count(), 2, "{batch}");
    assert!(err.contains("1 page removed"), "{err}");
    assert!(
        err.contains("1 id not scheduled (first: ") && err.contains("gone.txt:4: nowhere"),
        "{err}"
    );
    let scheduler: Scheduler = Scheduler::load(&state).unwrap();
    assert!(!scheduler.contains("b") && scheduler.len() == 2);
}

#[test]
fn infinite_scores_are_written_as_strings_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.state");
    let log = write(dir.path(), "day1.tsv", "a\t1\t1\nb\t1\t0\n");
    let out = run_ok(&[
        "schedule",
        "--policy",
        "exp(exp(t * 10)) * (1 - 2 * X)",
        "--state",
        state.to_str().unwrap(),
        "--observe",
        log.to_str().unwrap(),
        "--k",
        "2",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scores: Vec<&serde_json::Value> = v["batch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["score"])
        .collect();
    assert_eq!(
        scores,
        [&serde_json::json!("inf"), &serde_json::json!("-inf")],
        "{out}"
    );
}

/// `schedule --decision sample` (docs/src/reference/scheduler.md#batches): exactly k pages,
/// each with its inclusion probability, the same draw for the same (seed, cycle), and no
/// host cap.
#[test]
fn cli_sampled_batches_carry_their_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.state");
    let s = state.to_str().unwrap();
    // Twelve pages: four changed (X/n = 1), eight did not (0).
    let log: String = (0..12)
        .map(|p| format!("p{p}\t1\t{}\n", u8::from(p % 3 == 0)))
        .collect();
    let log = write(dir.path(), "day1.tsv", &log);
    let batch = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["schedule", "--state", s, "--k", "3", "--json"];
        args.extend(["--decision", "sample"]);
        args.extend(extra);
        serde_json::from_str(&run_ok(&args)).unwrap()
    };
    let first = batch(&["--formula", "X / n", "--observe", log.to_str().unwrap()]);
    assert_eq!(first["decision"], "sample");
    let picks = first["batch"].as_array().unwrap();
    assert_eq!(picks.len(), 3);
    // Four pages of weight 1 share 3 visits: π = 3/4 each, and only they are drawn.
    for pick in picks {
        assert_eq!(pick["probability"], 0.75, "{pick}");
        let page: u32 = pick["page"].as_str().unwrap()[1..].parse().unwrap();
        assert_eq!(page % 3, 0, "{pick}");
    }
    // The draw is a function of (seed, cycle): asked again, the same batch.
    assert_eq!(batch(&[])["batch"], first["batch"]);
    // Another cycle draws anew; over cycles 2..=41 each changed page is drawn 3/4 of the time.
    let mut drawn = std::collections::HashMap::new();
    for cycle in 2..42 {
        for pick in batch(&["--cycle", &cycle.to_string()])["batch"]
            .as_array()
            .unwrap()
        {
            *drawn
                .entry(pick["page"].as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
    }
    assert_eq!(drawn.len(), 4, "{drawn:?}");
    // 40 draws of probability 3/4: 5 standard deviations are 13.7.
    assert!(
        drawn.values().all(|&n: &i32| (n - 30).abs() <= 13),
        "{drawn:?}"
    );
    // A top-k batch has no probabilities; a sampled one refuses a host cap.
    let top: serde_json::Value =
        serde_json::from_str(&run_ok(&["schedule", "--state", s, "--k", "3", "--json"])).unwrap();
    assert_eq!(top["decision"], "top-k");
    assert!(top["batch"][0].get("probability").is_none(), "{top}");
    let err = run_err(&[
        "schedule",
        "--state",
        s,
        "--k",
        "3",
        "--decision",
        "sample",
        "--host-cap",
        "1",
    ]);
    assert!(
        err.contains("--decision sample cannot take --host-cap"),
        "{err}"
    );
}
