//! Loading through the one path (`data::load`): text and binary cache, each kind of
//! malformed file, unknown-cycle policies, the repository's real files and the committed sample.

use freshgp::data::{cache, load, text, DataError, Format, LoadOptions, UnknownPolicy};
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn load_err(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.tsv", bytes);
    let e = load(&p, &LoadOptions::default()).unwrap_err();
    // every message names the file
    let msg = e.to_string();
    assert!(msg.starts_with(&p.display().to_string()), "{msg}");
    msg[p.display().to_string().len()..].to_string()
}

#[test]
fn each_kind_of_malformed_file_is_located() {
    assert_eq!(
        load_err(b"0101\n01a1\n"),
        ":2:3: wrong character `a` in BITS (expected 0, 1 or ?)"
    );
    assert_eq!(
        load_err(b"0101\n010\n"),
        ":2:4: length differs from the first line: 3 cycles, but line 1 has 4"
    );
    assert_eq!(
        load_err(b"01\tp\th\tweight=abc\n"),
        ":1:15: bad attribute: weight `abc` is not a finite number >= 0"
    );
    assert_eq!(
        load_err(b""),
        ": no pages (the file is empty or holds only comments)"
    );
    assert_eq!(
        load_err(b"0101\n\xff\xfe\n"),
        ":2:1: not UTF-8 (byte 0xff at byte offset 0)"
    );
    assert_eq!(
        load_err(b"0101\tid\xe2\x82\n"),
        ":1:8: not UTF-8 (byte 0xe2 at byte offset 7)"
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let e = load(Path::new("/nonexistent/x.tsv"), &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::Io { .. }), "{e}");
    assert!(e.to_string().starts_with("/nonexistent/x.tsv: "), "{e}");
}

#[test]
fn text_and_cache_load_alike_and_policies_report() {
    let dir = tempfile::tempdir().unwrap();
    let src = b"# header\n0?01\ta\th1\n????\tb\th1\n0110\tc\th2\tweight=3\n";
    let t = write(dir.path(), "x.tsv", src);
    let raw = text::read_file(&t).unwrap();
    let c = dir.path().join("x.fgpd");
    cache::write_file(&raw, &c).unwrap();
    let lt = load(&t, &LoadOptions::default()).unwrap();
    let lc = load(&c, &LoadOptions::default()).unwrap();
    assert_eq!(lt.report.format, Format::Text);
    assert_eq!(lc.report.format, Format::Binary);
    assert_eq!(lt.dataset, lc.dataset);
    assert_eq!(lt.report.unknown, lc.report.unknown);
    let r = &lt.report;
    assert_eq!(
        (
            r.pages_read,
            r.unknown.pages_dropped,
            r.unknown.cycles_imputed()
        ),
        (3, 1, 1)
    );
    assert_eq!(lt.dataset.pages(), 2);
    assert_eq!(lt.dataset.id(1), Some("c"));
    assert_eq!(lt.dataset.weight(1), 3.0);
    assert!(!lt.dataset.has_unknown());
    let keep = load(
        &t,
        &LoadOptions {
            unknown: UnknownPolicy::Keep,
        },
    )
    .unwrap();
    assert_eq!(keep.dataset.unknown_count(), 5);
    // a file whose every page is dropped is an error, not an empty dataset
    let all = write(dir.path(), "all.tsv", b"????\n0???\n");
    let e = load(&all, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("every page was dropped"), "{e}");
}

#[test]
fn truncated_or_foreign_cache_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = freshgp::data::Dataset::from_bit_strings(&["0101", "1100"]).unwrap();
    let c = dir.path().join("c.fgpd");
    cache::write_file(&d, &c).unwrap();
    let bytes = std::fs::read(&c).unwrap();
    let cut = write(dir.path(), "cut.fgpd", &bytes[..bytes.len() - 3]);
    let e = load(&cut, &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::Cache { .. }), "{e}");
    assert!(e.to_string().contains("truncated"), "{e}");
    // a foreign binary file reads as text, and fails as text with a location
    let foreign = write(dir.path(), "f.bin", b"\x7fELF\x02\x01\x01\x00");
    let e = load(&foreign, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains(":1:1: wrong character"), "{e}");
}

fn real(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/real")).join(name)
}

#[test]
fn real_files_load() {
    for (name, pages) in [
        ("OpenTermsArchive+contrib-versions.57.tsv", 879),
        ("OpenTermsArchive+pga-versions.57.tsv", 131),
        ("endoflife-date+release-data.57.tsv", 491),
        ("ScoopInstaller+Main.57.tsv", 1590),
    ] {
        let p = real(name);
        let l = load(&p, &LoadOptions::default()).unwrap();
        assert_eq!(
            (l.dataset.pages(), l.dataset.cycles()),
            (pages, 57),
            "{name}"
        );
        assert!(l.dataset.has_ids());
        let s = freshgp::data::stats::Stats::of(&l.dataset);
        assert!(
            (0.01..0.06).contains(&s.mean_change_fraction),
            "{name}: {}",
            s.mean_change_fraction
        );
    }
}

#[test]
fn committed_sample_loads_and_matches_its_recipe() {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/brdc12-sample.tsv"
    ));
    let l = load(p, &LoadOptions::default()).unwrap();
    assert_eq!((l.dataset.pages(), l.dataset.cycles()), (3000, 57));
    // datasets/README.md: freshgp dataset synth --preset brdc12 --pages 3000 --days 57 --seed 12
    let mut params = freshgp::data::synth::SynthParams::preset("brdc12").unwrap();
    params.pages = 3000;
    params.days = 57;
    let g = freshgp::data::synth::generate(&params, 12).unwrap();
    assert_eq!(
        g, l.dataset,
        "the sample no longer matches the generator: regenerate it"
    );
}
