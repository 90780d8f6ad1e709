//! The properties every reader of user text must keep, one function a reader, shared by
//! the fuzz targets (`fuzz_targets/*.rs`, one line each) and by the main crate's replay of
//! the corpora (`tests/fuzz_corpora.rs`, which includes this file), so that what the fuzzer
//! checks and what CI replays are the same code.
//!
//! Every function takes arbitrary bytes and panics only when a property fails:
//! - the reader returns (an error or a value) without panicking; the fuzzer's time limit
//!   catches a hang, and an allocation above 256 MB aborts (fuzz builds);
//! - an error that names a place (`input:LINE` or `input:LINE:COLUMN`) names one inside
//!   the input, and an error always names the input;
//! - where the reader has a writer, writing what was read and reading it back gives the
//!   same value (and writing that again the same bytes);
//! - where a reader updates a value in place, an error leaves the value unchanged.

use freshgp::archive::{self, ArchiveOptions, Input, OnError};
use freshgp::data::{cache, log, synth::SynthParams, text, weights, DataError, Dataset};
use freshgp::experiment::study::Study;
use freshgp::formula::{Formula, Grammar};
use freshgp::model::Model;
use freshgp::policy::{Policy, Predictor};
use freshgp::schedule::Scheduler;
use std::sync::OnceLock;

/// The largest allocation a fuzzed reader may make. libFuzzer's `-malloc_limit_mb` needs
/// a sanitizer's allocator hooks, which `--sanitizer none` lacks, and its RSS check misses
/// memory that is allocated but never touched; a reader that believes a header's count
/// would pass unseen. Above this the allocator aborts, which libFuzzer reports as a crash.
#[cfg(fuzzing)]
const MAX_ALLOCATION: usize = 256 << 20;

/// The system allocator, aborting above [`MAX_ALLOCATION`] (fuzz builds only).
#[cfg(fuzzing)]
struct Capped;

#[cfg(fuzzing)]
// SAFETY: every call goes to the system allocator unchanged, or aborts before it.
unsafe impl std::alloc::GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            eprintln!("an allocation of {} bytes", layout.size());
            std::process::abort();
        }
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from `alloc` above, that is from the system allocator.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        if size > MAX_ALLOCATION {
            eprintln!("a reallocation to {size} bytes");
            std::process::abort();
        }
        // SAFETY: as for `alloc` and `dealloc`.
        unsafe { std::alloc::System.realloc(ptr, layout, size) }
    }
}

#[cfg(fuzzing)]
#[global_allocator]
static ALLOCATOR: Capped = Capped;

/// The name every reader is given for the input, so that errors can be checked to name it.
pub const ORIGIN: &str = "fuzz-input";

/// A property check: panics when `data` breaks one of its reader's properties.
pub type Check = fn(&[u8]);

/// The readers, by the name of their fuzz target and corpus folder.
pub const TARGETS: [(&str, Check); 15] = [
    ("formula", formula),
    ("dataset_text", dataset_text),
    ("dataset_cache", dataset_cache),
    ("crawl_log", crawl_log),
    ("observe_log", observe_log),
    ("weights", weights_file),
    ("experiment", experiment),
    ("state", state),
    ("model", model),
    ("grammar", grammar),
    ("preset", preset),
    ("cdx", cdx),
    ("warc", warc),
    ("heritrix_log", heritrix_log),
    ("nutch_dump", nutch_dump),
];

/// Checks that `message` names the input and that the place it names first
/// (`fuzz-input:LINE` or `fuzz-input:LINE:COLUMN`) lies inside `text`: a line from 1 to
/// the last (the empty piece after a final line break counts as a line), a column from 1
/// to one past the line's last character. `line_zero` allows line 0 (readers that use it
/// for "not written: a default").
pub fn check_located(text: &str, message: &str, line_zero: bool) {
    let pattern = format!("{ORIGIN}:");
    assert!(
        message.contains(ORIGIN),
        "an error that does not name the input: {message:?}"
    );
    let lines: Vec<&str> = text.split('\n').collect();
    // The first place only: a message may quote the input, which may hold the pattern.
    let Some(at) = message.find(&pattern) else {
        return;
    };
    let mut numbers = message[at + pattern.len()..]
        .split(':')
        .map_while(|part| part.parse::<usize>().ok());
    let Some(line) = numbers.next() else {
        return;
    };
    if line == 0 && line_zero {
        return;
    }
    assert!(
        (1..=lines.len()).contains(&line),
        "line {line} of {} in {message:?}",
        lines.len()
    );
    if let Some(column) = numbers.next() {
        let width = lines[line - 1].chars().count();
        assert!(
            (1..=width + 1).contains(&column),
            "column {column} of a line of {width} characters in {message:?}"
        );
    }
}

/// The grammars, read once (building one parses RON).
fn grammars() -> &'static [Grammar; 2] {
    static GRAMMARS: OnceLock<[Grammar; 2]> = OnceLock::new();
    GRAMMARS.get_or_init(|| [Grammar::all(), Grammar::every()])
}

/// Formula text: an error points inside the text on a char boundary; a formula that
/// parses prints as text that parses back to the same formula, and prints the same again.
pub fn formula(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for grammar in grammars() {
        match Formula::parse(text, grammar) {
            Ok(f) => {
                let printed = f.to_string();
                let back = Formula::parse(&printed, grammar)
                    .unwrap_or_else(|e| panic!("{text:?} printed {printed:?}, which fails: {e}"));
                assert_eq!(back, f, "{text:?} -> {printed:?}");
                assert_eq!(back.to_string(), printed);
            }
            Err(e) => {
                assert!(e.offset <= text.len(), "{text:?}: offset {}", e.offset);
                assert!(text.is_char_boundary(e.offset), "{text:?}: {}", e.offset);
            }
        }
    }
}

/// Each page of a history as one line of what it means: its cycles, id, host, weight and
/// attributes (sorted by key). Two histories may mean the same and differ in how they
/// number attribute values or order attribute columns: a cache keeps a subset's numbering
/// and its writer's column order, text numbers and orders by first appearance.
fn meaning(d: &Dataset) -> Vec<String> {
    (0..d.pages())
        .map(|p| {
            let mut attributes: Vec<String> = d
                .attributes()
                .iter()
                .filter_map(|a| a.value(p).map(|v| format!("{}={v}", a.name())))
                .collect();
            attributes.sort();
            // An empty host name is how a history says "no host".
            let host = d
                .host(p)
                .map(|h| d.host_names()[h as usize].as_str())
                .filter(|h| !h.is_empty());
            // Nor does an empty id name a page: text reads a history whose ids are all
            // empty as one without ids.
            let id = d.id(p).filter(|id| !id.is_empty());
            format!(
                "{} {id:?} {host:?} {} {attributes:?}",
                d.bits_string(p),
                d.weight(p).to_bits()
            )
        })
        .collect()
}

/// A history written in the text format reads back to the same meaning, and the text then
/// written is the fixed point: reading and writing it again gives the same bytes.
fn text_round_trip(d: &Dataset) {
    let mut out = Vec::new();
    text::write(d, &mut out).expect("invariant: writing to memory does not fail");
    let back = text::read(&out[..], ORIGIN).unwrap_or_else(|e| {
        panic!(
            "the text writer's output does not read back: {e}\n{}",
            String::from_utf8_lossy(&out)
        )
    });
    assert!(
        meaning(&back) == meaning(d),
        "text round trip changed the history"
    );
    let mut again = Vec::new();
    text::write(&back, &mut again).expect("invariant: writing to memory does not fail");
    let reread = text::read(&again[..], ORIGIN).expect("invariant: it read back once");
    let mut third = Vec::new();
    text::write(&reread, &mut third).expect("invariant: writing to memory does not fail");
    assert_eq!(again, third, "text read and written again changes");
}

/// A history written as a binary cache, read back.
fn cache_round_trip(d: &Dataset) {
    let mut out = Vec::new();
    cache::write(d, &mut out).expect("invariant: writing to memory does not fail");
    let back = cache::read(&mut &out[..], ORIGIN, out.len() as u64)
        .unwrap_or_else(|e| panic!("the cache writer's output does not read back: {e}"));
    assert!(back == *d, "cache round trip changed the history");
}

/// Dataset text: located errors; what reads writes back as text and as a cache.
pub fn dataset_text(data: &[u8]) {
    match text::read(data, ORIGIN) {
        Ok(d) => {
            let mut out = Vec::new();
            text::write(&d, &mut out).expect("invariant: a history read as text writes");
            let back = text::read(&out[..], ORIGIN).expect("invariant: it reads back");
            assert!(back == d, "text round trip changed the history");
            text_round_trip(&d);
            cache_round_trip(&d);
        }
        Err(e) => check_located(&String::from_utf8_lossy(data), &e.to_string(), false),
    }
}

/// `data` followed by its CRC-32, the checksum both binary formats end with, so that the
/// fuzzer reaches the sections behind the checksum rather than only the checksum test.
fn with_checksum(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out
}

/// Binary cache: read as given and with its checksum made right; what reads writes back.
pub fn dataset_cache(data: &[u8]) {
    for bytes in [data.to_vec(), with_checksum(data)] {
        match cache::read(&mut &bytes[..], ORIGIN, bytes.len() as u64) {
            Ok(d) => {
                cache_round_trip(&d);
                text_round_trip(&d);
            }
            Err(e) => check_located("", &e.to_string(), false),
        }
    }
}

/// A crawl log (`dataset from-log`): located errors; the history it gives writes as text
/// and round-trips through a cache. Read stopping at the first malformed line and, when
/// there is one, again skipping such lines. (Cycles of 30 days: cycles of a day make a
/// history of 18,000 cycles from two lines 50 years apart, a fair input but one that
/// slows the fuzzer to a crawl.)
pub fn crawl_log(data: &[u8]) {
    let options = |on_error| log::LogOptions {
        cycle: 30 * 86_400,
        on_error,
    };
    for on_error in [log::OnError::Stop, log::OnError::Skip] {
        match log::from_log(data, ORIGIN, &options(on_error)) {
            Ok((d, _)) => {
                // The text reader's round trip is `dataset_text`'s; here the history
                // must write at all (its ids come from URLs).
                text::write(&d, std::io::sink())
                    .unwrap_or_else(|e| panic!("a history read from a log does not write: {e}"));
                cache_round_trip(&d);
                return;
            }
            Err(e) => check_located(&String::from_utf8_lossy(data), &e.to_string(), false),
        }
    }
}

/// Options for the archive readers: cycles of 30 days (as for [`crawl_log`]).
fn archive_options(sorted: bool, on_error: OnError) -> ArchiveOptions {
    ArchiveOptions {
        cycle: 30 * 86_400,
        on_error,
        sorted,
        ..ArchiveOptions::default()
    }
}

/// An archive reader: [`archive::cdx::read`], [`archive::warc::read`] or
/// [`archive::crawl_log::read`].
type ArchiveReader =
    fn(Vec<Input>, &ArchiveOptions) -> Result<(Dataset, archive::ArchiveReport), DataError>;

/// Reads `data` with an archive reader; the input is gzip'd when it starts as gzip does.
fn read_archive(
    data: &[u8],
    read: ArchiveReader,
    options: &ArchiveOptions,
) -> Result<Dataset, DataError> {
    let input = Input::from_reader(ORIGIN, std::io::Cursor::new(data.to_vec()))?;
    read(vec![input], options).map(|(d, _)| d)
}

/// What every archive reader keeps: an error names the input and, for plain text, a place
/// inside it (a record's byte offset inside the input); a history writes as text and
/// round-trips through a cache. Read stopping at the first malformed line or record, and
/// again skipping them.
fn archive_properties(data: &[u8], read: ArchiveReader, sorted: bool) -> Option<Dataset> {
    let gzip = data.starts_with(&[0x1f, 0x8b]);
    let mut first = None;
    for on_error in [OnError::Stop, OnError::Skip] {
        match read_archive(data, read, &archive_options(sorted, on_error)) {
            Ok(d) => {
                text::write(&d, std::io::sink()).unwrap_or_else(|e| {
                    panic!("a history read from an archive does not write: {e}")
                });
                cache_round_trip(&d);
                if on_error == OnError::Stop {
                    first = Some(d);
                }
            }
            Err(DataError::Record { file, offset, .. }) => {
                assert_eq!(file, ORIGIN, "an error that does not name the input");
                assert!(
                    gzip || offset <= data.len() as u64,
                    "byte {offset} of {}",
                    data.len()
                );
            }
            Err(e) if gzip => assert!(
                e.to_string().contains(ORIGIN),
                "an error that does not name the input: {e}"
            ),
            Err(e) => check_located(&String::from_utf8_lossy(data), &e.to_string(), false),
        }
    }
    first
}

/// A CDX or CDXJ index (`dataset from-cdx`): [`archive_properties`], and what reads as
/// sorted input (stopping at the first malformed line) reads the same in any order.
pub fn cdx(data: &[u8]) {
    if let Some(sorted) = archive_properties(data, archive::cdx::read, true) {
        let any = read_archive(
            data,
            archive::cdx::read,
            &archive_options(false, OnError::Stop),
        )
        .unwrap_or_else(|e| panic!("sorted input read in any order fails: {e}"));
        assert!(any == sorted, "sorted input reads differently in any order");
    }
    archive_properties(data, archive::cdx::read, false);
}

/// A WARC file (`dataset from-warc`): [`archive_properties`].
pub fn warc(data: &[u8]) {
    archive_properties(data, archive::warc::read, false);
}

/// A Heritrix crawl.log (`dataset from-crawl-log`): [`archive_properties`].
pub fn heritrix_log(data: &[u8]) {
    archive_properties(data, archive::crawl_log::read, false);
}

/// A Nutch CrawlDb dump (`dataset from-nutch`): [`archive_properties`].
pub fn nutch_dump(data: &[u8]) {
    archive_properties(data, archive::nutch::read, false);
}

/// A scheduler over a few known pages, as `schedule --observe` starts from (built once).
fn scheduler() -> Scheduler<String> {
    static KNOWN: OnceLock<Scheduler<String>> = OnceLock::new();
    KNOWN.get_or_init(known_pages).clone()
}

/// [`scheduler`]'s pages.
fn known_pages() -> Scheduler<String> {
    let policy = Policy::parse("t * X + w", &Grammar::every())
        .expect("invariant: a formula over the grammar's terminals");
    let mut s = Scheduler::new(policy);
    for (page, host) in [("p0", "h0"), ("p1", "h0"), ("p2", "h1")] {
        s.add_with_host(page.to_string(), host)
            .expect("invariant: distinct new pages");
    }
    s.observe("p0", 1, true)
        .expect("invariant: a known page, a first cycle");
    s
}

/// A state written and read back: the same bytes again, and a batch can be drawn from it.
fn state_round_trip(s: &Scheduler<String>) {
    let bytes = s.to_bytes().expect("invariant: a state in memory encodes");
    let mut back = Scheduler::<String>::from_bytes(&bytes, ORIGIN)
        .unwrap_or_else(|e| panic!("a written state does not read back: {e}"));
    let again = back
        .to_bytes()
        .expect("invariant: a state in memory encodes");
    assert_eq!(bytes, again, "state round trip changed the state");
    let next = back.latest_cycle().saturating_add(1);
    let _ = back.next_batch(next, 3);
}

/// An observe log (`schedule --observe`): located errors that apply nothing; a state it
/// updates saves and loads back.
pub fn observe_log(data: &[u8]) {
    let mut s = scheduler();
    let before = s.to_bytes().expect("invariant: a state in memory encodes");
    match freshgp::schedule::log::apply(&mut s, data, ORIGIN) {
        Ok(_) => state_round_trip(&s),
        Err(e) => {
            check_located(&String::from_utf8_lossy(data), &e.to_string(), false);
            let after = s.to_bytes().expect("invariant: a state in memory encodes");
            assert_eq!(before, after, "a refused log changed the state: {e}");
        }
    }
}

/// A weights file: located errors that leave the history's weights unchanged.
pub fn weights_file(data: &[u8]) {
    let mut d = text::read(
        &b"0101\tp0\th0\n0011\tp1\th1\tweight=2\n1111\tp2\n"[..],
        "known",
    )
    .expect("invariant: a well-formed history");
    let before = d.clone();
    match weights::apply(&mut d, data, ORIGIN) {
        Ok(_) => text_round_trip(&d),
        Err(e) => {
            check_located(&String::from_utf8_lossy(data), &e.to_string(), false);
            assert!(
                d == before,
                "a refused weights file changed the history: {e}"
            );
        }
    }
}

/// An experiment file (RON): located errors (line 0 marks a field left at its default).
pub fn experiment(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = Study::from_ron(text, ORIGIN) {
        check_located(text, &format!("{e:#}"), true);
    }
}

/// A scheduler state: read as given and with its size and checksum made right (so the
/// fuzzer reaches every version's sections); a state that loads saves back the same and
/// can draw a batch.
pub fn state(data: &[u8]) {
    let mut fixed = data.to_vec();
    if fixed.len() >= 20 {
        let size = (fixed.len() - 20) as u64;
        fixed[12..20].copy_from_slice(&size.to_le_bytes());
    }
    for bytes in [data.to_vec(), with_checksum(&fixed)] {
        match Scheduler::<String>::from_bytes(&bytes, ORIGIN) {
            Ok(s) => state_round_trip(&s),
            Err(e) => check_located("", &e.to_string(), false),
        }
    }
}

/// A model file (JSON): errors name the input; a model that reads writes back the same,
/// and turning it into a policy either works or says why.
pub fn model(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Model::from_json(text, ORIGIN) {
        Ok(m) => {
            let json = m.to_json();
            let back = Model::from_json(&json, ORIGIN)
                .unwrap_or_else(|e| panic!("a written model does not read back: {e}\n{json}"));
            assert_eq!(back, m, "model round trip changed the model");
            assert_eq!(back.to_json(), json);
            if let Err(e) = Predictor::from_text(ORIGIN, text) {
                check_located(text, &e.to_string(), false);
            }
        }
        Err(e) => check_located(text, &e.to_string(), false),
    }
}

/// A grammar file (RON): located errors; a grammar that reads writes back the same.
pub fn grammar(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Grammar::from_ron(text, ORIGIN) {
        Ok(g) => {
            let ron = g.to_ron();
            let back = Grammar::from_ron(&ron, ORIGIN)
                .unwrap_or_else(|e| panic!("a written grammar does not read back: {e}\n{ron}"));
            assert_eq!(back.to_ron(), ron, "grammar round trip changed the grammar");
        }
        Err(e) => check_located(text, &e.to_string(), false),
    }
}

/// A preset file (RON): located errors; a preset that reads and validates writes back the
/// same, and generates a small history of the shape it asks for without panicking.
pub fn preset(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let params =
        match SynthParams::from_ron(text, ORIGIN).and_then(|p| p.validate(ORIGIN).map(|()| p)) {
            Ok(p) => p,
            Err(e) => return check_located(text, &e.to_string(), false),
        };
    let ron = params.to_ron();
    let back = SynthParams::from_ron(&ron, ORIGIN)
        .unwrap_or_else(|e| panic!("a written preset does not read back: {e}\n{ron}"));
    assert_eq!(back.to_ron(), ron, "preset round trip changed the preset");
    let mut small = params;
    small.pages = small.pages.min(40);
    small.days = small.days.min(12);
    if small.validate(ORIGIN).is_ok() {
        let d = freshgp::data::synth::generate(&small, 7)
            .unwrap_or_else(|e| panic!("a valid preset does not generate: {e}"));
        assert_eq!((d.pages(), d.cycles()), (small.pages, small.days));
    }
}
