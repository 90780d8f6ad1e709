//! Tests of the compact state file (version 8, and 7 read): its size, its round trips, a loaded
//! state's lazy ids, damaged columns and ids, and saves that leave an unchanged file alone.

use super::*;
use crate::formula::Grammar;
use crate::policy::Baseline;
use crate::schedule::state::MAGIC;

/// Pages of three hosts and none, weighted, with attributes grouped for `GR`, observed
/// irregularly over 40 cycles (past the 30-cycle window), one removed.
fn varied(text: &str, pages: usize) -> Scheduler {
    let policy = Policy::parse(text, &Grammar::frequency()).unwrap();
    let mut s: Scheduler = Scheduler::new(policy).with_seed(3);
    for i in 0..pages {
        let host = [Some("x.org"), Some("y.org"), Some("z.org"), None][i % 4];
        s.add_weighted(format!("p{i}"), host, (i % 5) as f64 * 0.5)
            .unwrap();
        s.set_attribute(&format!("p{i}"), "kind", Some(["a", "b"][i % 2]))
            .unwrap();
    }
    s.group_by(Some("kind")).unwrap();
    for d in 1..=40u32 {
        for i in 0..pages {
            if d <= 2 || (d as usize * 7 + i).is_multiple_of(5) {
                s.observe(
                    format!("p{i}").as_str(),
                    d,
                    (d as usize + i).is_multiple_of(3),
                )
                .unwrap();
            }
        }
    }
    if pages > 1 {
        s.remove("p1").unwrap();
    }
    s
}

/// The page's statistics with its interval multiset as a list (set ids are per run).
fn comparable(s: &Scheduler, page: &str) -> Option<(PageStats, Vec<u32>)> {
    let stats = *s.stats(page)?;
    let intervals = s.histories().intervals(stats.changed_set);
    Some((
        PageStats {
            changed_set: Default::default(),
            ..stats
        },
        intervals,
    ))
}

const FORMULA: &str = "w * MLE * t / (HR + 0.1) + n7 - X7 * tc + GR * n30 - X30";

/// Where the columns of a version 8 file start: (entries, hosts, weights, ends, ids, slots).
fn layout(bytes: &[u8]) -> (usize, usize, usize, usize, usize, usize) {
    let payload = 20;
    let head_len = u64::from_le_bytes(bytes[payload..payload + 8].try_into().unwrap()) as usize;
    let (head, _) =
        split_head::<crate::schedule::bandit::LiveBandit>(&bytes[payload..bytes.len() - 4])
            .unwrap();
    let slots = head.slots as usize;
    let entries = payload + 8 + head_len;
    let hosts = entries + 4 * slots;
    let weights = hosts + 4 * slots;
    let ends = weights + 8 * slots;
    (entries, hosts, weights, ends, ends + 8 * slots, slots)
}

/// `bytes` with its checksum made right again (a damaged state, not a damaged file).
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let n = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

fn reason(bytes: &[u8]) -> String {
    match Scheduler::<String>::from_bytes(bytes, "s7") {
        Err(crate::schedule::StateError::Corrupt { reason, .. }) => reason,
        other => panic!("expected a corrupt state, got {other:?}"),
    }
}

#[test]
fn each_state_is_saved_once_and_a_page_takes_24_bytes_besides_its_id() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
    for i in 0..10_000 {
        s.add(format!("page-{i:05}")).unwrap();
        s.observe(
            format!("page-{i:05}").as_str(),
            1 + (i % 3) as u32,
            i % 2 == 0,
        )
        .unwrap();
    }
    let bytes = s.to_bytes().unwrap();
    assert_eq!(&bytes[..8], &MAGIC);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 8);
    let (_, _, _, _, ids, slots) = layout(&bytes);
    assert_eq!(slots, 10_000);
    // Six distinct states: the head is small, the rest is columns and ids (11 bytes each).
    assert!(ids < 20 + 8 + 400 + 24 * slots, "{ids}");
    assert_eq!(bytes.len() - 4 - ids, 11 * slots);
}

#[test]
fn a_loaded_state_ranks_and_saves_as_the_original() {
    for (text, pages) in [(FORMULA, 40), ("X / n * t", 7), ("NAD", 1)] {
        let mut s = varied(text, pages);
        let bytes = s.to_bytes().unwrap();
        let mut back: Scheduler = Scheduler::from_bytes(&bytes, "s7").unwrap();
        assert_eq!(
            back.to_bytes().unwrap(),
            bytes,
            "{text}: loaded and saved unchanged"
        );
        assert_eq!(back.len(), s.len());
        assert_eq!(
            back.next_batch_scored(41, 9, Some(2)).unwrap(),
            s.next_batch_scored(41, 9, Some(2)).unwrap(),
            "{text}"
        );
        // Looking pages up and changing the page set decodes the ids first.
        for i in 0..pages {
            let page = format!("p{i}");
            assert_eq!(
                comparable(&back, &page),
                comparable(&s, &page),
                "{text} {page}"
            );
            assert_eq!(back.slot(page.as_str()), s.slot(page.as_str()));
        }
        assert_eq!(
            back.pages().collect::<Vec<_>>(),
            s.pages().collect::<Vec<_>>()
        );
        for t in [&mut s, &mut back] {
            t.observe("p0", 42, true).unwrap();
            t.add_with_host("new".to_string(), "w.org").unwrap();
            assert!(t.remove("p1").is_err(), "p1 was removed or never added");
        }
        assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap(), "{text}");
    }
}

#[test]
fn a_loaded_state_keeps_its_file_ids_through_lookups_and_changes() {
    let mut s = varied("X / n * t", 50);
    let bytes = s.to_bytes().unwrap();
    let mut back: Scheduler = Scheduler::from_bytes(&bytes, "s7").unwrap();
    back.next_batch(41, 5).unwrap();
    back.observe("p3", 42, false).unwrap();
    assert_eq!(back.ids.file_unchanged(), Some(true));
    s.observe("p3", 42, false).unwrap();
    // A page added, one of the file removed, one added in its slot, one added and removed.
    for t in [&mut s, &mut back] {
        t.add("new".to_string()).unwrap();
        t.remove("p7").unwrap();
        t.add("in-p7s-slot".to_string()).unwrap();
        t.add("gone".to_string()).unwrap();
        t.remove("gone").unwrap();
        assert!(t.remove("p7").is_err() && t.add("new".to_string()).is_err());
        t.observe("new", 43, true).unwrap();
    }
    assert_eq!(back.ids.file_unchanged(), Some(false));
    for page in ["new", "in-p7s-slot", "gone", "p7", "p8", "p49"] {
        assert_eq!(back.slot(page), s.slot(page), "{page}");
    }
    assert_eq!(back.slot("in-p7s-slot"), Some(7));
    assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap());
    assert_eq!(
        back.pages().collect::<Vec<_>>(),
        s.pages().collect::<Vec<_>>()
    );
}

#[test]
fn damaged_columns_name_the_page_and_what_is_wrong() {
    let s = varied(FORMULA, 6);
    let bytes = s.to_bytes().unwrap();
    let (entries, hosts, weights, ends, ids, slots) = layout(&bytes);
    let put = |at: usize, value: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + value.len()].copy_from_slice(value);
        resealed(b)
    };
    // Slot 0 holds p0; slot 1 is free (p1 was removed).
    let why = reason(&put(weights, &f64::NAN.to_le_bytes()));
    assert_eq!(why, "page \"p0\": weight NaN is not a finite number >= 0");
    let why = reason(&put(weights, &7.0f64.to_le_bytes()));
    assert!(
        why.starts_with("page \"p0\": its statistics hold weight 0, not 7"),
        "{why}"
    );
    let why = reason(&put(hosts, &99u32.to_le_bytes()));
    assert_eq!(why, "page \"p0\": host 99 is not listed");
    let why = reason(&put(entries, &1000u32.to_le_bytes()));
    assert_eq!(why, "page \"p0\": page state 1000 is not listed");
    let why = reason(&put(entries + 4, &0u32.to_le_bytes()));
    assert!(
        why.contains("slot is listed free") || why.contains("host or a weight"),
        "{why}"
    );
    let why = reason(&put(entries, &NONE.to_le_bytes()));
    assert_eq!(why, "free slot 0 has a page id");
    let why = reason(&put(ends + 8 * (slots - 1), &u64::MAX.to_le_bytes()));
    assert!(why.contains("outside its place"), "{why}");
    assert!(ids < bytes.len());
    let mut huge = bytes.clone();
    huge.truncate(entries + 8);
    huge.extend_from_slice(&[0; 4]);
    let size = (huge.len() - 24) as u64;
    huge[12..20].copy_from_slice(&size.to_le_bytes());
    assert!(reason(&resealed(huge)).contains("bytes of columns"));
}

#[test]
fn ids_that_do_not_decode_or_repeat_are_refused() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
    for page in ["ab", "cd", "ef"] {
        s.add(page.to_string()).unwrap();
    }
    let bytes = s.to_bytes().unwrap();
    let (.., ids, _) = layout(&bytes);
    // Each id is its length (one byte) and its text.
    assert_eq!(&bytes[ids..ids + 9], b"\x02ab\x02cd\x02ef");
    let mut twice = bytes.clone();
    twice[ids + 7..ids + 9].copy_from_slice(b"ab");
    assert_eq!(reason(&resealed(twice)), "page \"ab\" is listed twice");
    let mut invalid = bytes.clone();
    invalid[ids + 4] = 0xff;
    let why = reason(&resealed(invalid));
    assert!(
        why.starts_with("the page id of slot 1 cannot be decoded"),
        "{why}"
    );
    // A non-minimal length (251: a u16 follows) is the same id: still a repeat.
    assert_eq!(reason(&second_id_long("ab")), "page \"ab\" is listed twice");
}

/// The state of the pages "ab" and then `id` (two letters), with the second's length
/// written as a u16 (in place of "xyzw": the same five bytes).
fn second_id_long(id: &str) -> Vec<u8> {
    let mut long = Scheduler::<String>::new(Policy::from(Baseline::Nad));
    long.add("ab".to_string()).unwrap();
    long.add("xyzw".to_string()).unwrap();
    let mut bytes = long.to_bytes().unwrap();
    let (.., ids, _) = layout(&bytes);
    bytes[ids + 3..ids + 6].copy_from_slice(&[251, 2, 0]);
    bytes[ids + 6..ids + 8].copy_from_slice(id.as_bytes());
    resealed(bytes)
}

#[test]
fn an_id_encoded_in_more_bytes_than_needed_is_encoded_again_once_the_state_changes() {
    let odd = second_id_long("cd");
    let mut back: Scheduler = Scheduler::from_bytes(&odd, "s").unwrap();
    assert_eq!(back.slot("cd"), Some(1));
    assert_eq!(
        back.to_bytes().unwrap(),
        odd,
        "unchanged: the file as it is"
    );
    let mut same = Scheduler::<String>::new(Policy::from(Baseline::Nad));
    same.add("ab".to_string()).unwrap();
    same.add("cd".to_string()).unwrap();
    for s in [&mut back, &mut same] {
        s.add("new".to_string()).unwrap();
    }
    assert_eq!(back.to_bytes().unwrap(), same.to_bytes().unwrap());
}

#[test]
fn a_file_of_many_repeated_ids_is_refused_quickly() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
    for i in 0..100_000 {
        s.add(format!("x{i:06}")).unwrap();
        s.add(format!("y{i:06}")).unwrap();
    }
    let mut bytes = s.to_bytes().unwrap();
    let (.., ids, _) = layout(&bytes);
    let n = bytes.len() - 4;
    for b in &mut bytes[ids..n] {
        if *b == b'y' {
            *b = b'x';
        }
    }
    let start = std::time::Instant::now();
    assert_eq!(reason(&resealed(bytes)), "page \"x000000\" is listed twice");
    // Comparing every pair of the 200,000 slots would take minutes.
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
}

#[test]
fn removing_an_unknown_page_keeps_the_ids_encoded() {
    let s = varied("X / n * t", 8);
    let mut back: Scheduler = Scheduler::from_bytes(&s.to_bytes().unwrap(), "s7").unwrap();
    assert!(back.remove("nowhere").is_err());
    assert_eq!(back.ids.file_unchanged(), Some(true));
}

#[test]
fn ids_of_other_types_are_checked_too() {
    let mut s: Scheduler<u64> = Scheduler::new(Policy::from(Baseline::Nad));
    for page in [5, 300, 7] {
        s.add(page).unwrap();
    }
    let bytes = s.to_bytes().unwrap();
    let back: Scheduler<u64> = Scheduler::from_bytes(&bytes, "s7").unwrap();
    assert_eq!(back.slot(&300), Some(1));
    let (.., ids, _) = layout(&bytes);
    let mut twice = bytes.clone();
    twice[ids + 4] = 5;
    let why = match Scheduler::<u64>::from_bytes(&resealed(twice), "s7") {
        Err(crate::schedule::StateError::Corrupt { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(why, "page 5 is listed twice");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any run of additions, removals, observations and lookups does to a state loaded
    /// from its file what it does to the state in memory: the same slots, lookups, batch
    /// and bytes.
    #[test]
    fn changes_to_a_loaded_state_match_the_state_in_memory(
        pages in 1usize..60,
        ops in proptest::collection::vec((0u8..4, 0usize..80), 0..60),
    ) {
        let mut s = varied("X / n * t", pages);
        let mut back: Scheduler = Scheduler::from_bytes(&s.to_bytes().unwrap(), "s").unwrap();
        let mut cycle = 41;
        for (op, i) in ops {
            let page = format!("p{i}");
            for t in [&mut s, &mut back] {
                match op {
                    0 => drop(t.add(page.clone())),
                    1 => drop(t.remove(page.as_str())),
                    2 => drop(t.observe(page.as_str(), cycle, i % 3 == 0)),
                    _ => drop(t.next_batch(cycle, 3)),
                }
            }
            cycle += (op == 2) as u32;
            proptest::prop_assert_eq!(back.slot(page.as_str()), s.slot(page.as_str()));
        }
        let names: Vec<String> = (0..80).map(|i| format!("p{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let each: Vec<Option<u32>> = refs.iter().map(|p| s.slot(*p)).collect();
        proptest::prop_assert_eq!(back.ids.slots_of(&refs), each.clone());
        proptest::prop_assert_eq!(s.ids.slots_of(&refs), each);
        proptest::prop_assert_eq!(back.next_batch(cycle, 5).unwrap(), s.next_batch(cycle, 5).unwrap());
        proptest::prop_assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap());
    }
}

#[test]
fn saving_an_unchanged_state_leaves_its_file_alone() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.state");
    let s = varied("X / n * t", 20);
    s.save(&path).unwrap();
    let inode = std::fs::metadata(&path).unwrap().ino();
    let mut back: Scheduler = Scheduler::load(&path).unwrap();
    back.next_batch(41, 5).unwrap();
    back.save(&path).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().ino(),
        inode,
        "not rewritten"
    );
    back.observe("p2", 41, true).unwrap();
    back.save(&path).unwrap();
    assert_ne!(std::fs::metadata(&path).unwrap().ino(), inode, "rewritten");
    assert_eq!(std::fs::read(&path).unwrap(), back.to_bytes().unwrap());
}

#[test]
fn version_6_files_load_and_save_as_version_7() {
    let s = varied(FORMULA, 12);
    let v6 = crate::schedule::legacy::forge_v6(&s);
    assert_eq!(u32::from_le_bytes(v6[8..12].try_into().unwrap()), 6);
    let back: Scheduler = Scheduler::from_bytes(&v6, "old").unwrap();
    assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap());
}

/// A version 7 file held a bandit's weights without its count of plays: it still loads (as
/// 0 plays: version 7 held EXP3 bandits only, which do not read it) and ranks as before.
#[test]
fn version_7_bandit_states_still_load() {
    use crate::schedule::bandit::{LiveBandit, LiveBanditV7};
    let kab3 = Policy::parse("kab3", &Grammar::all()).unwrap();
    let mut s: Scheduler = Scheduler::new(kab3).with_seed(4);
    for i in 0..20 {
        s.add_weighted(format!("p{i}"), Some("h.org"), 1.0 + i as f64)
            .unwrap();
    }
    for d in 1..=6u32 {
        let batch = s.next_batch(d, 5).unwrap();
        for page in batch {
            s.observe(page.as_str(), d, d % 2 == 0).unwrap();
        }
    }
    let v8 = s.to_bytes().unwrap();
    // The same state in the version 7 layout: the head with the older bandit record.
    let payload = &v8[20..v8.len() - 4];
    let (head, head_len) = split_head::<LiveBandit>(payload).unwrap();
    let old = bincode::DefaultOptions::new()
        .serialize(&head.map_bandit(|b| LiveBanditV7::from(&b)))
        .unwrap();
    let mut body = (old.len() as u64).to_le_bytes().to_vec();
    body.extend_from_slice(&old);
    body.extend_from_slice(&payload[8 + head_len..]);
    let mut v7 = MAGIC.to_vec();
    v7.extend_from_slice(&7u32.to_le_bytes());
    v7.extend_from_slice(&(body.len() as u64).to_le_bytes());
    v7.extend_from_slice(&body);
    v7.extend_from_slice(&crc32fast::hash(&v7).to_le_bytes());
    let mut back = Scheduler::<String>::from_bytes(&v7, "old.state").unwrap();
    let (weights, plays) = {
        let live = back.bandit.as_ref().unwrap();
        (live.state.log_weights().to_vec(), live.state.plays())
    };
    let live = s.bandit.as_ref().unwrap();
    assert_eq!(weights, live.state.log_weights());
    assert_eq!((plays, live.state.plays()), (0, 5));
    assert_eq!(back.next_batch(7, 5).unwrap(), s.next_batch(7, 5).unwrap());
}
