//! `dataset emit-sql`: the history DuckDB and Spark build from a table of captures (Common
//! Crawl's columnar names) equals the one `dataset from-cdx` reads from the same captures,
//! byte for byte, under the default rules and under `content` for redirects and errors, in
//! cycles of a day and of six hours, and with hosts from a host column. The captures are a
//! CDX 11 index written here: 400 URLs on 37 hosts, each captured at distinct seconds over
//! 20 days (and one 40 days earlier), with 200s, 200s without a digest, 304s, revisits,
//! 301s and 404s with and without digests, resources without a status, and DNS lines that
//! are no capture.
//! `sql_history.py` loads them into each engine and runs the queries.

use super::engines;
use super::freshgp;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::path::Path;

/// The index: a header, then sorted capture lines.
pub(super) fn index() -> String {
    let mut rng = Pcg64::seed_from_u64(3);
    let mut keys: Vec<(String, String)> = (0..400)
        .map(|u| {
            let host = format!("h{}.example.org", u % 37);
            let key = format!("org,example,h{})/p{u}", u % 37);
            (key, format!("https://{host}/p{u}"))
        })
        .collect();
    keys.push((
        "org,example,h0)/early".into(),
        "https://h0.example.org/early".into(),
    ));
    keys.sort();
    let digests = [
        "HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA",
        "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
        "sha1:7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG",
        "VV4C5TNMO4H4N242MLSE7EEHH64X7MTL",
    ];
    let mut out = " CDX N b a m s k r M S V g\n".to_string();
    for (key, url) in keys {
        let base = 1_704_067_200i64
            - if key.ends_with("early") {
                40 * 86_400
            } else {
                0
            };
        let mut times: Vec<i64> = (0..rng.gen_range(1..12))
            .map(|_| base + rng.gen_range(0..20 * 86_400))
            .collect();
        times.sort_unstable();
        times.dedup();
        for t in times {
            let stamp = time::OffsetDateTime::from_unix_timestamp(t).unwrap();
            let stamp = format!(
                "{:04}{:02}{:02}{:02}{:02}{:02}",
                stamp.year(),
                stamp.month() as u8,
                stamp.day(),
                stamp.hour(),
                stamp.minute(),
                stamp.second()
            );
            let digest = digests[rng.gen_range(0..digests.len())];
            let (mime, status, digest) = match rng.gen_range(0..20) {
                0 => ("text/html", "200", "-"),
                1 => ("text/html", "304", "-"),
                2 => ("warc/revisit", "-", digest),
                3 | 4 => ("text/html", "301", digest),
                5 => ("text/html", "404", "-"),
                6 => ("text/html", "404", digest),
                7 => ("text/plain", "-", digest),
                8 => ("text/dns", "-", digest),
                _ => ("text/html", "200", digest),
            };
            out +=
                &format!("{key} {stamp} {url} {mime} {status} {digest} - - 900 0 crawl.warc.gz\n");
        }
    }
    out
}

#[test]
fn duckdb_and_spark_build_the_readers_history() {
    let dir = tempfile::tempdir().unwrap();
    let cdx = dir.path().join("index.cdx");
    std::fs::write(&cdx, index()).unwrap();
    // The rules for both, and for the query only: hosts from the table's host column
    // (Python's URL parser's, the same as the reader's on these URLs).
    let settings: [(&[&str], &[&str]); 4] = [
        (&[], &[]),
        (&["--redirects", "content", "--errors", "content"], &[]),
        (&["--cycle", "6h"], &[]),
        (&[], &["--column", "host=url_host_name"]),
    ];
    let expected: Vec<String> = settings
        .iter()
        .map(|(flags, _)| {
            let out = freshgp()
                .args(["dataset", "from-cdx"])
                .arg(&cdx)
                .args(["--out", "-"])
                .args(*flags)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        })
        .collect();
    // Every key but those captured only by DNS lines is a page; the rules make a difference.
    let pages = expected[0].lines().count();
    assert!((390..=401).contains(&pages), "{pages} pages");
    assert!(expected[0] != expected[1] && expected[0].contains('1'));
    for engine in ["duckdb", "spark"] {
        let module = if engine == "spark" { "pyspark" } else { engine };
        let found = std::process::Command::new("python3")
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            engines::absent(
                engine,
                "SQL history check",
                &format!("pip install {module}"),
            );
            continue;
        }
        let queries: Vec<_> = settings
            .iter()
            .enumerate()
            .map(|(i, (flags, only_sql))| {
                let sql = dir.path().join(format!("{engine}-{i}.sql"));
                let out = freshgp()
                    .args(["dataset", "emit-sql", "--engine", engine])
                    .args(*flags)
                    .args(*only_sql)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                std::fs::write(&sql, out.stdout).unwrap();
                sql
            })
            .collect();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/archive/sql_history.py");
        let out = std::process::Command::new("python3")
            .arg(script)
            .arg(engine)
            .arg(&cdx)
            .args(&queries)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let got: Vec<String> = text
            .split("-- QUERY\n")
            .skip(1)
            .map(str::to_string)
            .collect();
        assert_eq!(got.len(), settings.len(), "{engine}: {text}");
        for ((got, want), flags) in got.iter().zip(&expected).zip(settings) {
            assert!(
                got == want,
                "{engine} {flags:?}: the engine's history differs:\n{got}\nthe reader's:\n{want}"
            );
        }
    }
}

#[test]
fn bad_settings_are_refused_by_name() {
    for (flags, message) in [
        (
            &["--engine", "sqlite"][..],
            "`sqlite`: expected one of duckdb, spark",
        ),
        (
            &["--engine", "duckdb", "--column", "key"],
            "column `key`: expected ROLE=COLUMN",
        ),
        (
            &["--engine", "duckdb", "--column", "page=x"],
            "no role `page`",
        ),
        (
            &["--engine", "duckdb", "--column", "key=x; DROP TABLE y"],
            "is not a plain SQL name",
        ),
        (
            &["--engine", "duckdb", "--table", "a-b"],
            "table: `a-b` is not a plain SQL name",
        ),
    ] {
        let out = freshgp()
            .args(["dataset", "emit-sql"])
            .args(flags)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
    }
}
