//! Writes a sorted CDX 11 index of `LINES` lines to standard output: `LINES / PER_URL`
//! URLs on 20,000 hosts, each captured `PER_URL` times over 30 days (base32 SHA-1
//! digests, a new one for a change, 200s, revisits, redirects and errors), for measuring
//! what reading a large index holds in memory:
//!
//! ```text
//! cargo run --release --example cdx_lines -- 100000000 100 | \
//!     /usr/bin/time -v target/release/freshgp dataset from-cdx - --out /tmp/h.fgpd --force
//! ```
//!
//! Sorted input is streamed: memory holds the history (its pages' ids, hosts and cycles)
//! and one URL's captures, so the same URLs with ten times the captures take the same
//! memory.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::io::Write;

fn main() -> std::io::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("LINES and PER_URL are numbers"))
        .collect();
    let (lines, per_url) = match args[..] {
        [lines, per_url] if per_url > 0 => (lines, per_url),
        _ => panic!("usage: cdx_lines LINES PER_URL"),
    };
    let mut rng = Pcg64::seed_from_u64(11);
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    writeln!(out, " CDX N b a m s k r M S V g")?;
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut digest = [b'A'; 32];
    let mut stamps: Vec<u64> = Vec::new();
    // Keys in order: hosts in turn, numbers zero-padded, keep the lines sorted.
    let urls = lines / per_url;
    for u in 0..urls {
        let host = u * 20_000 / urls.max(1);
        stamps.clear();
        stamps.extend((0..per_url).map(|_| rng.gen_range(0..30 * 86_400)));
        stamps.sort_unstable();
        for &s in &stamps {
            let roll: f64 = rng.gen();
            if roll < 0.3 {
                for d in &mut digest {
                    *d = ALPHABET[rng.gen_range(0..32)];
                }
            }
            let (mime, status) = match roll {
                r if r < 0.85 => ("text/html", "200"),
                r if r < 0.92 => ("warc/revisit", "304"),
                r if r < 0.96 => ("text/html", "301"),
                _ => ("text/html", "404"),
            };
            let (day, rest) = (s / 86_400 + 1, s % 86_400);
            writeln!(
                out,
                "com,example{host:05})/p/{u:012} 202401{day:02}{:02}{:02}{:02} https://example{host:05}.com/p/{u:012} {mime} {status} {} - - 2048 {} crawl-00001.warc.gz",
                rest / 3_600,
                rest / 60 % 60,
                rest % 60,
                std::str::from_utf8(&digest).unwrap_or_default(),
                u * 2048
            )?;
        }
    }
    out.flush()
}
