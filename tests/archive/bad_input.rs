//! Bad input to the archive readers: each a clear error naming the file and the line or
//! byte offset, skipped and counted under `--on-error skip` (the default), and the output
//! never written over without `--force`.

use super::{fixture, freshgp};
use std::io::Write;
use std::path::Path;

/// Runs a reader with `--on-error stop` and then by default (skip): the first's error, and
/// the second's history lines and stderr (`None` when it failed too).
fn stop_then_skip(reader: &str, path: &Path) -> (String, Option<(Vec<String>, String)>) {
    let run = |flags: &[&str]| {
        freshgp()
            .args(["dataset", reader])
            .arg(path)
            .args(["--out", "-"])
            .args(flags)
            .output()
            .unwrap()
    };
    let stopped = run(&["--on-error", "stop"]);
    assert!(!stopped.status.success(), "{reader} stopped on {path:?}");
    assert!(stopped.stdout.is_empty(), "nothing written on an error");
    let stop_error = String::from_utf8_lossy(&stopped.stderr).to_string();
    let skipped = run(&[]);
    let skip = skipped.status.success().then(|| {
        let lines = String::from_utf8(skipped.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        (lines, String::from_utf8_lossy(&skipped.stderr).to_string())
    });
    (stop_error, skip)
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

const CDX: &str = " CDX N b a m s k\n\
    com,a)/ 20240101000000 http://a.com/ text/html 200 HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA\n\
    com,a)/ 20240102000000 http://a.com/ text/html 200 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ\n";

#[test]
fn a_truncated_gzip_member_ends_the_file_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.cdx.gz");
    // Two members, the second cut inside its compressed data.
    let mut bytes = gzip(CDX.as_bytes());
    let second = gzip(
        b"com,b)/ 20240103000000 http://b.com/ text/html 200 HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA\n",
    );
    bytes.extend(&second[..second.len() / 2]);
    std::fs::write(&path, bytes).unwrap();
    let (stop, skip) = stop_then_skip("from-cdx", &path);
    assert!(
        stop.contains(&format!(
            "{}:4:1: the gzip stream ends inside a member (a truncated file?)",
            path.display()
        )),
        "{stop}"
    );
    let (lines, stderr) = skip.expect("the lines before are kept");
    assert_eq!(lines, ["01\tcom,a)/\ta.com"]);
    assert!(stderr.contains("1 malformed line skipped"), "{stderr}");
}

#[test]
fn a_warc_record_whose_length_lies_is_located_by_its_offset() {
    let Some(dir) = fixture() else { return };
    let text = std::fs::read_to_string(dir.path().join("crawl.warc")).unwrap();
    // The fourth record (other.org's 301, after the warcinfo, a response and a request)
    // claims 10 bytes more, then 10 fewer, than it has.
    let second = text.match_indices("WARC/1.").nth(3).unwrap().0;
    let length_at =
        second + text[second..].find("Content-Length: ").unwrap() + "Content-Length: ".len();
    let end = length_at + text[length_at..].find("\r\n").unwrap();
    let length: usize = text[length_at..end].parse().unwrap();
    for lie in [length + 10, length - 10] {
        let lying = format!("{}{lie}{}", &text[..length_at], &text[end..]);
        let path = dir.path().join(format!("lying-{lie}.warc"));
        std::fs::write(&path, lying).unwrap();
        let (stop, skip) = stop_then_skip("from-warc", &path);
        let want = format!(
            "{}: byte {second}: the record does not end where its Content-Length ({lie} bytes) says",
            path.display()
        );
        assert!(stop.contains(&want), "{stop}\nwant {want}");
        // Skipped: the records before it are kept (the first response), and it is counted,
        // not taken: its end is checked before its capture counts.
        let (lines, stderr) = skip.expect("the records before are kept");
        assert_eq!(
            lines,
            ["0\thttp://www.example.com/a?b=2&a=1\twww.example.com"]
        );
        assert!(stderr.contains("1 malformed record skipped"), "{stderr}");
    }
}

#[test]
fn malformed_cdx_lines_are_located_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    // Each bad line, inserted as line 3, the field the error points at ("": the line),
    // and the reason.
    for (bad, at, reason) in [
        ("com,a)/ 20240101 http://a.com/", "", "3 fields: the CDX lines here have at least 6"),
        ("com,a)/ 20240101120000 http://a.com/ text/html 200 XYZ", "XYZ", "digest `XYZ`: 3 characters is no digest"),
        ("com,a)/ 20240101120000 http://a.com/ text/html 200 sha1:HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UU!", "sha1", "digest `sha1:HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UU!` is not base32"),
        ("com,a)/ 20241301120000 http://a.com/ text/html 200 -", "2024", "timestamp `20241301120000`: no such month"),
        ("com,a)/ 20240101120000 http://a.com/ text/html OK -", "OK", "status `OK` is not an HTTP status"),
        // out of order: a capture of com,a)/ before the one on line 2
        ("com,a)/ 20231231000000 http://a.com/ text/html 200 -", "", "a capture of `com,a)/` at 2023-12-31 0:00:00.0 +00:00:00 comes after one at 2024-01-01 0:00:00.0 +00:00:00: the input is not sorted by time within a key"),
    ] {
        let (line, column) = (3, bad.find(at).unwrap() + 1);
        let mut lines: Vec<&str> = CDX.lines().collect();
        lines.insert(2, bad);
        let path = dir.path().join("index.cdx");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (stop, skip) = stop_then_skip("from-cdx", &path);
        let want = format!("{}:{line}:{column}: {reason}", path.display());
        assert!(stop.contains(&want), "{stop}\nwant {want}");
        let (history, stderr) = skip.expect("the other lines are read");
        assert_eq!(history, ["01\tcom,a)/\ta.com"], "{bad}");
        assert!(stderr.contains(&format!("skipped: {want}")), "{stderr}");
        assert!(stderr.contains("1 malformed line skipped"), "{stderr}");
    }
    // A key out of order ends the read even under skip: every line after it would be
    // refused, so the input is not sorted; --unsorted reads it.
    let mut lines: Vec<&str> = CDX.lines().collect();
    lines.insert(2, "a,a)/ 20240101120000 http://a.a/ text/html 200 -");
    let path = dir.path().join("index.cdx");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = freshgp()
        .args(["dataset", "from-cdx", "--out", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success() && out.stdout.is_empty());
    let want = format!("{}:3:1: key `a,a)/` comes after `com,a)/`: the input is not sorted by key (read it with --unsorted", path.display());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&want),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = freshgp()
        .args(["dataset", "from-cdx", "--unsorted", "--out", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "??\ta,a)/\ta.a\n01\tcom,a)/\ta.com\n"
    );
    // A CDXJ status given as a number out of range is located too.
    let path = dir.path().join("index.cdxj");
    std::fs::write(
        &path,
        "com,a)/ 20240101000000 {\"url\": \"http://a.com/\", \"status\": 99999}\n",
    )
    .unwrap();
    let out = freshgp()
        .args(["dataset", "from-cdx", "--on-error", "stop", "--out", "-"])
        .arg(&path)
        .output()
        .unwrap();
    let want = format!(
        "{}:1:59: status `99999` is not an HTTP status",
        path.display()
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&want),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Read as unsorted, the out-of-order lines are captures like any other.
    let path = dir.path().join("unsorted.cdx");
    std::fs::write(
        &path,
        format!("{CDX}com,a)/ 20231231000000 http://a.com/ text/html 200 -\n"),
    )
    .unwrap();
    let out = freshgp()
        .args(["dataset", "from-cdx", "--unsorted", "--out", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "?01\tcom,a)/\ta.com\n"
    );
}

#[test]
fn nothing_is_written_over_and_nothing_read_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index.cdx");
    std::fs::write(&index, CDX).unwrap();
    let out = dir.path().join("history.tsv");
    std::fs::write(&out, "mine").unwrap();
    let run = freshgp()
        .args(["dataset", "from-cdx"])
        .arg(&index)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("exists; pass --force"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    // Only a header, or only malformed lines: an error that says so, not an empty history.
    std::fs::write(&index, " CDX N b a m s k\n").unwrap();
    let run = freshgp()
        .args(["dataset", "from-cdx", "--out", "-"])
        .arg(&index)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("no pages"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::write(&index, "x y\n").unwrap();
    let run = freshgp()
        .args(["dataset", "from-cdx", "--out", "-"])
        .arg(&index)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("no capture: 1 malformed, the first 1:")
            && stderr.contains(":1:1: 2 fields and no ` CDX` header line naming them"),
        "{stderr}"
    );
}
