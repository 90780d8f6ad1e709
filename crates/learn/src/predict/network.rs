//! Training the seed's network (docs/src/reference/models.md#the-network; the [`Network`]
//! itself, its file and its scores are `crate::model`'s): Adagrad on the binary
//! cross-entropy with L1 and L2 penalties, the epoch selected by validation AUC.
//!
//! # Training
//!
//! [`train`] minimizes, per mini-batch of [`NetworkOptions::batch_size`] examples (1024)
//! in a seeded shuffled order, the mean binary cross-entropy (computed from the logit, so
//! it stays finite) plus `l1·Σ|w| + l2·Σw²` (0.001 each, the seed's) over the weights of
//! every dense layer and embedding (not the biases). The optimizer is Adagrad, as the
//! seed's (TensorFlow's): per parameter the sum of squared gradients G starts at 0.1 and
//! each step moves it by `-lr·g/√G`, learning rate 0.05 (TensorFlow's default for its
//! DNN classifier, where 0.01 learned visibly slower in our runs). Weights start Glorot-uniform
//! (dense kernels, TensorFlow's default), embeddings uniform with variance `1/dim`
//! (TensorFlow's embedding columns use standard deviation `1/√dim`), biases 0; every draw
//! comes from one PCG stream of [`NetworkOptions::seed`]. After each of
//! [`NetworkOptions::epochs`] epochs (10) the network scores the validation examples; the
//! epoch with the highest validation AUC is kept (the first on a tie). Progress (epoch,
//! mean training cross-entropy, validation AUC) goes to a callback: the library never prints.
//!
//! Examples are never copied into one tensor: each mini-batch's tensors are built from its
//! rows when it is used (a batch's standardized values and codes, a few kilobytes).
//!
//! # Why candle
//!
//! Training uses [candle](https://github.com/huggingface/candle) (`candle-core`,
//! `candle-nn`, CPU only, default features off: no CUDA, no MKL): a maintained
//! Hugging Face framework whose tensors, automatic differentiation and `Optimizer` trait
//! are what this needs, in pure Rust with few dependencies. burn would do the same but
//! brings a backend abstraction, code generation and several times the dependencies and
//! compile time for a 4-layer network on the CPU. candle has no Adagrad: the one here
//! implements its `Optimizer` trait in a few lines.
//!
//! # Determinism
//!
//! The same examples, options and seed give the same network bit for bit: the draws are
//! seeded and candle's CPU matrix products split the output among threads, never a sum,
//! so the thread count (`RAYON_NUM_THREADS`) does not change a bit (checked by running the
//! determinism test under 1 and 2 threads).
//!

use super::{ExampleSource, Examples, PredictError};
use super::{FeatureError, NetworkOptionsError};
use crate::model::{code_of, embedding_dim, Column, FeatureSet, Layer, Network, Weights, HIDDEN};
use crate::stats::auc;
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::Optimizer;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::ops::ControlFlow;

/// How to train a network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetworkOptions {
    /// Passes over the training examples (>= 1); the best by validation AUC is kept.
    pub epochs: usize,
    /// Examples per mini-batch (>= 1).
    pub batch_size: usize,
    /// Adagrad's learning rate (> 0).
    pub learning_rate: f64,
    /// The L1 penalty on weights (>= 0).
    pub l1: f64,
    /// The L2 penalty on weights (>= 0).
    pub l2: f64,
    /// The seed of the initial weights and of the order of the examples.
    pub seed: u64,
}

impl Default for NetworkOptions {
    /// 10 epochs of mini-batches of 1024, learning rate 0.05, L1 and L2 of 0.001, seed 1.
    fn default() -> NetworkOptions {
        NetworkOptions {
            epochs: 10,
            batch_size: 1024,
            learning_rate: 0.05,
            l1: 0.001,
            l2: 0.001,
            seed: 1,
        }
    }
}

impl NetworkOptions {
    fn check(&self) -> Result<(), PredictError> {
        if self.epochs == 0 || self.batch_size == 0 {
            return Err(NetworkOptionsError::Steps.into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(NetworkOptionsError::LearningRate(self.learning_rate).into());
        }
        if !(self.l1.is_finite() && self.l1 >= 0.0 && self.l2.is_finite() && self.l2 >= 0.0) {
            return Err(NetworkOptionsError::Penalty.into());
        }
        Ok(())
    }
}

/// Adagrad (Duchi, Hazan and Singer 2011) as TensorFlow's: per parameter, the sum of
/// squared gradients `G` starts at `initial`; a step adds `g²` to it and moves the
/// parameter by `-lr·g/√G`. candle-nn has SGD and AdamW only.
struct Adagrad {
    vars: Vec<(Var, Tensor)>,
    learning_rate: f64,
}

/// Adagrad's settings: the learning rate and the initial accumulator.
#[derive(Clone, Copy)]
struct AdagradConfig {
    learning_rate: f64,
    initial: f64,
}

impl Optimizer for Adagrad {
    type Config = AdagradConfig;

    fn new(vars: Vec<Var>, config: AdagradConfig) -> candle_core::Result<Adagrad> {
        let vars = vars
            .into_iter()
            .filter(|v| v.dtype().is_float())
            .map(|v| {
                let g = v.ones_like()?.affine(config.initial, 0.0)?;
                Ok((v, g))
            })
            .collect::<candle_core::Result<_>>()?;
        Ok(Adagrad {
            vars,
            learning_rate: config.learning_rate,
        })
    }

    fn step(&mut self, grads: &candle_core::backprop::GradStore) -> candle_core::Result<()> {
        for (var, sum) in &mut self.vars {
            if let Some(g) = grads.get(var) {
                // Detached: a variable's gradient carries the step's graph (the batch's
                // activations); kept in the running sum it would chain every step's graph
                // and grow memory by megabytes a step.
                let g = g.detach();
                let next = (&*sum + g.sqr()?)?.detach();
                let delta = (&g / next.sqrt()?)?.affine(self.learning_rate, 0.0)?;
                var.set(&var.as_tensor().sub(&delta)?)?;
                *sum = next;
            }
        }
        Ok(())
    }

    fn learning_rate(&self) -> f64 {
        self.learning_rate
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.learning_rate = lr;
    }
}

/// The network's parameters as candle variables.
struct Params {
    embeddings: Vec<Var>,
    layers: Vec<(Var, Var)>,
}

impl Params {
    fn new(net: &Network) -> candle_core::Result<Params> {
        let var =
            |w: &Weights| Var::from_vec(w.values.clone(), (w.shape[0], w.shape[1]), &Device::Cpu);
        Ok(Params {
            embeddings: net.embeddings.iter().map(var).collect::<Result<_, _>>()?,
            layers: net
                .layers
                .iter()
                .map(|l| {
                    let b = Var::from_vec(l.bias.clone(), l.bias.len(), &Device::Cpu)?;
                    Ok((var(&l.weight)?, b))
                })
                .collect::<candle_core::Result<_>>()?,
        })
    }

    fn all(&self) -> Vec<Var> {
        let mut v = self.embeddings.clone();
        for (w, b) in &self.layers {
            v.push(w.clone());
            v.push(b.clone());
        }
        v
    }

    /// The logits of a batch: its standardized numeric values and each embedding's codes.
    fn forward(&self, numeric: Option<Tensor>, codes: &[Tensor]) -> candle_core::Result<Tensor> {
        let mut parts: Vec<Tensor> = numeric.into_iter().collect();
        for (e, c) in self.embeddings.iter().zip(codes) {
            parts.push(e.as_tensor().index_select(c, 0)?);
        }
        let mut h = Tensor::cat(&parts, 1)?;
        let last = self.layers.len() - 1;
        for (i, (w, b)) in self.layers.iter().enumerate() {
            h = h.matmul(w.as_tensor())?.broadcast_add(b.as_tensor())?;
            if i < last {
                h = h.relu()?;
            }
        }
        h.squeeze(1)
    }

    /// `l1·Σ|w| + l2·Σw²` over the weights (not the biases).
    fn penalty(&self, l1: f64, l2: f64) -> candle_core::Result<Tensor> {
        let weights = self
            .embeddings
            .iter()
            .chain(self.layers.iter().map(|(w, _)| w));
        let mut total = Tensor::zeros((), DType::F32, &Device::Cpu)?;
        for w in weights {
            let w = w.as_tensor();
            total = (total + w.abs()?.sum_all()?.affine(l1, 0.0)?)?;
            total = (total + w.sqr()?.sum_all()?.affine(l2, 0.0)?)?;
        }
        Ok(total)
    }

    /// The current weights into `net`.
    fn store(&self, net: &mut Network) -> candle_core::Result<()> {
        let values = |v: &Var| v.as_tensor().flatten_all()?.to_vec1::<f32>();
        for (e, v) in net.embeddings.iter_mut().zip(&self.embeddings) {
            e.values = values(v)?;
        }
        for (l, (w, b)) in net.layers.iter_mut().zip(&self.layers) {
            l.weight.values = values(w)?;
            l.bias = values(b)?;
        }
        Ok(())
    }
}

/// A network of random initial weights (see the module docs) for `features`.
fn initial(
    features: &FeatureSet,
    cardinalities: &[usize],
    mean: Vec<f64>,
    scale: Vec<f64>,
    rng: &mut rand_pcg::Pcg64,
) -> Network {
    let mut uniform = |rows: usize, cols: usize, limit: f64| Weights {
        shape: [rows, cols],
        values: (0..rows * cols)
            .map(|_| rng.gen_range(-limit..=limit) as f32)
            .collect(),
    };
    let embeddings: Vec<Weights> = cardinalities
        .iter()
        .map(|&c| {
            let dim = embedding_dim(c);
            uniform(c + 1, dim, (3.0 / dim as f64).sqrt())
        })
        .collect();
    let mut width = mean.len() + embeddings.iter().map(|e| e.shape[1]).sum::<usize>();
    let layers = HIDDEN
        .iter()
        .chain(&[1])
        .map(|&units| {
            let limit = (6.0 / (width + units) as f64).sqrt();
            let l = Layer {
                weight: uniform(width, units, limit),
                bias: vec![0.0; units],
            };
            width = units;
            l
        })
        .collect();
    Network {
        features: features.clone(),
        mean,
        scale,
        cardinalities: cardinalities.to_vec(),
        embeddings,
        layers,
        epoch: 0,
    }
}

/// Checks that `x` fits the features and cardinalities: its width, and each categorical
/// column's values codes `0 ..= cardinality`.
fn check_examples(
    features: &FeatureSet,
    cardinalities: &[usize],
    x: &Examples,
    name: &str,
) -> Result<(), PredictError> {
    if x.width() != features.len() {
        return Err(FeatureError::Width {
            examples: name.to_string(),
            columns: x.width(),
            features: features.len(),
        }
        .into());
    }
    let cats = features.features().iter().enumerate();
    let cats = cats.filter(|(_, f)| f.is_categorical());
    for ((j, f), &card) in cats.zip(cardinalities) {
        let bad = x.values().iter().skip(j).step_by(x.width()).find(|&&v| {
            let code = code_of(v, card);
            code == card && v != card as f64
        });
        if let Some(v) = bad {
            return Err(FeatureError::Code {
                feature: f.clone(),
                value: *v,
                cardinality: card,
            }
            .into());
        }
    }
    Ok(())
}

/// Trains a network over `features` (cardinalities of the categorical ones as
/// [`FeatureCodes::cardinalities`](super::FeatureCodes::cardinalities) gives them) on `train`, keeping the epoch whose AUC on
/// `validation` is highest; `progress` hears (and may stop after) each epoch's number (from 1), mean training
/// cross-entropy and validation AUC (see the module docs).
///
/// # Errors
/// No examples, examples of one class only, examples that do not fit the features, bad
/// options, or a failure inside candle.
pub fn train(
    features: &FeatureSet,
    cardinalities: &[usize],
    train: &dyn ExampleSource,
    validation: &dyn ExampleSource,
    options: &NetworkOptions,
    progress: &mut dyn FnMut(usize, f64, f64) -> ControlFlow<()>,
) -> Result<Network, PredictError> {
    options.check()?;
    if train.is_empty() || validation.is_empty() {
        return Err(PredictError::NoExamples);
    }
    let positives = train.positives();
    if positives == 0 || positives == train.len() {
        return Err(PredictError::OneClass(train.len()));
    }
    let categorical = features.features().iter().filter(|f| f.is_categorical());
    if categorical.count() != cardinalities.len() {
        return Err(FeatureError::Cardinalities {
            given: cardinalities.len(),
            features: features.features().iter().map(|f| f.to_string()).collect(),
        }
        .into());
    }
    for (x, name) in [(train, "training"), (validation, "validation")] {
        for i in 0..x.chunks() {
            check_examples(features, cardinalities, &x.chunk(i), name)?;
        }
    }
    let (mean, scale) = super::logistic::standardization(train);
    let numeric: Vec<usize> = (0..features.len())
        .filter(|&j| !features.features()[j].is_categorical())
        .collect();
    let mean = numeric.iter().map(|&j| mean[j]).collect();
    let scale = numeric.iter().map(|&j| scale[j]).collect();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(options.seed);
    let net = initial(features, cardinalities, mean, scale, &mut rng);
    fit(net, train, validation, options, &mut rng, progress)
        .map_err(|e| PredictError::Network(e.to_string()))?
}

/// The epochs of [`train`] from the initial network `net`. An epoch visits the chunks of
/// `train` in a random order and each chunk's examples in a random order (examples held
/// in memory: one chunk, one shuffle of them all).
fn fit(
    mut net: Network,
    train: &dyn ExampleSource,
    validation: &dyn ExampleSource,
    options: &NetworkOptions,
    rng: &mut rand_pcg::Pcg64,
    progress: &mut dyn FnMut(usize, f64, f64) -> ControlFlow<()>,
) -> candle_core::Result<Result<Network, PredictError>> {
    let params = Params::new(&net)?;
    let config = AdagradConfig {
        learning_rate: options.learning_rate,
        initial: 0.1,
    };
    let mut optimizer = Adagrad::new(params.all(), config)?;
    let columns = net.columns();
    let mut chunks: Vec<usize> = (0..train.chunks()).collect();
    let mut best: Option<(f64, Network)> = None;
    let (mut scores, mut labels) = (Vec::new(), Vec::new());
    for epoch in 1..=options.epochs {
        if chunks.len() > 1 {
            chunks.shuffle(rng);
        }
        let mut loss_sum = 0.0;
        for &c in &chunks {
            let chunk = train.chunk(c);
            let mut order: Vec<usize> = (0..chunk.len()).collect();
            order.shuffle(rng);
            for batch in order.chunks(options.batch_size) {
                let (numeric, codes, labels) = batch_tensors(&net, &columns, &chunk, batch)?;
                let z = params.forward(numeric, &codes)?;
                // Cross-entropy from the logit: max(z, 0) - z·y + ln(1 + e^-|z|).
                let ce = ((z.relu()? - (&z * &labels)?)?
                    + z.abs()?.neg()?.exp()?.affine(1.0, 1.0)?.log()?)?;
                let ce = ce.mean_all()?;
                loss_sum += f64::from(ce.to_scalar::<f32>()?) * batch.len() as f64;
                let loss = (ce + params.penalty(options.l1, options.l2)?)?;
                optimizer.backward_step(&loss)?;
            }
        }
        params.store(&mut net)?;
        net.epoch = epoch;
        let score = |v: &[f64], out: &mut Vec<f64>| net.score_rows(v, out);
        super::features::score_chunks(validation, score, &mut scores, &mut labels);
        let a = match auc(&scores, &labels) {
            Ok(a) => a.unwrap_or(0.5),
            Err(e) => return Ok(Err(e.into())),
        };
        if progress(epoch, loss_sum / train.len() as f64, a).is_break() {
            return Ok(Err(PredictError::Stopped));
        }
        if best.as_ref().is_none_or(|(b, _)| a > *b) {
            best = Some((a, net.clone()));
        }
    }
    Ok(best.map(|(_, n)| n).ok_or(PredictError::NoExamples))
}

/// One mini-batch's tensors: the standardized numeric values (none without numeric
/// features), each embedding's codes, the labels.
fn batch_tensors(
    net: &Network,
    columns: &[Column],
    x: &Examples,
    batch: &[usize],
) -> candle_core::Result<(Option<Tensor>, Vec<Tensor>, Tensor)> {
    let n = batch.len();
    let numeric_width = net.mean.len();
    let mut numeric = Vec::with_capacity(n * numeric_width);
    let mut codes: Vec<Vec<u32>> = vec![Vec::with_capacity(n); net.embeddings.len()];
    for &i in batch {
        let row = x.row(i);
        for c in columns {
            match *c {
                Column::Numeric { col, mean, scale } => {
                    let v = (row[col] - mean) / scale;
                    numeric.push(if v.is_finite() { v as f32 } else { 0.0 });
                }
                Column::Category { col, emb } => {
                    let missing = net.embeddings[emb].shape[0] - 1;
                    codes[emb].push(code_of(row[col], missing) as u32);
                }
            }
        }
    }
    let numeric = if numeric_width == 0 {
        None
    } else {
        Some(Tensor::from_vec(numeric, (n, numeric_width), &Device::Cpu)?)
    };
    let codes = codes
        .into_iter()
        .map(|c| Tensor::from_vec(c, n, &Device::Cpu))
        .collect::<candle_core::Result<_>>()?;
    let labels: Vec<f32> = batch
        .iter()
        .map(|&i| f32::from(u8::from(x.labels()[i])))
        .collect();
    Ok((numeric, codes, Tensor::from_vec(labels, n, &Device::Cpu)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{text, Dataset};
    use crate::model::Feature;
    use crate::predict::{FeatureCodes, ModelTraining, Observations};

    /// 900 pages in 12 categories and 30 hosts: pages of categories 0 to 3 change at each
    /// cycle with probability 0.9, the others with 0.01 — a rule the category alone
    /// carries (best possible AUC about 0.97 at horizon 3).
    fn planted(seed: u64) -> Dataset {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let mut t = String::new();
        for p in 0..900 {
            let cat = (p * 7) % 12;
            let prob = if cat < 4 { 0.9 } else { 0.01 };
            let bits: String = (0..30)
                .map(|_| if rng.gen_bool(prob) { '1' } else { '0' })
                .collect();
            t += &format!("{bits}\tp{p}\th{}\tcat=c{cat}\n", p % 30);
        }
        text::read(t.as_bytes(), "planted").unwrap()
    }

    fn small() -> NetworkOptions {
        NetworkOptions {
            epochs: 4,
            batch_size: 256,
            ..NetworkOptions::default()
        }
    }

    /// Trains on pages 0..450 at cycles 5..=20 (validation: pages 450..675), and returns
    /// the network and its examples of pages 675..900 at cycles 21..=30, with history
    /// (`warm`) and without (`cold`: a page seen for the first time).
    fn learn(set: &FeatureSet) -> (Network, Examples, Examples) {
        let d = planted(3);
        let o = Observations::full(&d);
        let train_pages: Vec<u32> = (0..450).collect();
        let val_pages: Vec<u32> = (450..675).collect();
        let test_pages: Vec<u32> = (675..900).collect();
        let build = |o: &Observations, pages: &[u32], cycles| {
            Examples::build(&d, o, set, pages, &train_pages, cycles, 3).unwrap()
        };
        let x = build(&o, &train_pages, 5..=20);
        let v = build(&o, &val_pages, 5..=20);
        let cards = set.cardinalities(&d).unwrap();
        let mut epochs = Vec::new();
        let net = train(set, &cards, &x, &v, &small(), &mut |e, loss, auc| {
            epochs.push((e, loss, auc));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(epochs.len(), 4);
        // The callback may stop the training after any epoch.
        let mut heard = 0;
        let stopped = train(set, &cards, &x, &v, &small(), &mut |_, _, _| {
            heard += 1;
            match heard {
                2 => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        });
        assert!(matches!(stopped, Err(PredictError::Stopped)));
        assert_eq!(heard, 2);
        assert!(epochs.iter().all(|&(_, l, a)| l.is_finite() && a > 0.5));
        let cold = o.forgetting(&test_pages);
        (
            net,
            build(&o, &test_pages, 21..=30),
            build(&cold, &test_pages, 21..=30),
        )
    }

    fn auc_of(net: &Network, x: &Examples) -> f64 {
        let mut s = Vec::new();
        net.score_rows(x.values(), &mut s);
        assert_eq!(s.len(), x.len());
        auc(&s, x.labels()).unwrap().unwrap()
    }

    #[test]
    fn the_network_learns_a_planted_rule_from_the_category_alone() {
        // Only the category's code: the embedding must carry the rule, on pages never
        // seen in training and with no history (cold start).
        let set = FeatureSet::new(vec![Feature::Category("cat".into())]);
        let (net, warm, cold) = learn(&set);
        assert!(auc_of(&net, &warm) > 0.95, "AUC {}", auc_of(&net, &warm));
        assert!(auc_of(&net, &cold) > 0.95, "AUC {}", auc_of(&net, &cold));
        // The page-level frequencies carry it too, with history only.
        let set = FeatureSet::new(vec![Feature::Frequency(7), Feature::SinceChange]);
        let (net, warm, cold) = learn(&set);
        assert!(auc_of(&net, &warm) > 0.95, "AUC {}", auc_of(&net, &warm));
        assert!(auc_of(&net, &cold) < 0.6, "AUC {}", auc_of(&net, &cold));
    }

    #[test]
    fn a_stream_trains_as_the_examples_in_memory_and_in_chunks_learns_the_rule() {
        let d = planted(3);
        let o = Observations::full(&d);
        let set = FeatureSet::new(vec![Feature::Category("cat".into()), Feature::Frequency(7)]);
        let cards = set.cardinalities(&d).unwrap();
        let (train_pages, val_pages): (Vec<u32>, Vec<u32>) =
            ((0..450).collect(), (450..675).collect());
        let stream = |pages: &[u32]| {
            crate::predict::ExampleStream::new(&d, &o, &set, pages, &train_pages, 5..=20, 3)
                .unwrap()
        };
        let (x, v) = (stream(&train_pages), stream(&val_pages));
        let quiet = &mut |_, _, _| ControlFlow::Continue(());
        let in_memory = train(&set, &cards, &x.collect(), &v.collect(), &small(), quiet).unwrap();
        // One chunk: the same shuffles, batches and sums.
        assert_eq!(
            train(&set, &cards, &x, &v, &small(), quiet).unwrap(),
            in_memory
        );
        // 6,300 examples in chunks of 1,000: another order of the examples, the same rule.
        let (x, v) = (x.chunk_rows(1000), v.chunk_rows(1000));
        let chunked = train(&set, &cards, &x, &v, &small(), quiet).unwrap();
        assert_ne!(chunked, in_memory);
        let test = stream(&(675..900).collect::<Vec<u32>>()).collect();
        assert!(
            auc_of(&chunked, &test) > 0.95,
            "AUC {}",
            auc_of(&chunked, &test)
        );
    }

    #[test]
    fn one_example_scores_as_in_a_block_and_the_file_reads_back() {
        let d = planted(3);
        let set = FeatureSet::network(&d);
        let (net, warm, _) = learn(&set);
        let mut block = Vec::new();
        net.score_rows(warm.values(), &mut block);
        for i in [0, 1, 500, warm.len() - 1] {
            assert_eq!(net.score(warm.row(i)).to_bits(), block[i].to_bits());
        }
        let model = crate::model::Model::Network(net);
        let back = crate::model::Model::from_json(&model.to_json(), "n.json").unwrap();
        assert_eq!(back, model);
        let mut again = Vec::new();
        back.score_into(&warm, &mut again);
        assert_eq!(again, block);
    }

    #[test]
    fn training_is_the_same_at_any_thread_count() {
        let set = FeatureSet::network(&planted(3));
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| learn(&set).0)
        };
        assert_eq!(run(1), run(2));
    }

    #[test]
    fn corrupted_networks_and_bad_options_are_refused_with_reasons() {
        let set = FeatureSet::new(vec![Feature::Frequency(7), Feature::Category("cat".into())]);
        let (net, _, _) = learn(&set);
        let text = crate::model::Model::Network(net.clone()).to_json();
        let err = |net: Network| {
            crate::model::Model::from_json(&crate::model::Model::Network(net).to_json(), "n")
                .unwrap_err()
                .to_string()
        };
        let mut bad = net.clone();
        bad.layers[1].weight.values.pop();
        assert!(err(bad).contains("layer 2 has shape [256, 128] but 32767 values"));
        let mut bad = net.clone();
        bad.layers[0].bias[3] = f32::NAN; // (JSON has no NaN: checked as loaded)
        assert!(bad
            .check()
            .unwrap_err()
            .contains("layer 1 needs 256 finite biases"));
        let mut bad = net.clone();
        bad.embeddings[0].values[0] = f32::INFINITY;
        assert!(bad
            .check()
            .unwrap_err()
            .contains("embedding 1 has a weight that is not finite"));
        let mut bad = net.clone();
        bad.cardinalities[0] = 11;
        assert!(err(bad).contains("expected 12 rows (cardinality 11 + 1)"));
        let mut bad = net.clone();
        bad.layers.pop();
        assert!(err(bad).contains("the last layer has 64 units, expected 1"));
        let mut bad = net.clone();
        bad.scale[0] = 0.0;
        assert!(err(bad).contains("a scale is not positive"));
        let v1 = text.replace("\"version\": 3", "\"version\": 1");
        let e = crate::model::Model::from_json(&v1, "n.json").unwrap_err();
        assert!(
            e.to_string()
                .contains("a network in a version 1 model file"),
            "{e}"
        );
        let cut = crate::model::Model::from_json(&text[..text.len() / 3], "n.json");
        assert!(cut.unwrap_err().to_string().starts_with("n.json:"));
        // options
        let d = planted(3);
        let o = Observations::full(&d);
        let pages: Vec<u32> = (0..12).collect();
        let x = Examples::build(&d, &o, &set, &pages, &[0], 5..=9, 1).unwrap();
        let cards = set.cardinalities(&d).unwrap();
        let bad = |options: NetworkOptions| {
            train(&set, &cards, &x, &x, &options, &mut |_, _, _| {
                ControlFlow::Continue(())
            })
            .unwrap_err()
            .to_string()
        };
        let zero = NetworkOptions {
            epochs: 0,
            ..small()
        };
        assert!(bad(zero).contains("epochs and the batch size must be at least 1"));
        let rate = NetworkOptions {
            learning_rate: -1.0,
            ..small()
        };
        assert!(bad(rate).contains("the learning rate must be positive, not -1"));
        let e = train(&set, &[3], &x, &x, &small(), &mut |_, _, _| {
            ControlFlow::Continue(())
        })
        .map(|_| ());
        assert!(
            matches!(
                e,
                Err(PredictError::Feature(FeatureError::Code {
                    cardinality: 3,
                    ..
                }))
            ),
            "{e:?}"
        );
    }

    #[test]
    fn adagrad_keeps_no_graph_between_steps() {
        // A kept graph chains every step's activations: memory grew by megabytes a step.
        let w = Var::from_vec(vec![0.5f32, 0.25], (2, 1), &Device::Cpu).unwrap();
        // x stands for a layer's input, itself computed (tracked): a variable here.
        let x = Var::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], (2, 2), &Device::Cpu).unwrap();
        let config = AdagradConfig {
            learning_rate: 0.1,
            initial: 0.1,
        };
        let mut opt = Adagrad::new(vec![w.clone()], config).unwrap();
        for _ in 0..3 {
            let loss = x.as_tensor().matmul(w.as_tensor()).unwrap().relu().unwrap();
            let loss = loss.sum_all().unwrap();
            opt.backward_step(&loss).unwrap();
            assert!(opt.vars.iter().all(|(_, sum)| !sum.track_op()));
        }
        // Adagrad's arithmetic: G = 0.1 + Σ g², w -= 0.1 · g / √G, with g = (4, 6) while
        // both outputs stay positive.
        let w = w
            .as_tensor()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let mut want = [0.5f32, 0.25];
        let mut sum = [0.1f32, 0.1];
        for _ in 0..3 {
            for (j, g) in [4.0f32, 6.0].into_iter().enumerate() {
                sum[j] += g * g;
                want[j] -= 0.1 * g / sum[j].sqrt();
            }
        }
        assert!(
            w.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{w:?} {want:?}"
        );
    }
}
