//! `freshgp dataset ...` end to end: synth, stats, convert, from-log, refusing to overwrite.

use assert_cmd::Command;

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").unwrap()
}

#[test]
fn synth_stats_convert_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("s.tsv");
    freshgp()
        .args([
            "dataset", "synth", "--pages", "700", "--days", "30", "--seed", "5", "--out",
        ])
        .arg(&t)
        .assert()
        .success();
    // refuses to overwrite without --force
    let out = freshgp()
        .args(["dataset", "synth", "--pages", "10", "--out"])
        .arg(&t)
        .assert()
        .failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("--force"));
    let b = dir.path().join("s.fgpd");
    freshgp()
        .args(["dataset", "convert"])
        .arg(&t)
        .arg("--out")
        .arg(&b)
        .assert()
        .success();
    let back = dir.path().join("back.tsv");
    freshgp()
        .args(["dataset", "convert"])
        .arg(&b)
        .arg("--out")
        .arg(&back)
        .assert()
        .success();
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&back).unwrap());
    let out = freshgp()
        .args(["dataset", "stats", "--json"])
        .arg(&b)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stats"]["pages"], 700);
    assert_eq!(v["stats"]["cycles"], 30);
    assert_eq!(v["load"]["format"], "binary");
    let text = freshgp()
        .args(["dataset", "stats"])
        .arg(&t)
        .output()
        .unwrap();
    let s = String::from_utf8(text.stdout).unwrap();
    assert!(s.contains("pages              700"), "{s}");
    assert!(s.contains("weekday profile"), "{s}");
}

#[test]
fn from_log_writes_the_spec_format_and_reports_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("crawl.log");
    std::fs::write(
        &log,
        "http://a.org/x\t2024-01-01T10:00:00Z\th1\n\
         http://a.org/x\t2024-01-02T10:00:00Z\th2\n\
         garbage line\n\
         http://b.org/\t2024-01-02T11:00:00Z\tz\t404\n\
         http://b.org/\t2024-01-01T11:00:00Z\tz\n",
    )
    .unwrap();
    let out = dir.path().join("h.tsv");
    let r = freshgp()
        .args(["dataset", "from-log"])
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("crawl.log:3:1:"), "{err}");
    assert!(err.contains("1 malformed line skipped"), "{err}");
    assert!(err.contains("5 lines, 4 fetches (1 failed)"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "01\thttp://a.org/x\ta.org\n0?\thttp://b.org/\tb.org\n"
    );
    let r = freshgp()
        .args(["dataset", "from-log", "--on-error", "stop", "--force"])
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("crawl.log:3:1:"));
}

#[test]
fn malformed_input_exits_with_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "0101\n01\n").unwrap();
    let r = freshgp()
        .args(["dataset", "stats"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.tsv:2:3: length differs"), "{err}");
}

#[test]
fn from_log_weights_from_the_log_and_a_weights_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("crawl.log");
    // a.org/x: its latest weighted line (day 2) says 4; b.org: no weight in the log
    std::fs::write(
        &log,
        "http://a.org/x\t2024-01-02T10:00:00Z\th2\t200\t4\n\
         http://a.org/x\t2024-01-01T10:00:00Z\th1\t\t3\n\
         http://b.org/\t2024-01-01T11:00:00Z\tz\n\
         http://c.org/\t2024-01-01T11:00:00Z\tz\n",
    )
    .unwrap();
    let weights = dir.path().join("clicks.tsv");
    std::fs::write(
        &weights,
        "# clicks per day\nhttp://b.org/\t0.5\n\nhttp://gone.org/\t9\n",
    )
    .unwrap();
    let out = dir.path().join("h.tsv");
    let r = freshgp()
        .args(["dataset", "from-log"])
        .arg(&log)
        .arg("--weights")
        .arg(&weights)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "01\thttp://a.org/x\ta.org\tweight=4\n\
         0?\thttp://b.org/\tb.org\tweight=0.5\n\
         0?\thttp://c.org/\tc.org\tweight=1\n"
    );
    assert!(
        err.contains("weights from the log on 1 page (1 of them with differing weights"),
        "{err}"
    );
    assert!(
        err.contains("2 weights; set on 1 page, 2 pages not listed keep theirs, 1 id not in the history (`http://gone.org/`)"),
        "{err}"
    );
    // stats shows the distribution, in text and JSON
    let text = freshgp()
        .args(["dataset", "stats"])
        .arg(&out)
        .output()
        .unwrap();
    let s = String::from_utf8(text.stdout).unwrap();
    assert!(
        s.contains("weights            min 0.5000, p50 1.000, p90 4.000, p99 4.000, max 4.000"),
        "{s}"
    );
    assert!(s.contains("total 5.500 (mean 1.833)"), "{s}");
    assert!(
        s.contains("the top 1% (1 pages) hold 72.7% of the weight"),
        "{s}"
    );
    let json = freshgp()
        .args(["dataset", "stats", "--json"])
        .arg(&out)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["stats"]["weighted"], true);
    let w = &v["stats"]["weights"];
    assert_eq!(
        (w["min"].as_f64(), w["max"].as_f64()),
        (Some(0.5), Some(4.0))
    );
    assert_eq!(w["total"].as_f64(), Some(5.5));
    assert_eq!(w["top_pages"], 1);
    assert!((w["top1_share"].as_f64().unwrap() - 4.0 / 5.5).abs() < 1e-12);
}

#[test]
fn convert_sets_weights_and_refuses_bad_weight_files() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("h.tsv");
    std::fs::write(&h, "0101\tp1\th\n0?00\tp2\th\n").unwrap();
    // unweighted: stats says so, in text and JSON
    let text = freshgp()
        .args(["dataset", "stats"])
        .arg(&h)
        .output()
        .unwrap();
    let s = String::from_utf8(text.stdout).unwrap();
    assert!(
        s.contains("weights            none (unweighted: every page weighs 1)"),
        "{s}"
    );
    let json = freshgp()
        .args(["dataset", "stats", "--json"])
        .arg(&h)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["stats"]["weighted"], false);
    assert!(v["stats"]["weights"].is_null());
    // convert --weights to the binary cache, then back to text
    let w = dir.path().join("w.tsv");
    std::fs::write(&w, "p2\t12.5\n").unwrap();
    let b = dir.path().join("h.fgpd");
    let r = freshgp()
        .args(["dataset", "convert"])
        .arg(&h)
        .arg("--weights")
        .arg(&w)
        .arg("--out")
        .arg(&b)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let back = dir.path().join("back.tsv");
    freshgp()
        .args(["dataset", "convert"])
        .arg(&b)
        .arg("--out")
        .arg(&back)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&back).unwrap(),
        "0101\tp1\th\tweight=1\n0?00\tp2\th\tweight=12.5\n"
    );
    // bad files: located errors, exit status 2, nothing written
    for (file, want) in [
        (
            "p1\t1\np2\tNaN\n",
            "w.tsv:2:4: weight `NaN` is not a number",
        ),
        (
            "p1\t1\n# x\np1\t1\n",
            "w.tsv:3:1: page `p1` listed twice (first on line 1)",
        ),
        ("p1 2\n", "w.tsv:1:5: missing TAB"),
    ] {
        std::fs::write(&w, file).unwrap();
        let out = dir.path().join("never.tsv");
        let r = freshgp()
            .args(["dataset", "convert"])
            .arg(&h)
            .arg("--weights")
            .arg(&w)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(2));
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(want), "{err}");
        assert!(!out.exists());
    }
}

#[test]
fn synth_commerce_is_weighted() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("c.fgpd");
    freshgp()
        .args([
            "dataset", "synth", "--preset", "commerce", "--pages", "3000", "--days", "28", "--out",
        ])
        .arg(&t)
        .assert()
        .success();
    let json = freshgp()
        .args(["dataset", "stats", "--json"])
        .arg(&t)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (v["stats"]["pages"].as_u64(), v["stats"]["cycles"].as_u64()),
        (Some(3000), Some(28))
    );
    assert_eq!(v["stats"]["weighted"], true);
    assert!(v["stats"]["weights"]["top1_share"].as_f64().unwrap() > 0.2);
}

#[test]
fn dash_reads_stdin_and_writes_stdout_and_errors_say_why() {
    // from-log from stdin to stdout, into stats from stdin.
    let log =
        "http://a.org/x\t2024-01-01T10:00:00Z\th1\nhttp://a.org/x\t2024-01-02T10:00:00Z\th2\n";
    let history = freshgp()
        .args(["dataset", "from-log", "-", "--out", "-"])
        .write_stdin(log)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        String::from_utf8(history.clone()).unwrap(),
        "01\thttp://a.org/x\ta.org\n"
    );
    let stats = freshgp()
        .args(["dataset", "stats", "-"])
        .write_stdin(history)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(stats)
        .unwrap()
        .contains("cycles             2"));
    // Every line malformed: the first reasons, with their lines.
    let mut malformed = freshgp();
    malformed
        .args(["dataset", "from-log", "-", "--out", "-"])
        .write_stdin("garbage\nx\ty\n");
    let err = stderr_of_failure(malformed);
    assert!(
        err.contains("no valid line: 2 malformed lines") && err.contains("<stdin>:2:1: 2 fields"),
        "{err}"
    );
    // An unknown preset lists the built-in ones.
    let mut nope = freshgp();
    nope.args(["dataset", "synth", "--preset", "nope", "--out", "-"]);
    let err = stderr_of_failure(nope);
    assert!(
        err.contains("built-in preset (brdc12, commerce, regimes, steady)"),
        "{err}"
    );
}

/// The stderr of `command`, which must exit with status 2.
fn stderr_of_failure(mut command: Command) -> String {
    let out = command.assert().code(2);
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

/// `dataset synth --weight-digits`: full precision gives every offer its own weight, N digits
/// round them, and a bad value or a preset without weights is refused with the reason.
#[test]
fn synth_weight_digits() {
    let dir = tempfile::tempdir().unwrap();
    let weights = |digits: &str| -> Vec<String> {
        let out = freshgp()
            .args([
                "dataset", "synth", "--preset", "commerce", "--pages", "2000",
            ])
            .args(["--days", "3", "--weight-digits", digits, "--out", "-"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let w = l.split('\t').find_map(|f| f.strip_prefix("weight="));
                w.unwrap().to_string()
            })
            .collect()
    };
    let distinct = |w: &[String]| w.iter().collect::<std::collections::BTreeSet<_>>().len();
    let full = weights("full");
    assert_eq!(full.len(), 2000);
    assert_eq!(distinct(&full), 2000);
    let two = weights("2");
    // 90 values a decade, over the few decades the weights span.
    assert!(
        distinct(&two) < 600,
        "{} distinct at 2 digits",
        distinct(&two)
    );
    for w in &two {
        let digits = w.split('e').next().unwrap().replace(['.', '-'], "");
        let significant = digits.trim_start_matches('0').trim_end_matches('0');
        assert!(significant.len() <= 2, "{w}");
    }
    // The default is the preset's 4 digits.
    let out = freshgp()
        .args([
            "dataset", "synth", "--preset", "commerce", "--pages", "2000",
        ])
        .args(["--days", "3", "--out", "-"])
        .output()
        .unwrap();
    assert_eq!(out.stdout, {
        let o = freshgp()
            .args([
                "dataset", "synth", "--preset", "commerce", "--pages", "2000",
            ])
            .args(["--days", "3", "--weight-digits", "4", "--out", "-"])
            .output()
            .unwrap();
        o.stdout
    });

    for bad in ["0", "18", "all", "-1"] {
        let out = freshgp()
            .args([
                "dataset",
                "synth",
                "--preset",
                "commerce",
                "--weight-digits",
                bad,
            ])
            .args(["--out"])
            .arg(dir.path().join("x.fgpd"))
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--weight-digits") && err.contains("1..=17"),
            "{err}"
        );
    }
    // A preset without weights has nothing to round.
    let printed = freshgp()
        .args(["dataset", "synth", "--preset", "commerce", "--print-preset"])
        .output()
        .unwrap();
    let text = String::from_utf8(printed.stdout).unwrap();
    let start = text.find("    weights: Some((").unwrap();
    let end = start + text[start..].find("    )),\n").unwrap() + "    )),\n".len();
    let unweighted = format!("{}    weights: None,\n{}", &text[..start], &text[end..]);
    let preset = dir.path().join("unweighted.ron");
    std::fs::write(&preset, unweighted).unwrap();
    let out = freshgp()
        .args([
            "dataset",
            "synth",
            "--pages",
            "50",
            "--weight-digits",
            "full",
            "--preset",
        ])
        .arg(&preset)
        .arg("--out")
        .arg(dir.path().join("y.fgpd"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no `weights` section"), "{err}");
    assert!(!dir.path().join("y.fgpd").exists());
}
