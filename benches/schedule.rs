//! `Scheduler::next_batch` over 10 million pages with a 15-node formula and k = 5%
//! (the target: under 1 second on one core).
//!
//! The state is built by crawling a simple heterogeneous change model (most pages rarely
//! change, some often) for two warm-up cycles that download every page, then eight cycles
//! that download each batch, so the pages hold varied, realistic statistics. Pages belong
//! to 200,000 hosts of skewed sizes, for the host-capped variant.
//! A second, worst-case state gives nearly every page its own statistics (four downloads
//! at random cycles of a 2,000-cycle crawl), so grouping saves nothing.
//! The `from-saved-state` functions measure a crawler's cycle from its state file: a
//! state of the same crawl keyed by URLs is saved once, then each iteration loads it and
//! ranks the batch (and saves it, unchanged); `from-saved-state/apply-log` applies a
//! crawler's log of one observation for each of a tenth of the pages (one in a hundred of
//! them new) to the loaded state (the target: a million observations in under 1 second).
//! `FRESHGP_BENCH_PAGES` overrides the page count (e.g. for a quick run); run as a test
//! (`cargo test --benches`, without `--bench`) it uses 20,000 pages.
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench --bench schedule
//! ```

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use freshgp::formula::{Closure, Formula};
use freshgp::policy::Policy;
use freshgp::schedule::Scheduler;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::time::Instant;

const FORMULA: &str = "(t * X + CG) / (n + 1) - exp(-NAD * t)";

fn build(pages: usize, cycles: u32, k: usize) -> Scheduler<u64> {
    build_with(pages, cycles, k, |p, _| p, |&p| p)
}

/// A crawler's page ids: URLs of the page's host.
fn url(p: u64, host: u32) -> String {
    format!("https://host{host}.example/page/{p}")
}

/// The page number of a [`url`].
fn page_of(url: &str) -> u64 {
    url.rsplit('/').next().and_then(|p| p.parse().ok()).unwrap()
}

/// The state of [`build`] with page ids made by `id` from the page number and host (and
/// read back by `number`).
fn build_with<K: freshgp::schedule::PageId>(
    pages: usize,
    cycles: u32,
    k: usize,
    id: impl Fn(u64, u32) -> K,
    number: impl Fn(&K) -> u64,
) -> Scheduler<K> {
    let f: Formula = FORMULA.parse().unwrap();
    assert_eq!(f.len(), 15, "a 15-node formula");
    let mut s: Scheduler<K> = Scheduler::new(Policy::formula(&f, Closure::Paper));
    let mut rng = Pcg64::seed_from_u64(7);
    let mut rate = Vec::with_capacity(pages);
    let mut ids = Vec::with_capacity(pages);
    for p in 0..pages as u64 {
        // Host sizes: skewed (a few large hosts, many small).
        let host = (rng.gen::<f64>().powi(3) * 200_000.0) as u32;
        ids.push(id(p, host));
        s.add_with_host(ids[p as usize].clone(), &format!("host{host}.example"))
            .unwrap();
        rate.push(match rng.gen_range(0..100) {
            0..=59 => 0.002f32,
            60..=84 => 0.03,
            85..=94 => 0.3,
            _ => 0.9,
        });
    }
    let mut stale = vec![false; pages];
    for d in 1..=cycles {
        for p in 0..pages {
            if rng.gen::<f32>() < rate[p] {
                stale[p] = true;
            }
        }
        let visit: Vec<u64> = if d <= 2 {
            (0..pages as u64).collect()
        } else {
            s.next_batch(d, k).unwrap().iter().map(&number).collect()
        };
        for p in visit {
            s.observe(&ids[p as usize], d, stale[p as usize]).unwrap();
            stale[p as usize] = false;
        }
    }
    s
}

/// Nearly every page with distinct statistics: four downloads at random cycles in 1..=2000.
fn build_heterogeneous(pages: usize) -> Scheduler<u64> {
    let f: Formula = FORMULA.parse().unwrap();
    let mut s: Scheduler<u64> = Scheduler::new(Policy::formula(&f, Closure::Paper));
    let mut rng = Pcg64::seed_from_u64(8);
    for p in 0..pages as u64 {
        s.add(p).unwrap();
        let mut cycles: Vec<u32> = (0..4).map(|_| rng.gen_range(1..=2000)).collect();
        cycles.sort_unstable();
        cycles.dedup();
        for d in cycles {
            s.observe(&p, d, rng.gen::<f64>() < 0.4).unwrap();
        }
    }
    s
}

fn bench(c: &mut Criterion) {
    // `cargo test --all-targets` runs benches once without `--bench`: keep that quick.
    let measuring = std::env::args().any(|a| a == "--bench");
    let pages: usize = std::env::var("FRESHGP_BENCH_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if measuring { 10_000_000 } else { 20_000 });
    let k = pages / 20;
    let cycles = 10;
    let start = Instant::now();
    let mut s = build(pages, cycles, k);
    eprintln!(
        "state: {} pages, {} distinct statistics, built in {:.1} s",
        s.len(),
        s.distinct_stats(),
        start.elapsed().as_secs_f64()
    );
    let next = cycles + 1;
    let mut group = c.benchmark_group(format!("next-batch-{pages}-pages"));
    group.sample_size(10);
    group.bench_function("formula-15-k-5pct", |b| {
        b.iter(|| {
            let batch = s.next_batch(next, k).unwrap();
            assert_eq!(batch.len(), k);
            batch
        })
    });
    group.bench_function("formula-15-k-5pct-host-cap-20", |b| {
        b.iter(|| s.next_batch_capped(next, k, Some(20)).unwrap())
    });
    // The sampled batch (docs/src/reference/scheduler.md#batches): one pass over every slot
    // in slot order.
    group.bench_function("formula-15-k-5pct-sampled", |b| {
        b.iter(|| {
            let batch = s.next_batch_sampled(next, k).unwrap();
            assert_eq!(batch.len(), k);
            batch
        })
    });
    drop(s);
    from_saved_state(&mut group, pages, cycles, k);
    let start = Instant::now();
    let mut s = build_heterogeneous(pages);
    eprintln!(
        "heterogeneous state: {} pages, {} distinct statistics, built in {:.1} s",
        s.len(),
        s.distinct_stats(),
        start.elapsed().as_secs_f64()
    );
    group.bench_function("formula-15-k-5pct-heterogeneous", |b| {
        b.iter(|| s.next_batch(2001, k).unwrap())
    });
    group.finish();
}

/// What `freshgp schedule` does each cycle from a saved state of URLs: load the state,
/// rank the pages, and save the state, which is unchanged (so its file is left alone).
fn from_saved_state(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    pages: usize,
    cycles: u32,
    k: usize,
) {
    let start = Instant::now();
    let s = build_with(pages, cycles, k, url, |u: &String| page_of(u));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.state");
    s.save(&path).unwrap();
    eprintln!(
        "state of {} URLs: {} bytes on disk, built and saved in {:.1} s",
        s.len(),
        std::fs::metadata(&path).unwrap().len(),
        start.elapsed().as_secs_f64()
    );
    drop(s);
    let next = cycles + 1;
    group.bench_function("from-saved-state/load-and-rank", |b| {
        b.iter(|| {
            let mut s: Scheduler = Scheduler::load(&path).unwrap();
            s.next_batch(next, k).unwrap()
        })
    });
    let log = log_of(pages, next);
    group.bench_function("from-saved-state/apply-log", |b| {
        b.iter_batched(
            || Scheduler::load(&path).unwrap(),
            |mut s: Scheduler| {
                let summary = freshgp::schedule::log::apply(&mut s, &log[..], "crawl.log").unwrap();
                assert_eq!(summary.observations, pages / 10);
                s
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.bench_function("from-saved-state/load-rank-and-save", |b| {
        b.iter(|| {
            let mut s: Scheduler = Scheduler::load(&path).unwrap();
            let batch = s.next_batch(next, k).unwrap();
            s.save(&path).unwrap();
            batch
        })
    });
}

/// A crawler's log for `cycle`: one line for each of a tenth of the `pages` pages of
/// [`build_with`]'s crawl, in random order, a hundredth of them new pages of a new host.
fn log_of(pages: usize, cycle: u32) -> Vec<u8> {
    let mut rng = Pcg64::seed_from_u64(9);
    // The hosts [`build_with`] drew, drawn again.
    let mut hosts_rng = Pcg64::seed_from_u64(7);
    let hosts: Vec<u32> = (0..pages)
        .map(|_| {
            let host = (hosts_rng.gen::<f64>().powi(3) * 200_000.0) as u32;
            hosts_rng.gen_range(0..100);
            host
        })
        .collect();
    let lines = pages / 10;
    let mut chosen: Vec<u64> = rand::seq::index::sample(&mut rng, pages, lines - lines / 100)
        .into_iter()
        .map(|p| p as u64)
        .collect();
    chosen.extend((0..lines / 100).map(|i| (pages + i) as u64));
    let mut text = Vec::new();
    for p in chosen {
        use std::io::Write;
        let changed = rng.gen_bool(0.3) as u8;
        if (p as usize) < pages {
            writeln!(text, "{}\t{cycle}\t{changed}", url(p, hosts[p as usize])).unwrap();
        } else {
            writeln!(text, "{}\t{cycle}\t{changed}\tnew.example", url(p, 0)).unwrap();
        }
    }
    text
}

criterion_group!(benches, bench);
criterion_main!(benches);
