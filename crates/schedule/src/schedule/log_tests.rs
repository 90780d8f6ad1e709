//! Tests of observation logs: parsing, the rule for duplicate and out-of-order lines,
//! jumps, weights and attributes, records, and the order lines are applied in.

use super::*;
use crate::formula::Grammar;
use crate::policy::{Baseline, Policy};

#[test]
fn records_are_lines_checked_alike() {
    let record = |page: &str, cycle: u32, host: Option<&str>| Record {
        page: page.into(),
        cycle,
        changed: true,
        host: host.map(str::to_string),
        weight: Some(2.0),
        attributes: vec![("kind".into(), Some("news".into()))],
    };
    let mut by_records: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
    let records = [
        record("a", 2, Some("h")),
        record("b", 1, None),
        record("a", 2, None),
    ];
    let summary = apply_records(&mut by_records, &records, "obs", LogOptions::default()).unwrap();
    let mut by_log: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
    let log = "a\t2\t1\th\t2\tkind=news\nb\t1\t1\t\t2\tkind=news\na\t2\t1\t\t2\tkind=news\n";
    assert_eq!(summary, apply(&mut by_log, log.as_bytes(), "obs").unwrap());
    assert_eq!(by_records.to_bytes().unwrap(), by_log.to_bytes().unwrap());
    let before = by_records.to_bytes().unwrap();
    for (bad, why) in [
        (
            record("x\ty", 3, None),
            "obs:2: page id `x\\ty` holds a TAB or line break",
        ),
        (record("", 3, None), "obs:2: empty page id"),
        (
            record("x", 0, None),
            "obs:2: cycle 0: cycles are numbered from 1",
        ),
        (
            record("x", 3, Some("h\n")),
            "obs:2: host `h\\n` holds a TAB or line break",
        ),
    ] {
        let records = [record("c", 3, None), bad];
        let e = apply_records(&mut by_records, &records, "obs", LogOptions::default());
        assert_eq!(e.unwrap_err().to_string(), why);
        assert_eq!(by_records.to_bytes().unwrap(), before, "{why}");
    }
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_page() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    let text = "\u{feff}a\t1\t1\r\nb\t1\t0\r\n";
    apply(&mut s, text.as_bytes(), "bom.tsv").unwrap();
    assert!(
        s.contains("a") && s.contains("b"),
        "{:?}",
        s.pages().collect::<Vec<_>>()
    );
    assert_eq!(s.len(), 2);
}

#[test]
fn a_carriage_return_inside_a_line_is_refused_before_anything_is_applied() {
    assert!(parse_line("p\r\t3\t1")
        .unwrap_err()
        .contains("carriage return"));
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    let before = s.to_bytes().unwrap();
    let log = "p0\t2\t1\np8\t2\t1\t\t\tcolor=r\r1\n";
    let e = apply(&mut s, log.as_bytes(), "cr.tsv").unwrap_err();
    assert!(e.to_string().starts_with("cr.tsv:2:"), "{e}");
    assert_eq!(
        s.to_bytes().unwrap(),
        before,
        "the refused log changed the state"
    );
}

#[test]
fn lines_parse_or_say_why_not() {
    assert_eq!(parse_line("# comment"), Ok(None));
    assert_eq!(parse_line("  "), Ok(None));
    assert_eq!(
        parse_line("p\t3\t1\th\r"),
        Ok(Some(Observation {
            page: "p",
            cycle: 3,
            changed: true,
            host: Some("h"),
            weight: None,
            attributes: vec![],
        }))
    );
    assert_eq!(
        parse_line("p\t3\t0\t\t0.25"),
        Ok(Some(Observation {
            page: "p",
            cycle: 3,
            changed: false,
            host: None,
            weight: Some(0.25),
            attributes: vec![],
        }))
    );
    let weighted = parse_line("p\t3\t0\th\t-0").unwrap().unwrap();
    assert_eq!((weighted.host, weighted.weight), (Some("h"), Some(0.0)));
    assert!(weighted.weight.unwrap().is_sign_positive(), "-0 reads as 0");
    for bad in ["-1", "NaN", "inf", "", "1e400", "two"] {
        let err = parse_line(&format!("p\t1\t1\th\t{bad}")).unwrap_err();
        assert_eq!(
            err,
            format!("fifth field `{bad}` must be a weight (a finite number >= 0)")
        );
    }
    assert!(parse_line("p\t3").unwrap_err().contains("2 TAB-separated"));
    assert!(parse_line("p\t0\t1").unwrap_err().contains("`0`"));
    assert!(parse_line("p\tx\t1").unwrap_err().contains("`x`"));
    assert!(parse_line("\t1\t1").unwrap_err().contains("empty page"));
    assert!(parse_line("p\t1\t1\t").unwrap_err().contains("empty host"));
    assert!(parse_line("p\t1\t1\th\t1\textra")
        .unwrap_err()
        .contains("field 6 `extra`: an attribute must be key=value"));
}

#[test]
fn duplicate_and_out_of_order_lines_follow_the_rule() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    // Out of order: applied in cycle order. The same page and cycle twice: the last.
    let text = "b\t5\t1\nb\t3\t0\na\t2\t0\n\na\t2\t1\n";
    let summary = apply(&mut s, text.as_bytes(), "log.tsv").unwrap();
    assert_eq!((summary.observations, summary.added), (3, 2));
    assert_eq!((summary.duplicates, summary.stale), (1, 0));
    let b = s.stats("b").unwrap();
    assert_eq!((b.n, b.x, b.last_visit), (2, 1, 5));
    assert_eq!(
        s.stats("a").map(|st| (st.n, st.x)),
        Some((1, 1)),
        "the last line"
    );
    assert_eq!(
        summary.first_skipped.as_deref(),
        Some("log.tsv:3: page a at cycle 2 again on line 5 (the last line is applied)")
    );
    // Pages are added in the order the file names them first.
    assert_eq!(s.pages().collect::<Vec<_>>(), ["b", "a"]);
    // Not after the state's latest observation of the page: skipped, counted.
    let summary = apply(&mut s, "a\t1\t1\na\t3\t0\n".as_bytes(), "log.tsv").unwrap();
    assert_eq!((summary.observations, summary.stale), (1, 1));
    assert!(summary
        .first_skipped
        .unwrap()
        .starts_with("log.tsv:1: page a at cycle 1, not after its latest observation (cycle 2)"));
    // A later host column moves the page.
    apply(&mut s, "a\t4\t1\tnew.org\n".as_bytes(), "log.tsv").unwrap();
    assert_eq!(s.host("a"), Some("new.org"));
}

#[test]
fn a_cycle_far_beyond_the_state_is_refused_unless_forced() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    apply(&mut s, "a\t10\t1\n".as_bytes(), "log.tsv").unwrap();
    let far = "b\t11\t0\na\t1700000000\t1\n";
    let err = apply(&mut s, far.as_bytes(), "log.tsv").unwrap_err();
    assert!(
        matches!(
            err,
            LogError::Jump {
                line: 2,
                cycle: 1_700_000_000,
                latest: 11,
                limit: 366,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        !s.contains("b") && s.latest_cycle() == 10,
        "nothing applied"
    );
    // The limit is 366 past the cycle before: 376 passes, 377 does not.
    assert!(apply(&mut s, "a\t376\t1\n".as_bytes(), "log.tsv").is_ok());
    let limited = LogOptions { max_jump: Some(5) };
    assert!(apply_with(&mut s, "a\t382\t1\n".as_bytes(), "l", limited).is_err());
    // A long history imported into a new state passes: each cycle follows the one before.
    let mut fresh: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    let history: String = (1..=1000).map(|d| format!("a\t{d}\t{}\n", d % 2)).collect();
    assert_eq!(
        apply(&mut fresh, history.as_bytes(), "h")
            .unwrap()
            .observations,
        1000
    );
    // A timestamp as a new state's first cycle does not.
    let mut fresh: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    let err = apply(&mut fresh, "a\t1700000000\t1\n".as_bytes(), "h").unwrap_err();
    assert!(matches!(err, LogError::Jump { latest: 0, .. }), "{err:?}");
    let forced = LogOptions { max_jump: None };
    apply_with(&mut s, far.as_bytes(), "log.tsv", forced).unwrap();
    assert_eq!(s.latest_cycle(), 1_700_000_000);
}

#[test]
fn a_weight_column_sets_the_weight_and_a_malformed_log_changes_nothing() {
    let policy = Policy::parse("w * t", &Grammar::extended()).unwrap();
    let mut s: Scheduler = Scheduler::new(policy);
    let text = "a\t1\t0\th.org\t3\nb\t1\t1\nc\t1\t0\t\t0\n";
    let summary = apply(&mut s, text.as_bytes(), "w.tsv").unwrap();
    assert_eq!((summary.observations, summary.added), (3, 3));
    assert_eq!((s.weight("a"), s.host("a")), (Some(3.0), Some("h.org")));
    assert_eq!(
        (s.weight("b"), s.weight("c"), s.host("c")),
        (Some(1.0), Some(0.0), None)
    );
    // The policy reads `w`: the statistics hold the weight.
    assert_eq!(s.stats("a").unwrap().weight, 3.0);
    assert_eq!(s.next_batch(2, 3).unwrap(), ["a", "b", "c"]);
    // A later weight (host left as it is) reorders; of two lines of one cycle, the
    // last one's host and weight apply.
    apply(&mut s, "c\t2\t0\t\t9\n".as_bytes(), "w.tsv").unwrap();
    assert_eq!((s.weight("c"), s.host("c")), (Some(9.0), None));
    let summary = apply(
        &mut s,
        "a\t3\t0\n\na\t3\t0\tother.org\t5\n".as_bytes(),
        "w.tsv",
    )
    .unwrap();
    assert_eq!(summary.duplicates, 1);
    assert_eq!((s.weight("a"), s.host("a")), (Some(5.0), Some("other.org")));
    let err = apply(&mut s, "a\t4\t0\th.org\tNaN\n".as_bytes(), "w.tsv").unwrap_err();
    assert_eq!(
        err.to_string(),
        "w.tsv:1: fifth field `NaN` must be a weight (a finite number >= 0)"
    );
    assert_eq!(
        s.stats("a").unwrap().n,
        2,
        "a malformed line is not applied"
    );
    // Without `w` in the policy, the weight is kept by the scheduler only.
    let mut plain: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    apply(&mut plain, text.as_bytes(), "w.tsv").unwrap();
    assert_eq!(plain.weight("a"), Some(3.0));
    assert_eq!(plain.stats("a"), plain.stats("c"), "w and HR are not read");
}

#[test]
fn attribute_fields_set_attributes_and_group_rates_follow_them() {
    let obs = parse_line("p\t3\t1\t\t\tcategory=shoes\tbrand=")
        .unwrap()
        .unwrap();
    assert_eq!((obs.host, obs.weight), (None, None));
    assert_eq!(
        obs.attributes,
        [("category", Some("shoes")), ("brand", None)]
    );
    for (line, why) in [
        (
            "p\t3\t1\th\t1\tshoes",
            "field 6 `shoes`: an attribute must be key=value",
        ),
        (
            "p\t3\t1\th\t1\thost=x",
            "field 6 `host=x`: bad attribute key `host`",
        ),
        (
            "p\t3\t1\th\t\t",
            "field 6 ``: an attribute must be key=value",
        ),
    ] {
        let err = parse_line(line).unwrap_err();
        assert!(err.contains(why), "{line:?}: {err}");
    }
    // GR by category: a and b pool their visits, c (no category) stands alone; moving
    // b to another category moves its totals.
    let mut s: Scheduler =
        Scheduler::new(Policy::parse("GR", &crate::formula::Grammar::frequency()).unwrap());
    s.group_by(Some("category")).unwrap();
    let log = "a\t1\t1\t\t\tcategory=x\nb\t1\t0\t\t\tcategory=x\nc\t1\t1\n\
           a\t2\t1\nb\t2\t0\nc\t2\t0\n";
    apply(&mut s, log.as_bytes(), "crawl.log").unwrap();
    let rate = |s: &Scheduler, page: &str| s.host_rates().group_rate(s.stats(page).unwrap());
    assert_eq!(
        (rate(&s, "a"), rate(&s, "b"), rate(&s, "c")),
        (0.5, 0.5, 0.5)
    );
    assert_eq!(s.attribute("a", "category"), Some("x"));
    assert_eq!(s.attributes("c"), []);
    apply(&mut s, "b\t3\t0\t\t\tcategory=y\n".as_bytes(), "crawl.log").unwrap();
    assert_eq!((rate(&s, "a"), rate(&s, "b")), (1.0, 0.0));
    // Saved and loaded, the attributes, the grouping and the totals come back.
    let back: Scheduler = Scheduler::from_bytes(&s.to_bytes().unwrap(), "<mem>").unwrap();
    assert_eq!(back.grouping(), Some("category"));
    assert_eq!(back.attributes("b"), [("category", "y")]);
    assert_eq!(
        (rate(&back, "a"), rate(&back, "b"), rate(&back, "c")),
        (1.0, 0.0, 1.0 / 2.0)
    );
    // Regrouped by host (none here: every page its own), GR is each page's own rate.
    s.group_by(None).unwrap();
    assert_eq!((rate(&s, "a"), rate(&s, "b")), (1.0, 0.0));
    assert!(s
        .group_by(Some("9x"))
        .unwrap_err()
        .to_string()
        .contains("bad attribute key"));
    assert!(s
        .set_attribute("a", "category", Some("a\tb"))
        .unwrap_err()
        .to_string()
        .contains("page \"a\": attribute category"));
}

#[test]
fn lines_end_as_a_reader_s_lines_end() {
    let numbers = |text: &[u8]| -> Vec<(usize, String)> {
        parse_lines(text, "f")
            .unwrap()
            .iter()
            .map(|l| (l.number, l.page.to_string()))
            .collect()
    };
    let pair = |n: usize, p: &str| (n, p.to_string());
    assert_eq!(numbers(b""), []);
    assert_eq!(numbers(b"\n"), []);
    assert_eq!(numbers(b"a\t1\t0"), [pair(1, "a")]);
    assert_eq!(
        numbers(b"a\t1\t0\r\n\n# c\nb\t1\t1\n\n"),
        [pair(1, "a"), pair(4, "b")]
    );
    assert_eq!(
        numbers(b"a\t1\t0\r\r\nb\t1\t1"),
        [pair(1, "a"), pair(2, "b")]
    );
    let err = parse_lines(b"a\t1\t0\n\xff\t1\t0\n", "f").unwrap_err();
    assert_eq!(
        err.to_string(),
        "f: line 2: stream did not contain valid UTF-8"
    );
}

#[test]
fn a_failed_read_names_the_line_it_stopped_in() {
    /// Two lines and the start of a third, then an error.
    struct Failing(&'static [u8]);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let input = std::io::BufReader::new(Failing(b"a\t1\t0\nb\t1\t1\nc\t"));
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
    let err = apply(&mut s, input, "f").unwrap_err();
    assert_eq!(err.to_string(), "f: line 3: disk gone");
    assert!(s.is_empty());
    // A bad line read before the failure is reported first.
    let input = std::io::BufReader::new(Failing(b"a\t1\t0\nb\tx\t1\nc\t"));
    let err = apply(&mut s, input, "f").unwrap_err();
    assert_eq!(
        err.to_string(),
        "f:2: second field `x` must be a cycle number (1 or more)"
    );
}

proptest::proptest! {
    /// Lines are applied by cycle, then page, then line number, whatever prefix the
    /// pages share and however long they are.
    #[test]
    fn the_cycle_order_sorts_by_cycle_page_and_line(
        lines in proptest::collection::vec(
            (1u32..4, "(https://h/)?[ab\\x00]{0,20}", proptest::bool::ANY),
            0..200,
        ),
    ) {
        let lines: Vec<Line<'_>> = lines
            .iter()
            .enumerate()
            .map(|(i, (cycle, page, changed))| Line {
                number: i + 1,
                page,
                cycle: *cycle,
                changed: *changed,
                host: None,
                weight: None,
                attributes: Vec::new(),
            })
            .collect();
        let mut expected: Vec<usize> = (0..lines.len()).collect();
        expected.sort_by_key(|&i| (lines[i].cycle, lines[i].page, lines[i].number));
        proptest::prop_assert_eq!(cycle_order(&lines), expected);
    }
}
