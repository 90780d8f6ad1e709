//! Progress of long runs as a person sees it: under a pseudo-terminal (util-linux
//! `script`) the runs draw live bars with their elapsed time and ETA, clear them, and
//! leave their results on stdout as a plain run prints them; off a terminal (and on a
//! `dumb` one) they print the plain lines instead; `--quiet` prints nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/brdc12-sample.tsv");
const SCOOP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/real/ScoopInstaller+Main.57.tsv"
);

/// Erases the terminal line: what indicatif writes before each redraw and when it clears.
const ERASE: &str = "\x1b[2K";

/// A word for a shell, in single quotes.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Runs `freshgp args` in `dir` on a pseudo-terminal 100 columns wide whose `TERM` is
/// `term`, with stdout into `stdout` (or on the terminal too); returns what the terminal
/// received.
fn on_terminal(dir: &Path, args: &[&str], stdout: Option<&Path>, term: &str) -> String {
    let mut line = format!("stty cols 100; {}", quote(env!("CARGO_BIN_EXE_freshgp")));
    for a in args {
        line += &format!(" {}", quote(a));
    }
    if let Some(out) = stdout {
        line += &format!(" > {}", quote(&out.display().to_string()));
    }
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir)
        .env("TERM", term)
        .stdin(Stdio::null())
        .output()
        .expect("util-linux `script` runs (package bsdutils)");
    let transcript = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?} on a terminal: {}\n{transcript}",
        out.status
    );
    transcript
}

/// Runs `freshgp args` in `dir` off a terminal; its stdout and stderr.
fn plain(dir: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_freshgp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

/// Asserts that `transcript` drew a bar named `prefix` out of `len` steps with its elapsed
/// time and ETA, and erased it after its last drawing.
fn drew_bar(transcript: &str, prefix: &str, len: u64) {
    let bar = format!("{prefix} [");
    let last = transcript
        .rfind(&bar)
        .unwrap_or_else(|| panic!("no `{prefix}` bar:\n{transcript:?}"));
    let drawing = &transcript[last..];
    let end = drawing.find('\n').unwrap_or(drawing.len());
    let first_line = &drawing[..end];
    assert!(
        first_line.contains(&format!("/{len}  ")) && first_line.contains(" elapsed, ETA "),
        "{first_line:?}"
    );
    assert!(
        drawing.contains(ERASE),
        "`{prefix}` not cleared: {drawing:?}"
    );
}

/// The lines of a text that hold results, not timings: an evolution's choices and winners.
fn choices(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("  ")).collect()
}

/// The words of `command --data DATA flags` (`flags` split at spaces).
fn command(command: &str, data: &str, flags: &str) -> Vec<String> {
    let mut args: Vec<String> = command.split(' ').map(str::to_string).collect();
    args.extend(["--data".to_string(), data.to_string()]);
    args.extend(flags.split(' ').map(str::to_string));
    args
}

/// `freshgp evolve` on the sample with `population`, `generations` and `seeds`.
fn evolve(population: usize, generations: usize, seeds: usize) -> Vec<String> {
    let flags = format!("--population {population} --generations {generations} --seeds {seeds}");
    command("evolve", SAMPLE, &flags)
}

/// Borrowed words.
fn strs(words: &[String]) -> Vec<&str> {
    words.iter().map(String::as_str).collect()
}

#[test]
fn evolution_draws_its_generations_with_the_time_left() {
    let tmp = tempfile::tempdir().unwrap();
    let args = evolve(200, 8, 2);
    let args = strs(&args);
    let out = tmp.path().join("out.txt");
    let shown = on_terminal(tmp.path(), &args, Some(&out), "xterm");
    // (8 + 1) generations of two seeds, named by seed and generation.
    drew_bar(&shown, "generations", 18);
    assert!(shown.contains("seed 2/2 (2) gen   8/8 best "), "{shown:?}");
    // The bar replaces the plain lines (`... 0.3s ETA      1s`).
    assert!(!shown.contains("s ETA "), "{shown:?}");
    let (stdout, stderr) = plain(tmp.path(), &args);
    assert!(
        stderr.contains("s ETA ") && !stderr.contains('\x1b'),
        "{stderr}"
    );
    let bars = std::fs::read_to_string(&out).unwrap();
    assert_eq!(choices(&bars), choices(&stdout));
    // Per seed its fittest seed formula, its front and three choices; then three winners.
    assert_eq!(choices(&stdout).len(), 2 * 5 + 3, "{stdout}");
    // Quiet on a terminal too.
    let quiet = [&args[..], &["--quiet"]].concat();
    assert_eq!(on_terminal(tmp.path(), &quiet, Some(&out), "xterm"), "");
}

#[test]
fn a_dumb_terminal_gets_the_plain_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let args = evolve(20, 2, 1);
    let out = tmp.path().join("out.txt");
    let shown = on_terminal(tmp.path(), &strs(&args), Some(&out), "dumb");
    assert!(
        shown.contains("seed 1/1 (1) gen   2/2 best ") && shown.contains("s ETA "),
        "{shown:?}"
    );
    assert!(!shown.contains('\x1b'), "{shown:?}");
}

#[test]
fn sweeps_draw_bars_and_leave_their_results_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let flags = "--resources 0.05,0.1,0.2 --runs 3 --savings-against NAD";
    let args = command("baselines", SCOOP, flags);
    let args = strs(&args);
    let (stdout, stderr) = plain(tmp.path(), &args);
    // Off a terminal: the plain lines.
    assert!(
        stderr.contains("[54/54] simulations (") && stderr.contains("[18/18] savings curves ("),
        "{stderr}"
    );
    assert!(!stderr.contains('\x1b'), "{stderr}");
    // Results in a file, bars on the terminal: byte for byte the plain results.
    let out = tmp.path().join("out.txt");
    let shown = on_terminal(tmp.path(), &args, Some(&out), "xterm");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);
    // 3 budgets × 18 policies; 18 savings curves of 100 budgets each.
    drew_bar(&shown, "simulations", 54);
    // The message names the budget being simulated (which budgets are drawn depends on
    // the bar's refresh rate: a fast budget may pass between two draws).
    assert!(shown.contains("budget 0.05, 3 runs a policy"), "{shown:?}");
    drew_bar(&shown, "savings curves", 1800);
    assert!(!shown.contains("] simulations ("), "{shown:?}");
    // Results on the terminal too: every line whole, after the last bar.
    let shown = on_terminal(tmp.path(), &args, None, "xterm");
    let last_bar = shown.rfind("savings curves [").unwrap();
    for line in stdout.lines() {
        let at = shown
            .find(&format!("{line}\r\n"))
            .unwrap_or_else(|| panic!("{line:?} is not whole in {shown:?}"));
        assert!(at > last_bar, "{line:?} before the last bar");
    }
}

#[test]
fn a_study_draws_its_work_over_the_units_generations() {
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("tiny.ron");
    std::fs::write(
        &study,
        r#"(
    name: "tiny",
    dataset: Synthetic(preset: "brdc12", pages: 1000, days: 21, seed: 5),
    seeds: 2,
    top_resources: [0.02, 0.05],
    gp: (population: 10, generations: 2, keep_best: 5),
    configurations: [(name: "All-NDCG", grammar: "all", fitness: ndcg)],
    baselines: [Rand, NAD],
)"#,
    )
    .unwrap();
    let run = |out: &str| -> Vec<String> {
        vec![
            "experiment".into(),
            "tiny.ron".into(),
            "--out".into(),
            out.into(),
        ]
    };
    let bars: Vec<String> = run("bars");
    let bars: Vec<&str> = bars.iter().map(String::as_str).collect();
    let written = tmp.path().join("written.txt");
    let shown = on_terminal(tmp.path(), &bars, Some(&written), "xterm");
    // 5 baselines units of 10 and 10 GP units of 3 × 10 individuals.
    drew_bar(&shown, "study", 5 * 10 + 10 * 30);
    drew_bar(&shown, "generations", 3);
    assert!(
        shown.contains("[15/15] All-NDCG rotation 4 seed 2"),
        "{shown:?}"
    );
    // The notes above the bars: the plan and each unit's end.
    assert!(
        shown.contains("15 units in the study, 15 in shard 0/1"),
        "{shown:?}"
    );
    assert!(
        shown.contains("All-NDCG rotation 4 seed 2: done in "),
        "{shown:?}"
    );
    let plain_args = run("plain");
    let (stdout, stderr) = plain(tmp.path(), &strs(&plain_args));
    assert!(
        stderr.contains("[15/15] All-NDCG rotation 4 seed 2\n"),
        "{stderr}"
    );
    assert!(!stderr.contains('\x1b'), "{stderr}");
    let listed = std::fs::read_to_string(&written).unwrap();
    assert_eq!(listed.replace("bars/", "plain/"), stdout);
    let summary = |dir: &str| -> PathBuf { tmp.path().join(dir).join("summary.md") };
    assert_eq!(
        std::fs::read_to_string(summary("bars")).unwrap(),
        std::fs::read_to_string(summary("plain")).unwrap()
    );
}

#[test]
fn models_and_requests_draw_their_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let train = command("model train", SAMPLE, "--out m.json --force");
    let out = tmp.path().join("out.txt");
    let shown = on_terminal(tmp.path(), &strs(&train), Some(&out), "xterm");
    // The three penalties of the logistic regression, each a note above the bar.
    drew_bar(&shown, "penalties", 3);
    assert!(shown.contains("penalty 1: validation AUC "), "{shown:?}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("wrote "));
    let eval = command("model eval", SAMPLE, "--rotations 2");
    let eval = strs(&eval);
    let shown = on_terminal(tmp.path(), &eval, Some(&out), "xterm");
    // Two rotations, full and partial observability.
    drew_bar(&shown, "rotations", 4);
    assert!(
        shown.contains("rotation 1, partial observability: done ("),
        "{shown:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        plain(tmp.path(), &eval).0
    );
    let flags = "--rotations 1 --levels 0.4 --policies NAD,Age --learned combined";
    let requests = command("requests", SAMPLE, flags);
    let requests = strs(&requests);
    let shown = on_terminal(tmp.path(), &requests, Some(&out), "xterm");
    // One rotation: three penalties and its end.
    drew_bar(&shown, "learning", 4);
    // One run of uniform, at most 62 runs of each of three bisections.
    drew_bar(&shown, "simulations", 1 + 3 * 62);
    assert!(
        shown.contains("  combined at the blind crawler's R = 0.4: γ = "),
        "{shown:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        plain(tmp.path(), &requests).0
    );
}
