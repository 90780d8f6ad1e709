//! Learned change models (docs/src/reference/models.md) on the `commerce` preset: scoring
//! examples with a trained logistic regression, a single feature and the network (examples
//! per second), building the examples (features), training the logistic regression, and
//! one epoch of the network's training, over two sizes; and training the stale model on
//! over a million visits.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use freshgp::data::split::Split;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::model::{Feature, FeatureSet, Model};
use freshgp::predict::{network, Examples, NetworkOptions};
use freshgp::predict::{FeatureCodes, ModelTraining, Observations};
use std::ops::ControlFlow;

fn bench_predict(c: &mut Criterion) {
    let mut group = c.benchmark_group("predict");
    group.sample_size(10);
    for pages in [20_000usize, 100_000] {
        let mut params = SynthParams::preset("commerce").expect("preset");
        params.pages = pages;
        let d = generate(&params, 1).expect("generate");
        let split = Split::new(d.pages(), d.cycles(), 0).expect("split");
        let obs = Observations::full(&d);
        let set = FeatureSet::frequency(&d);
        let build = |pages: &[u32], cycles| {
            Examples::build(&d, &obs, &set, pages, &split.train, cycles, 1).expect("examples")
        };
        let train = build(&split.train, split.train_cycles.clone());
        let validation = build(&split.validation, split.train_cycles.clone());
        let test = build(&split.test, split.test_cycles.clone());
        let model = Model::train_logistic(&set, &train, &validation).expect("train");
        let mut scores = Vec::with_capacity(test.len());
        group.throughput(Throughput::Elements(test.len() as u64));
        group.bench_with_input(BenchmarkId::new("score-logistic", pages), &test, |b, x| {
            b.iter(|| model.score_into(x, &mut scores))
        });
        let single = Model::single(Feature::Frequency(7), 1.0);
        let one = FeatureSet::new(vec![Feature::Frequency(7)]);
        let column = Examples::build(
            &d,
            &obs,
            &one,
            &split.test,
            &split.train,
            split.test_cycles.clone(),
            1,
        )
        .expect("examples");
        group.bench_with_input(BenchmarkId::new("score-single", pages), &column, |b, x| {
            b.iter(|| single.score_into(x, &mut scores))
        });
        group.throughput(Throughput::Elements(train.len() as u64));
        group.bench_function(BenchmarkId::new("features", pages), |b| {
            b.iter(|| build(&split.train, split.train_cycles.clone()))
        });
        group.bench_function(BenchmarkId::new("train-logistic", pages), |b| {
            b.iter(|| Model::train_logistic(&set, &train, &validation).expect("train"))
        });
        bench_network(&mut group, &d, &split, &obs, pages);
    }
    group.finish();
}

/// The network over every frequency feature and attribute code: scoring the test
/// examples in blocks, and one epoch of training (with its validation scoring).
fn bench_network(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    d: &freshgp::data::Dataset,
    split: &Split,
    obs: &Observations,
    pages: usize,
) {
    let set = FeatureSet::network(d);
    let build = |pages: &[u32], cycles| {
        Examples::build(d, obs, &set, pages, &split.train, cycles, 1).expect("examples")
    };
    let train = build(&split.train, split.train_cycles.clone());
    let validation = build(&split.validation, split.train_cycles.clone());
    let test = build(&split.test, split.test_cycles.clone());
    let cards = set.cardinalities(d).expect("cardinalities");
    let one = NetworkOptions {
        epochs: 1,
        ..NetworkOptions::default()
    };
    let quiet = &mut |_, _, _| ControlFlow::Continue(());
    let net = network::train(&set, &cards, &train, &validation, &one, quiet).expect("train");
    let model = Model::Network(net);
    let mut scores = Vec::with_capacity(test.len());
    group.throughput(Throughput::Elements(test.len() as u64));
    group.bench_with_input(BenchmarkId::new("score-network", pages), &test, |b, x| {
        b.iter(|| model.score_into(x, &mut scores))
    });
    if pages <= 20_000 {
        group.throughput(Throughput::Elements(train.len() as u64));
        group.bench_function(BenchmarkId::new("train-network-epoch", pages), |b| {
            b.iter(|| network::train(&set, &cards, &train, &validation, &one, quiet))
        });
    }
}

/// The stale model (docs/src/reference/models.md#the-stale-model) on 100,000 offers
/// with every cycle observed: 60,000 training pages × 19 cycles, 1.14 million visits;
/// the prior over categories, then each attribute tried (`auto`).
fn bench_stale(c: &mut Criterion) {
    use freshgp::predict::stale::{train_stale_on, GroupChoice, StaleOptions};
    let mut group = c.benchmark_group("predict");
    group.sample_size(10);
    let mut params = SynthParams::preset("commerce").expect("preset");
    params.pages = 100_000;
    let d = generate(&params, 1).expect("generate");
    let split = Split::new(d.pages(), d.cycles(), 0).expect("split");
    let obs = Observations::full(&d);
    let examples = split.train.len() * split.train_cycles.clone().count();
    group.throughput(Throughput::Elements(examples as u64));
    for (name, choice) in [
        ("train-stale-category", GroupChoice::Key("category".into())),
        ("train-stale-auto", GroupChoice::Auto),
    ] {
        let options = StaleOptions {
            group: choice,
            ..StaleOptions::default()
        };
        group.bench_function(BenchmarkId::new(name, examples), |b| {
            b.iter(|| train_stale_on(&d, &obs, &split, &options).expect("train"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_predict, bench_stale);
criterion_main!(benches);
