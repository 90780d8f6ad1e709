//! Learned change models (SPEC §12) on the `commerce` preset: scoring examples with a
//! trained logistic regression and with a single feature (pages per second), building the
//! examples (features) and training the logistic regression, over two sizes.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use freshgp::data::split::Split;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::predict::{Examples, Feature, FeatureSet, Model, Observations};

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
    }
    group.finish();
}

criterion_group!(benches, bench_predict);
criterion_main!(benches);
