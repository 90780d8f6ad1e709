//! `freshgp dataset from-cdx | from-warc | from-crawl-log` end to end, on files written by
//! independent tools: warcio writes the WARC and pywb's `cdxj-indexer` indexes it as CDXJ
//! and CDX 11 (`warcio_fixture.py`, whose docs give the history each page must have); the
//! Wayback CDX server's lines and Heritrix's crawl.log lines are written here by hand.
//!
//! warcio and cdxj-indexer come from PyPI (`pip install warcio cdxj-indexer`, which
//! `.ci/test` runs); where they are missing the checks that need them fail under
//! `FRESHGP_REQUIRE_ENGINES` and are skipped with a loud note elsewhere.

#[path = "../common/engines.rs"]
#[allow(dead_code)]
mod engines;

mod bad_input;
mod sql;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").unwrap()
}

/// The fixture's files in a new directory, or `None` (after a loud note, or a failure where
/// the tools are required) when warcio or cdxj-indexer is missing.
fn fixture() -> Option<tempfile::TempDir> {
    let have = std::process::Command::new("python3")
        .args(["-c", "import warcio, cdxj_indexer"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        engines::absent(
            "warcio or cdxj-indexer",
            "WARC and CDX fixture checks",
            "pip install warcio cdxj-indexer",
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/archive/warcio_fixture.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir)
}

/// Runs `freshgp dataset <reader> <files> --out - <flags>`: the history's lines, and stderr.
fn read(reader: &str, files: &[PathBuf], flags: &[&str]) -> (Vec<String>, String) {
    let out = freshgp()
        .args(["dataset", reader])
        .args(files)
        .args(["--out", "-"])
        .args(flags)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        out.status.success(),
        "{reader} {files:?} {flags:?}: {stderr}"
    );
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    (lines, stderr)
}

/// A file of `examples/archive/` (the guide's examples).
fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/archive")
        .join(name)
}

/// The history each page of the fixture must have, by the rules' defaults, in page order
/// (WARC: first appearance; CDX: key order).
const BY_URL: [&str; 3] = [
    "010?1\thttp://www.example.com/a?b=2&a=1\twww.example.com",
    "?00??\thttp://other.org/\tother.org",
    "?0?1?\thttp://third.net/p\tthird.net",
];
const BY_KEY: [&str; 3] = [
    "010?1\tcom,example)/a?a=1&b=2\twww.example.com",
    "?0?1?\tnet,third)/p\tthird.net",
    "?00??\torg,other)/\tother.org",
];

#[test]
fn warcio_writes_and_every_reader_gives_the_expected_history() {
    let Some(dir) = fixture() else { return };
    let at = |name: &str| dir.path().join(name);
    for warc in ["crawl.warc.gz", "crawl.warc"] {
        let (lines, stderr) = read("from-warc", &[at(warc)], &[]);
        assert_eq!(lines, BY_URL, "{warc}");
        // 3 records are no capture: the warcinfo, the request and the metadata
        assert!(stderr.starts_with("13 records read from 1 file: 10 captures (0 not modified, 2 failed; 1 redirect, 1 error response), 3 ignored"), "{stderr}");
    }
    for index in ["crawl.cdxj", "crawl.cdx"] {
        let (lines, _) = read("from-cdx", &[at(index)], &[]);
        assert_eq!(lines, BY_KEY, "{index}");
        let (unsorted, _) = read("from-cdx", &[at(index)], &["--unsorted"]);
        assert_eq!(unsorted, BY_KEY, "{index}");
    }
    // Redirects and errors as content: other.org's 301 sets its first content, the 404 is a change.
    let content = ["--redirects", "content", "--errors", "content"];
    let (lines, _) = read("from-warc", &[at("crawl.warc.gz")], &content);
    assert_eq!(lines[1], "010?1\thttp://other.org/\tother.org");
    let (lines, _) = read(
        "from-cdx",
        &[at("crawl.cdx")],
        &[&content[..], &["--hosts", "domain"]].concat(),
    );
    assert_eq!(lines[0], "010?1\tcom,example)/a?a=1&b=2\texample.com");
    assert_eq!(lines[2], "010?1\torg,other)/\tother.org");
}

#[test]
fn a_payload_without_its_digest_is_hashed_as_warc_writers_hash_it() {
    let Some(dir) = fixture() else { return };
    // The plain WARC without any WARC-Payload-Digest (nor block digest) line: the reader
    // hashes the payloads itself and must find warcio's digests.
    let text = std::fs::read(dir.path().join("crawl.warc")).unwrap();
    let mut stripped = Vec::new();
    let mut removed = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"WARC-Payload-Digest:") || line.starts_with(b"WARC-Block-Digest:") {
            removed += 1;
        } else {
            stripped.extend_from_slice(line);
        }
    }
    assert!(removed >= 10, "{removed}");
    let path = dir.path().join("stripped.warc");
    std::fs::write(&path, stripped).unwrap();
    let (lines, _) = read("from-warc", &[path], &[]);
    assert_eq!(lines, BY_URL);
}

#[test]
fn sorted_files_merge_by_key() {
    let Some(dir) = fixture() else { return };
    // The CDX 11 index split in two files, alternate lines each, both sorted: read together,
    // they are the one index.
    let text = std::fs::read_to_string(dir.path().join("crawl.cdx")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let (mut even, mut odd) = (vec![header], vec![header]);
    for (i, line) in lines.enumerate() {
        if i % 2 == 0 {
            even.push(line)
        } else {
            odd.push(line)
        }
    }
    let paths = [dir.path().join("even.cdx"), dir.path().join("odd.cdx")];
    std::fs::write(&paths[0], even.join("\n") + "\n").unwrap();
    std::fs::write(&paths[1], odd.join("\n") + "\n").unwrap();
    let (merged, stderr) = read("from-cdx", &paths, &[]);
    assert_eq!(merged, BY_KEY);
    assert!(
        stderr.starts_with("12 lines read from 2 files: 10 captures"),
        "{stderr}"
    );
}

#[test]
fn the_wayback_cdx_servers_lines_read_without_a_header() {
    // examples/archive/wayback.txt, as `http://web.archive.org/cdx/search/cdx?url=...`
    // prints them: urlkey timestamp original mimetype statuscode digest length. Hand-checked: day 1 A, day 2 a revisit
    // (warc/revisit, no status), day 3 A again and a 302 (no digest), day 5 B.
    let path = example("wayback.txt");
    let (lines, _) = read("from-cdx", std::slice::from_ref(&path), &[]);
    assert_eq!(lines, ["000?1\tcom,example)/\texample.com"]);
    // 12-hour cycles: day 1 00:05, day 2 12:00, day 3 08:15 and 23:59, day 5 00:00: cycles 1, 4, 5, 6 and 9
    let (lines, _) = read("from-cdx", &[path], &["--cycle", "12h"]);
    assert_eq!(lines, ["0??00???1\tcom,example)/\texample.com"]);
}

#[test]
fn heritrix_crawl_log_lines() {
    // examples/archive/crawl.log, hand-written as Heritrix 3 writes them (padded status and
    // size): a DNS lookup, a
    // robots.txt precluded fetch (-9998), a 304 and a change; the fetch time is the 9th
    // field, the logging time only when it is `-`.
    let path = example("crawl.log");
    let (lines, stderr) = read("from-crawl-log", &[path], &[]);
    // a.org: day 1 content, the 304 started on day 1 (its 9th field), day 3 new content
    // (logged time, as the fetch time is `-`); b.org/x: only a failed fetch
    assert_eq!(
        lines,
        ["0?1\thttp://a.org/\ta.org", "???\thttp://b.org/x\tb.org"]
    );
    assert!(stderr.starts_with("5 lines read from 1 file: 4 captures (1 not modified, 1 failed; 0 redirects, 1 error response), 1 ignored"), "{stderr}");
}

#[test]
fn nutch_crawldb_dumps_of_two_moments() {
    // examples/archive/crawldb-{1,2}.txt, hand-written as `readdb -dump` writes them. A
    // capture's time is the next fetch's less the retry interval: a.org/ on days 1 and 2
    // (new content), b.org/ on day 1 in both dumps (one fetch seen twice), a.org/new
    // unfetched then not modified on day 2, c.org/x gone on day 3. Weights are the scores
    // of each page's latest capture.
    let dumps = [example("crawldb-1.txt"), example("crawldb-2.txt")];
    let (lines, stderr) = read("from-nutch", &dumps, &[]);
    assert_eq!(
        lines,
        [
            "01?\thttp://a.org/\ta.org\tweight=1.5",
            "0??\thttp://b.org/\tb.org\tweight=3.25",
            "?0?\thttp://a.org/new\ta.org\tweight=0.5",
            "???\thttp://c.org/x\tc.org\tweight=0",
        ]
    );
    assert!(stderr.starts_with("78 lines read from 2 files: 6 captures (1 not modified, 1 failed; 0 redirects, 1 error response), 1 ignored"), "{stderr}");
    // The dumps in the other order: the same captures, the same history.
    let (swapped, _) = read("from-nutch", &[dumps[1].clone(), dumps[0].clone()], &[]);
    let mut sorted = swapped.clone();
    sorted.sort();
    let mut want = lines.clone();
    want.sort();
    assert_eq!(sorted, want);
    // A dump written in another time zone is refused by name.
    let dir = tempfile::tempdir().unwrap();
    let cet = dir.path().join("cet.txt");
    let text = std::fs::read_to_string(&dumps[0])
        .unwrap()
        .replace("UTC 2024", "CET 2024");
    std::fs::write(&cet, text).unwrap();
    let out = freshgp()
        .args(["dataset", "from-nutch", "--on-error", "stop", "--out", "-"])
        .arg(&cet)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{}:3:1: Fetch time `Tue Jan 02 10:00:00 CET 2024`: time zone `CET`: only UTC, GMT or GMT±hh:mm are read (run readdb with TZ=UTC)", cet.display())), "{stderr}");
}

/// Writes `text` to a new file `name` in `dir`.
fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_revisit_is_the_content_it_repeats() {
    // Day 1 content A, day 2 B, day 3 a revisit of A (deduplication against an older
    // capture): a change back to A. A revisit of a 404 is an error response, `?` by default.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        "HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA",
        "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
    );
    let cdx = format!(
        " CDX N b a m s k\n\
         com,a)/ 20240101000000 http://a.com/ text/html 200 {a}\n\
         com,a)/ 20240102000000 http://a.com/ text/html 200 {b}\n\
         com,a)/ 20240103000000 http://a.com/ warc/revisit 200 {a}\n\
         com,a)/ 20240104000000 http://a.com/ warc/revisit 200 {a}\n\
         com,a)/ 20240105000000 http://a.com/ warc/revisit 404 {b}\n\
         com,a)/ 20240106000000 http://a.com/ warc/revisit - -\n"
    );
    let (lines, _) = read("from-cdx", &[file(&dir, "r.cdx", &cdx)], &[]);
    assert_eq!(lines, ["0110?0\tcom,a)/\ta.com"]);
}

#[test]
fn an_http_header_block_ended_by_bare_line_feeds_keeps_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let record = |day: u32, message: &str| {
        format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{day}>\r\n\
             WARC-Date: 2024-01-0{day}T10:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{message}\r\n\r\n",
            message.len()
        )
    };
    let warc = record(1, "HTTP/1.1 200 OK\r\n\r\none")
        + &record(
            2,
            "HTTP/1.1 404 Not Found\nContent-Type: text/html\n\nnot found",
        )
        + &record(3, "HTTP/1.1 200 OK\r\n\r\none")
        + &record(4, "not an HTTP message");
    let (lines, stderr) = read("from-warc", &[file(&dir, "lf.warc", &warc)], &[]);
    // the 404 is an error response (`?`), not content; a block that is no HTTP message is
    // malformed
    assert_eq!(lines, ["0?0\thttp://example.com/\texample.com"]);
    assert!(
        stderr.contains("its HTTP message has no status line and header block"),
        "{stderr}"
    );
}

#[test]
fn a_pages_host_is_its_earliest_captures_whatever_the_files_order() {
    // `http://example.com/` (day 5, first file) and `http://www.example.com/` (day 1, second
    // file) share one SURT key: the host is the earliest capture's, read sorted or not.
    let dir = tempfile::tempdir().unwrap();
    let late = file(&dir, "late.cdx", " CDX N b a m s k\ncom,example)/ 20240105000000 http://example.com/ text/html 200 HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA\ncom,zzz)/ 20240105000000 http://zzz.com/ text/html 200 HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA\n");
    let early = file(&dir, "early.cdx", " CDX N b a m s k\ncom,aaa)/ 20240101000000 http://aaa.com/ text/html 200 HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA\ncom,example)/ 20240101000000 http://www.example.com/ text/html 200 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ\n");
    let want = [
        "0????\tcom,aaa)/\taaa.com",
        "0???1\tcom,example)/\twww.example.com",
        "????0\tcom,zzz)/\tzzz.com",
    ];
    let files = [late, early];
    assert_eq!(read("from-cdx", &files, &[]).0, want);
    assert_eq!(read("from-cdx", &files, &["--unsorted"]).0, want);
}

#[test]
fn many_sorted_files_merge_as_one() {
    // The SQL check's index (2,348 captures of 401 URLs) dealt line by line into 7 files in
    // a seeded random order, each still sorted: read together, they are the one index, in
    // one pass whatever the order the files are given in.
    use rand::{Rng, SeedableRng};
    let dir = tempfile::tempdir().unwrap();
    let text = sql::index();
    let (header, body) = text.split_once('\n').unwrap();
    let whole = file(&dir, "whole.cdx", &text);
    let mut parts = vec![format!("{header}\n"); 7];
    let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
    for line in body.lines() {
        let part = &mut parts[rng.gen_range(0..7)];
        part.push_str(line);
        part.push('\n');
    }
    let mut files: Vec<PathBuf> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| file(&dir, &format!("part{i}.cdx"), p))
        .collect();
    let (want, _) = read("from-cdx", &[whole], &[]);
    assert!(want.len() > 390);
    assert_eq!(read("from-cdx", &files, &[]).0, want);
    files.reverse();
    assert_eq!(read("from-cdx", &files, &[]).0, want);
}
