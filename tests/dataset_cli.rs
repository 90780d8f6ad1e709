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
    assert!(err.contains("1 malformed lines skipped"), "{err}");
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
