//! Reading a gzip'd CDX index into a history (the target: a million lines a second on one
//! core).
//!
//! The index is written here, as pywb's `cdxj-indexer --cdx11` writes one: 1,000,000
//! lines, CDX 11, sorted by key, of 250,000 URLs on 20,000 hosts captured on 4 of 30 days
//! each, real-looking SURT keys, URLs, base32 SHA-1 digests (a new one when the page
//! changed), a mix of 200s, 301s, 404s and revisits; gzip'd in members of 3,000 lines as
//! Common Crawl writes its index. `cdx-classic` reads it sorted (the default, streaming),
//! `cdx-unsorted` in any order, `cdxj` the same captures as CDXJ, `cdx-300-files` the index
//! cut into 300 files of consecutive keys (as Common Crawl's) read at once. `FRESHGP_BENCH_LINES`
//! overrides the line count; run as a test (`cargo test --benches`) it uses 20,000.
//!
//! ```text
//! cargo bench --bench archive
//! ```

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use freshgp::archive::{cdx, ArchiveOptions, Input};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::io::Write;

/// The index's lines, sorted, in the classic form (`json` false) or as CDXJ.
fn index(lines: usize, json: bool) -> String {
    let mut rng = Pcg64::seed_from_u64(7);
    let urls = lines / 4;
    let mut out = if json {
        String::new()
    } else {
        " CDX N b a m s k r M S V g\n".to_string()
    };
    let b32 = |rng: &mut Pcg64| -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        (0..32)
            .map(|_| ALPHABET[rng.gen_range(0..32)] as char)
            .collect()
    };
    let mut entries: Vec<(String, String)> = (0..urls)
        .map(|u| {
            let host = format!("shop{}.example{}", u % 20_000, u % 7);
            let path = format!("products/{}/item-{}.html", u % 97, u);
            let surt = format!("example{},shop{})/{}", u % 7, u % 20_000, path);
            (surt, format!("https://www.{host}/{path}"))
        })
        .collect();
    entries.sort();
    for (surt, url) in entries {
        let mut digest = b32(&mut rng);
        let mut stamps: Vec<String> = (0..4)
            .map(|_| {
                let (day, hour) = (rng.gen_range(1..=30), rng.gen_range(0..24));
                format!(
                    "202401{day:02}{hour:02}{:02}{:02}",
                    rng.gen_range(0..60),
                    rng.gen_range(0..60)
                )
            })
            .collect();
        stamps.sort_unstable();
        for stamp in stamps {
            let roll: f64 = rng.gen();
            if roll < 0.3 {
                digest = b32(&mut rng);
            }
            let (mime, status) = match roll {
                r if r < 0.85 => ("text/html", "200"),
                r if r < 0.92 => ("warc/revisit", "304"),
                r if r < 0.96 => ("text/html", "301"),
                _ => ("text/html", "404"),
            };
            let (length, offset) = (rng.gen_range(500..90_000), rng.gen_range(0..1u64 << 30));
            if json {
                out += &format!("{surt} {stamp} {{\"url\": \"{url}\", \"mime\": \"{mime}\", \"status\": \"{status}\", \"digest\": \"sha1:{digest}\", \"length\": \"{length}\", \"offset\": \"{offset}\", \"filename\": \"crawl-data/CC-MAIN-2024-10/segments/1707947473347.0/warc/CC-MAIN-20240220211055-20240221001055-00123.warc.gz\"}}\n");
            } else {
                out += &format!("{surt} {stamp} {url} {mime} {status} {digest} - - {length} {offset} CC-MAIN-20240220211055-20240221001055-00123.warc.gz\n");
            }
        }
    }
    out
}

/// `text` gzip'd in members of 3,000 lines.
fn gzip(text: &str) -> Vec<u8> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = Vec::new();
    for chunk in lines.chunks(3_000) {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for line in chunk {
            e.write_all(line.as_bytes()).unwrap();
        }
        out.extend(e.finish().unwrap());
    }
    out
}

fn bench(c: &mut Criterion) {
    let default = if std::env::args().any(|a| a == "--bench") {
        1_000_000
    } else {
        20_000
    };
    let lines = std::env::var("FRESHGP_BENCH_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    let mut group = c.benchmark_group("archive");
    group.sample_size(10);
    group.throughput(Throughput::Elements(lines as u64));
    for (name, json, sorted) in [
        ("cdx-classic", false, true),
        ("cdx-unsorted", false, false),
        ("cdxj", true, true),
    ] {
        let bytes = gzip(&index(lines, json));
        let options = ArchiveOptions {
            sorted,
            ..ArchiveOptions::default()
        };
        group.bench_function(format!("{name}-{lines}"), |b| {
            b.iter(|| {
                let input = Input::from_reader("index.cdx.gz", std::io::Cursor::new(bytes.clone()))
                    .unwrap();
                let (d, report) = cdx::read(vec![input], &options).unwrap();
                assert_eq!(report.captures, lines);
                d.pages()
            })
        });
    }
    // Common Crawl's layout: the sorted index cut into 300 files of consecutive keys, all
    // read at once (merged by key).
    let text = index(lines, false);
    let (header, body) = text.split_once('\n').unwrap();
    let body: Vec<&str> = body.split_inclusive('\n').collect();
    let files: Vec<Vec<u8>> = body
        .chunks(body.len().div_ceil(300))
        .map(|chunk| gzip(&format!("{header}\n{}", chunk.concat())))
        .collect();
    let options = ArchiveOptions::default();
    group.bench_function(format!("cdx-300-files-{lines}"), |b| {
        b.iter(|| {
            let inputs = files
                .iter()
                .map(|f| {
                    Input::from_reader("part.cdx.gz", std::io::Cursor::new(f.clone())).unwrap()
                })
                .collect();
            let (d, report) = cdx::read(inputs, &options).unwrap();
            assert_eq!(report.captures, lines);
            d.pages()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
