//! The fuzz corpora replayed as tests: every input under `fuzz/seeds/<target>/`,
//! `fuzz/corpus/<target>/` (what the recorded campaign grew, minimized) and
//! `fuzz/regressions/<target>/` (each input that once broke a property) goes through the
//! same property function the fuzz target runs (`fuzz/src/lib.rs`, included here), so a
//! reader that regresses fails CI even where no fuzzer runs. Each input must also finish
//! within the fuzzer's time limit.

use std::path::Path;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod properties;

/// The fuzzer's limit for one input (`-timeout=10` in `fuzz/campaign.sh`).
const LIMIT: Duration = Duration::from_secs(10);

/// Runs every input of `target`'s folders; returns how many ran.
fn replay(target: &str, check: properties::Check) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut count = 0;
    for folder in ["seeds", "corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
            continue;
        };
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            // A file a running fuzzer replaced while its corpus was listed is gone.
            let data = match std::fs::read(&file) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                read => read.unwrap(),
            };
            let start = Instant::now();
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(
                outcome.is_ok(),
                "{target}: {} breaks a property",
                file.display()
            );
            assert!(
                start.elapsed() < LIMIT,
                "{target}: {} took {:?}",
                file.display(),
                start.elapsed()
            );
            count += 1;
        }
    }
    count
}

#[test]
fn every_corpus_input_keeps_its_readers_properties() {
    let mut seeded = Vec::new();
    for (target, check) in properties::TARGETS {
        let count = replay(target, check);
        eprintln!("{target}: {count} inputs");
        seeded.push((target, count));
    }
    // Every reader has inputs (a renamed folder would otherwise replay nothing).
    for (target, count) in seeded {
        assert!(count >= 2, "{target}: only {count} inputs under fuzz/");
    }
}

#[test]
fn each_regression_is_refused_where_it_once_got_through() {
    // Each input in fuzz/regressions/ once broke a property; the reader now refuses it
    // with an error at a place inside the input (so the replay above passes for the right
    // reason, not vacuously).
    use properties::ORIGIN;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let read = |path: &str| std::fs::read(dir.join(path)).unwrap();
    let text = read("dataset_text/carriage-return-in-an-id");
    let e = freshgp::data::text::read(&text[..], ORIGIN).err().unwrap();
    assert!(
        e.to_string()
            .starts_with(&format!("{ORIGIN}:1:7: a carriage return")),
        "{e}"
    );
    let log = read("crawl_log/control-characters-before-the-url");
    let e = freshgp::data::log::from_log(&log[..], ORIGIN, &Default::default());
    let message = e.err().unwrap().to_string();
    assert!(message.contains("space or control character"), "{message}");
    let model = freshgp::model::Model::from_json("", ORIGIN).unwrap_err();
    assert_eq!(
        model.to_string(),
        format!("{ORIGIN}:1:1: EOF while parsing a value")
    );
    let study = String::from_utf8(read("experiment/column-past-the-end-of-a-long-number")).unwrap();
    let e = freshgp::experiment::study::Study::from_ron(&study, ORIGIN).unwrap_err();
    let width = study.lines().nth(15).unwrap().chars().count();
    let place = format!("{ORIGIN}:16:{}:", width + 1);
    assert!(e.to_string().starts_with(&place), "{e} (line of {width})");
    // The observation log is refused, and the scheduler left as it was.
    let log = read("observe_log/carriage-return-in-a-value-after-a-new-page");
    let policy = freshgp::policy::Policy::parse("t", &freshgp::formula::Grammar::every()).unwrap();
    let mut s = freshgp::schedule::Scheduler::<String>::new(policy);
    let e = freshgp::schedule::log::apply(&mut s, &log[..], ORIGIN).unwrap_err();
    assert!(e.to_string().contains("carriage return"), "{e}");
    assert!(s.is_empty(), "a refused log added pages");
}

#[test]
fn the_place_check_fails_on_places_outside_the_input() {
    use properties::{check_located, ORIGIN};
    let fails = |text: &str, message: &str| {
        let outcome = std::panic::catch_unwind(|| check_located(text, message, false));
        assert!(outcome.is_err(), "{message:?} over {text:?} passed");
    };
    check_located("ab\ncd", &format!("{ORIGIN}:2:3: why"), false);
    check_located("ab\n", &format!("{ORIGIN}:2:1: end of input"), false);
    fails("ab\ncd", &format!("{ORIGIN}:3:1: why"));
    fails("ab\ncd", &format!("{ORIGIN}:2:4: why"));
    fails("ab", &format!("{ORIGIN}:0:1: why"));
    fails("ab", "elsewhere:1:1: an error that does not name the input");
    // The first place decides, not one the message quotes from the input.
    check_located("x", &format!("{ORIGIN}:1:1: `{ORIGIN}:9:9` is bad"), false);
}
