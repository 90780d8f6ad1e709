//! Tests of the scheduler's state files: round trips, damaged files, every older version.

use super::*;
use crate::formula::Grammar;
use crate::policy::{Adaptive, Baseline, Histories, PageState, PageStats, Policy};
use crate::schedule::attributes::NONE;
use crate::schedule::legacy::{codec, SavedRef};
use crate::schedule::saved::{SavedExtra, SavedSets, SavedStats, SetWriter};
use bincode::Options;

fn sample() -> Scheduler {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Gad)).with_seed(9);
    for (i, page) in ["a", "b", "c", "d"].iter().enumerate() {
        if i % 2 == 0 {
            s.add_with_host(page.to_string(), "h").unwrap();
        } else {
            s.add(page.to_string()).unwrap();
        }
    }
    for d in 1..=5u32 {
        s.observe("a", d, d % 2 == 1).unwrap();
        s.observe("b", d, d == 3).unwrap();
    }
    s.observe("c", 2, true).unwrap();
    s.remove("d").unwrap();
    s
}

#[test]
fn round_trip_keeps_everything() {
    let mut s = sample();
    let bytes = s.to_bytes().unwrap();
    let mut back: Scheduler = Scheduler::from_bytes(&bytes, "mem").unwrap();
    assert_eq!((back.seed(), back.latest_cycle(), back.len()), (9, 5, 3));
    assert_eq!(back.policy(), s.policy());
    for page in ["a", "b", "c"] {
        assert_eq!(back.stats(page), s.stats(page), "{page}");
        assert_eq!(back.host(page), s.host(page), "{page}");
        assert_eq!(back.slot(page), s.slot(page), "{page}");
    }
    assert_eq!(back.free, s.free);
    assert_eq!(
        back.next_batch_scored(6, 3, Some(1)).unwrap(),
        s.next_batch_scored(6, 3, Some(1)).unwrap()
    );
    assert_eq!(back.to_bytes().unwrap(), bytes, "saving is deterministic");
}

#[test]
fn damaged_files_are_clear_errors() {
    let bytes = sample().to_bytes().unwrap();
    let reason = |b: &[u8]| match Scheduler::<String>::from_bytes(b, "st.bin") {
        Err(StateError::Corrupt { file, reason }) => {
            assert_eq!(file, "st.bin");
            reason
        }
        other => panic!("expected a corrupt-state error, got {other:?}"),
    };
    assert!(reason(b"BITS\t0101\n").contains("magic"));
    assert!(reason(&bytes[..10]).contains("truncated"));
    assert!(reason(&bytes[..bytes.len() - 3]).contains("truncated"));
    let mut flipped = bytes.clone();
    flipped[30] ^= 0x10;
    assert!(reason(&flipped).contains("checksum"));
    let mut version = bytes.clone();
    version[8] = 9;
    assert!(reason(&version).contains("version 9"));
    // A consistent checksum over an inconsistent state is still refused.
    let policy = Policy::from(Baseline::Age);
    let saved = SavedRef::<String> {
        policy: &policy,
        seed: 0,
        latest: 2,
        ids: &[Some("a".into())],
        stats: vec![SavedStats {
            n: 1,
            x: 2,
            last_visit: 1,
            last_change: 1,
            change_cycle_sum: 1,
            gad_anchor: 1.0,
        }],
        hosts: &[NONE],
        host_names: &[],
        free: &[],
        memory: vec![0.0],
        extra: vec![SetWriter::new().extra(&PageStats::default(), &Histories::default())],
        weights: &[1.0],
        sets: vec![vec![]],
        bandit: None,
        windows: Vec::new(),
        attributes: &[],
        grouping: None,
    };
    assert!(reason(&forge(6, &saved)).contains("more changes than visits"));
    let nutch = Policy::from(Adaptive::NUTCH);
    let impossible = SavedRef {
        policy: &nutch,
        stats: vec![SavedStats::default()],
        memory: vec![0.5],
        ..saved
    };
    let why = reason(&forge(6, &impossible));
    assert!(
        why.contains("policy memory 0.5 is impossible for nutch"),
        "{why}"
    );
    for (weight, shown) in [(f64::NAN, "NaN"), (-1.0, "-1"), (f64::INFINITY, "inf")] {
        let bad_weight = SavedRef {
            policy: &nutch,
            seed: 0,
            latest: 2,
            ids: &[Some("a".to_string())],
            stats: vec![SavedStats::default()],
            hosts: &[NONE],
            host_names: &[],
            free: &[],
            memory: vec![30.0],
            extra: vec![SetWriter::new().extra(&PageStats::default(), &Histories::default())],
            weights: &[weight],
            sets: vec![vec![]],
            bandit: None,
            windows: Vec::new(),
            attributes: &[],
            grouping: None,
        };
        let why = reason(&forge(6, &bad_weight));
        assert_eq!(
            why,
            format!("page \"a\": weight {shown} is not a finite number >= 0")
        );
    }
}

/// `s`'s saved fields, to forge files of other versions or contents from.
struct Parts {
    stats: Vec<SavedStats>,
    memory: Vec<f64>,
    extra: Vec<SavedExtra>,
    sets: SavedSets,
}

fn parts(s: &Scheduler) -> Parts {
    let mut writer = SetWriter::new();
    let mut p = Parts {
        stats: Vec::new(),
        memory: Vec::new(),
        extra: Vec::new(),
        sets: Vec::new(),
    };
    for &g in &s.group_of {
        let page = match g {
            NONE => PageState::default(),
            g => s.groups.pages[g as usize],
        };
        p.stats.push(page.stats.into());
        p.memory.push(page.memory);
        p.extra.push(writer.extra(&page.stats, &s.histories));
    }
    p.sets = writer.finish();
    p
}

/// A version 3 file of `s` with its parts changed by `change`.
fn forge_v3(s: &Scheduler, change: impl FnOnce(&mut Parts, &mut Vec<f64>)) -> Vec<u8> {
    let mut p = parts(s);
    let mut weights = s.weight_of.clone();
    change(&mut p, &mut weights);
    // Version 3's fields, in order (version 4 adds the bandit).
    forge(
        3,
        &(
            &s.policy,
            s.seed,
            s.latest,
            &s.ids.all(),
            p.stats,
            &s.host_of,
            &s.host_names,
            &s.free,
            p.memory,
            p.extra,
            &weights,
            p.sets,
        ),
    )
}

/// A version 2 file of `s` (version 3 without the tracked part).
fn forge_v2(s: &Scheduler) -> Vec<u8> {
    let p = parts(s);
    let v2 = (
        s.policy(),
        s.seed(),
        s.latest_cycle(),
        &s.ids.all(),
        p.stats,
        &s.host_of,
        &s.host_names,
        &s.free,
        p.memory,
    );
    forge(2, &v2)
}

const EXTENDED: &str = "w * MLE * t / (HR + 0.1) + n7 - X7 * tc";

/// Pages of two hosts and none, of several weights, observed irregularly; one
/// removed, one moved to another host, one reweighted.
fn extended(text: &str) -> Scheduler {
    let policy = Policy::parse(text, &Grammar::extended()).unwrap();
    let mut s: Scheduler = Scheduler::new(policy).with_seed(2);
    let pages = ["a", "b", "c", "d", "e", "f", "g"];
    for (i, page) in pages.iter().enumerate() {
        let host = [Some("x.org"), Some("y.org"), None][i % 3];
        s.add_weighted(page.to_string(), host, i as f64 * 0.5)
            .unwrap();
    }
    for d in 1..=12u32 {
        for (i, page) in pages.iter().enumerate() {
            if d <= 2 || (d as usize * 7 + i).is_multiple_of(4) {
                s.observe(*page, d, (d as usize + i).is_multiple_of(3))
                    .unwrap();
            }
        }
    }
    s.remove("d").unwrap();
    s.set_host("e", Some("x.org")).unwrap();
    s.set_weight("f", 4.0).unwrap();
    s
}

/// The page's statistics with its interval multiset as a list (ids are per run).
fn comparable(s: &Scheduler, page: &str) -> (PageState, Vec<u32>, f64, Option<String>) {
    let state = *s.state(page).unwrap();
    let intervals = s.histories().intervals(state.stats.changed_set);
    let mut without_id = state;
    without_id.stats.changed_set = 0;
    let host = s.host(page).map(str::to_string);
    (without_id, intervals, s.weight(page).unwrap(), host)
}

#[test]
fn section8_statistics_round_trip() {
    for text in [EXTENDED, "nutch", "w * t + HR"] {
        let mut s = extended(text);
        let bytes = s.to_bytes().unwrap();
        assert_eq!(u32_le(&bytes[8..12]), VERSION);
        let mut back: Scheduler = Scheduler::from_bytes(&bytes, "mem").unwrap();
        for page in ["a", "b", "c", "e", "f", "g"] {
            assert_eq!(
                comparable(&back, page),
                comparable(&s, page),
                "{text}: {page}"
            );
        }
        assert_eq!(
            back.to_bytes().unwrap(),
            bytes,
            "{text}: saving is deterministic"
        );
        // Both rank and go on alike, host totals included.
        for d in 13..=16u32 {
            assert_eq!(
                back.next_batch_scored(d, 3, Some(1)).unwrap(),
                s.next_batch_scored(d, 3, Some(1)).unwrap(),
                "{text}: cycle {d}"
            );
            for (i, page) in ["a", "b", "e", "g"].iter().enumerate() {
                let changed = (d as usize + i).is_multiple_of(2);
                s.observe(*page, d, changed).unwrap();
                back.observe(*page, d, changed).unwrap();
            }
        }
        assert_eq!(back.distinct_stats(), s.distinct_stats(), "{text}");
    }
}

#[test]
fn inconsistent_section8_statistics_are_refused() {
    let s = extended(EXTENDED);
    let reason = |bytes: Vec<u8>| match Scheduler::<String>::from_bytes(&bytes, "s3") {
        Err(StateError::Corrupt { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    let a = s.slot("a").unwrap() as usize;
    let b = s.slot("b").unwrap() as usize;
    assert!(Scheduler::<String>::from_bytes(&forge_v3(&s, |_, _| {}), "s3").is_ok());
    let why = reason(forge_v3(&s, |_, w| w[b] = f64::NAN));
    assert_eq!(why, "page \"b\": weight NaN is not a finite number >= 0");
    let why = reason(forge_v3(&s, |_, w| w[b] = 7.0));
    assert_eq!(why, "page \"b\": its statistics hold weight 0.5, not 7");
    let why = reason(forge_v3(&s, |p, _| p.extra[a].track = 1));
    assert!(
        why.contains("kept for w but the policy reads w, HR, n7/X7, MLE"),
        "{why}"
    );
    let why = reason(forge_v3(&s, |p, _| p.extra[b].recent_visits ^= 1));
    assert!(
        why.starts_with("page \"b\": recent visit/change masks"),
        "{why}"
    );
    let why = reason(forge_v3(&s, |p, _| p.extra[b].unchanged_time += 1));
    assert!(why.contains("visit intervals"), "{why}");
    let why = reason(forge_v3(&s, |p, _| p.sets.truncate(1)));
    assert!(why.contains("is not listed"), "{why}");
    let why = reason(forge_v3(&s, |p, _| {
        p.extra.pop();
    }));
    assert!(why.contains("tracked statistics"), "{why}");
}

#[test]
fn version_2_states_load_with_weight_1_or_are_refused_without_history() {
    // Weights and hosts need no history: the pages get weight 1, HR its totals.
    let mut s = extended("w * t + HR");
    let mut back: Scheduler = Scheduler::from_bytes(&forge_v2(&s), "v2.state").unwrap();
    for page in ["a", "b", "c", "e", "f", "g"] {
        s.set_weight(page, 1.0).unwrap();
        assert_eq!(back.weight(page), Some(1.0), "{page}");
        assert_eq!(back.state(page), s.state(page), "{page}");
    }
    assert_eq!(
        back.next_batch_scored(13, 6, None).unwrap(),
        s.next_batch_scored(13, 6, None).unwrap()
    );
    // n7, X7 and MLE need the visit history a version 2 file does not keep.
    for (text, needs) in [
        (EXTENDED, "n7/X7 and MLE"),
        ("MLE * t", "MLE"),
        ("n7", "n7/X7"),
    ] {
        let err = Scheduler::<String>::from_bytes(&forge_v2(&extended(text)), "v2.state")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("v2.state: not a usable scheduler state: page \"a\": a version 2 state keeps no visit history"), "{err}");
        assert!(
            err.contains(&format!("reads {needs}: start a new state file")),
            "{err}"
        );
    }
    // ... unless no page was visited yet.
    let policy = Policy::parse(EXTENDED, &Grammar::extended()).unwrap();
    let mut fresh: Scheduler = Scheduler::new(policy);
    fresh.add_with_host("a".into(), "h").unwrap();
    let back: Scheduler = Scheduler::from_bytes(&forge_v2(&fresh), "v2.state").unwrap();
    assert_eq!(back.state("a"), fresh.state("a"));
}

/// A file of `version` holding `payload`, with a correct checksum.
fn forge(version: u32, payload: &impl Serialize) -> Vec<u8> {
    let mut forged = MAGIC.to_vec();
    forged.extend_from_slice(&version.to_le_bytes());
    let payload = codec().serialize(payload).unwrap();
    forged.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    forged.extend_from_slice(&payload);
    let crc = crc32fast::hash(&forged);
    forged.extend_from_slice(&crc.to_le_bytes());
    forged
}

#[test]
fn version_1_states_still_load() {
    let s = sample();
    let stats: Vec<SavedStats> = s
        .group_of
        .iter()
        .map(|&g| match g {
            NONE => SavedStats::default(),
            g => s.groups.pages[g as usize].stats.into(),
        })
        .collect();
    // Version 1 is version 2 without the trailing memory (bincode encodes a struct as
    // the tuple of its fields).
    let v1 = (
        s.policy(),
        s.seed(),
        s.latest_cycle(),
        &s.ids.all(),
        stats,
        &s.host_of,
        &s.host_names,
        &s.free,
    );
    let back: Scheduler = Scheduler::from_bytes(&forge(1, &v1), "old.state").unwrap();
    assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap());
    let back: Scheduler = Scheduler::from_bytes(&forge_v2(&s), "old.state").unwrap();
    assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap());
}

#[test]
fn adaptive_memory_round_trips() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Adaptive::STORMCRAWLER));
    s.add("a".to_string()).unwrap();
    s.add("b".to_string()).unwrap();
    s.observe("a", 1, false).unwrap();
    s.observe("b", 1, true).unwrap();
    s.observe("a", 2, false).unwrap();
    let back: Scheduler = Scheduler::from_bytes(&s.to_bytes().unwrap(), "x").unwrap();
    assert_eq!(back.state("a").unwrap().memory, 2.25);
    assert_eq!(back.state("b").unwrap().memory, 1.0);
    assert_eq!(back.state("a"), s.state("a"));
    assert_eq!(back.policy(), s.policy());
}

#[test]
fn another_id_type_does_not_decode() {
    let bytes = sample().to_bytes().unwrap();
    assert!(matches!(
        Scheduler::<u64>::from_bytes(&bytes, "x"),
        Err(StateError::Corrupt { .. })
    ));
}
