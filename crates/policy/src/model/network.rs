//! The predictive-crawling paper's network (docs/src/reference/models.md#the-network) as a
//! model file holds and scores it: a feed-forward classifier over the frequency features
//! and embeddings of the categorical ones. Training it is `predict::network`'s.
//!
//! # Architecture
//!
//! The input is the standardized numeric features (training mean and standard deviation,
//! as the logistic regression's) in feature order, then for each categorical feature
//! (`cat:KEY`, in feature order) its embedding: a learned row of `cardinality + 1` rows
//! (the last for pages that lack the attribute, and for any code the model does not know)
//! of [`embedding_dim`] columns. Then three dense layers of [`HIDDEN`] = 256, 128, 64 units
//! with ReLU, and one linear unit: the logit z. The score is the probability `σ(z)`.
//!
//! # Scoring
//!
//! Scoring does not use candle: [`Network::score_rows`] runs the forward pass over blocks
//! of 1024 examples with ndarray's `general_mat_mul` (matrixmultiply's kernels, AVX-512 or
//! AVX2 detected at run time, one thread) into buffers reused from block to block, the
//! bias written before each product and ReLU applied in place, where candle would
//! allocate a tensor per operation: about 1.2 M examples/s on one core (`cargo bench
//! --bench predict -- score-network`). One example ([`Network::score`]) goes through the
//! same code, so it scores bit for bit as in a block.
//!
//! **Invariant:** a [`Network`] is well shaped (weights and biases match its features,
//! cardinalities and layers; the last layer has one unit) and its parameters are finite:
//! `predict::network::train` builds it so and [`Network::check`] checks a loaded one, so
//! scoring never indexes out of bounds.

use super::FeatureSet;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, Axis, Slice};
use serde::{Deserialize, Serialize};

/// The hidden layers' widths (the paper's).
pub const HIDDEN: [usize; 3] = [256, 128, 64];

/// The widest embedding.
pub const MAX_EMBEDDING: usize = 16;

/// Examples per block when scoring.
const SCORE_BLOCK: usize = 1024;

/// The embedding width of an attribute with `cardinality` values (`cardinality + 1` rows
/// with the missing one): `min(16, ⌈4·rows^¼⌉)`, the usual fourth-root rule (12 for 60
/// values, 16 from 256).
///
/// ```
/// use freshgp_policy::model::embedding_dim;
/// assert_eq!(embedding_dim(12), 8);
/// assert_eq!(embedding_dim(60), 12);
/// assert_eq!(embedding_dim(400), 16);
/// ```
pub fn embedding_dim(cardinality: usize) -> usize {
    let rows = (cardinality + 1) as f64;
    ((4.0 * rows.powf(0.25)).ceil() as usize).clamp(1, MAX_EMBEDDING)
}

/// A matrix of weights, row after row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Rows and columns.
    pub shape: [usize; 2],
    /// `rows × columns` values.
    pub values: Vec<f32>,
}

/// One dense layer: `x·weight + bias`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    /// Inputs × units.
    pub weight: Weights,
    /// One per unit.
    pub bias: Vec<f32>,
}

/// A trained network with its features, standardization and weights (see the module
/// docs). Built by `predict::network::train` or read from a model file ([`Model`](super::Model)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// The features it reads, in column order.
    pub features: FeatureSet,
    /// Training mean of each numeric feature, in feature order.
    pub mean: Vec<f64>,
    /// Training standard deviation of each numeric feature (1 where constant).
    pub scale: Vec<f64>,
    /// Values of each categorical feature's attribute, in feature order.
    pub cardinalities: Vec<usize>,
    /// Per categorical feature, `cardinality + 1` rows.
    pub embeddings: Vec<Weights>,
    /// The dense layers, the last with one unit.
    pub layers: Vec<Layer>,
    /// The epoch kept (1-based).
    pub epoch: usize,
}

/// Where an input column comes from.
pub enum Column {
    /// Feature `col` standardized.
    Numeric {
        /// The feature's column.
        col: usize,
        /// The training examples' mean of it.
        mean: f64,
        /// Their standard deviation (1 when it is 0).
        scale: f64,
    },
    /// Feature `col`'s embedding `emb`.
    Category {
        /// The feature's column.
        col: usize,
        /// Which of the model's embeddings.
        emb: usize,
    },
}

impl Network {
    /// The features, in the column order of the examples it scores.
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The number of values of each categorical feature's attribute when it was trained.
    pub fn cardinalities(&self) -> &[usize] {
        &self.cardinalities
    }

    /// The epoch whose weights were kept (1-based).
    pub fn epoch(&self) -> usize {
        self.epoch
    }

    /// The dense layers, input first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The embeddings, one per categorical feature.
    pub fn embeddings(&self) -> &[Weights] {
        &self.embeddings
    }

    /// The network's input width: numeric features plus embedding widths.
    fn input_width(&self) -> usize {
        self.mean.len() + self.embeddings.iter().map(|e| e.shape[1]).sum::<usize>()
    }

    /// Where each input column group comes from.
    pub fn columns(&self) -> Vec<Column> {
        let (mut numeric, mut category) = (0, 0);
        let mut out = Vec::with_capacity(self.features.len());
        for (col, f) in self.features.features().iter().enumerate() {
            if f.is_categorical() {
                out.push(Column::Category { col, emb: category });
                category += 1;
            } else {
                out.push(Column::Numeric {
                    col,
                    mean: self.mean[numeric],
                    scale: self.scale[numeric],
                });
                numeric += 1;
            }
        }
        // Numeric columns first, then the embeddings: the input layout.
        out.sort_by_key(|c| matches!(c, Column::Category { .. }));
        out
    }

    /// Writes one example's input (standardized numeric values, then embedding rows) into
    /// `dst`.
    fn encode(&self, columns: &[Column], row: &[f64], dst: &mut [f32]) {
        let mut at = 0;
        for c in columns {
            match *c {
                Column::Numeric { col, mean, scale } => {
                    let v = (row[col] - mean) / scale;
                    dst[at] = if v.is_finite() { v as f32 } else { 0.0 };
                    at += 1;
                }
                Column::Category { col, emb } => {
                    let e = &self.embeddings[emb];
                    let (rows, dim) = (e.shape[0], e.shape[1]);
                    let code = code_of(row[col], rows - 1);
                    dst[at..at + dim].copy_from_slice(&e.values[code * dim..(code + 1) * dim]);
                    at += dim;
                }
            }
        }
    }

    /// The score (the predicted probability of a change) of one example whose values
    /// follow [`Network::features`]; the same bits as in [`Network::score_rows`].
    pub fn score(&self, x: &[f64]) -> f64 {
        let mut out = Vec::with_capacity(1);
        self.score_rows(x, &mut out);
        out.first().copied().unwrap_or(f64::NAN)
    }

    /// The scores of examples given row after row (one value per feature each; a last
    /// partial row is ignored), into `out`, in blocks of 1024 (see the module docs).
    pub fn score_rows(&self, values: &[f64], out: &mut Vec<f64>) {
        out.clear();
        let width = self.features.len().max(1);
        let n = values.len() / width;
        let block = n.clamp(1, SCORE_BLOCK);
        let columns = self.columns();
        let mut input = Array2::<f32>::zeros((block, self.input_width()));
        let mut hidden: Vec<Array2<f32>> = self
            .layers
            .iter()
            .map(|l| Array2::zeros((block, l.weight.shape[1])))
            .collect();
        // Invariant: a checked network's shapes match their values (Network::check).
        let weights: Vec<ArrayView2<f32>> = self
            .layers
            .iter()
            .map(|l| ArrayView2::from_shape(l.weight.shape, &l.weight.values))
            .collect::<Result<_, _>>()
            .expect("invariant: checked shapes");
        let last = self.layers.len() - 1;
        for chunk in values[..n * width].chunks(block * width) {
            let rows = chunk.len() / width;
            for (r, row) in chunk.chunks_exact(width).enumerate() {
                // Invariant: `input` is a standard-layout array, so each row is contiguous.
                let dst = input
                    .row_mut(r)
                    .into_slice()
                    .expect("invariant: contiguous");
                self.encode(&columns, row, dst);
            }
            for (i, layer) in self.layers.iter().enumerate() {
                let (before, after) = hidden.split_at_mut(i);
                let top = Slice::from(..rows);
                let x = match before.last() {
                    Some(h) => h.slice_axis(Axis(0), top),
                    None => input.slice_axis(Axis(0), top),
                };
                let mut h = after[0].slice_axis_mut(Axis(0), top);
                for mut r in h.rows_mut() {
                    r.iter_mut().zip(&layer.bias).for_each(|(v, b)| *v = *b);
                }
                general_mat_mul(1.0, &x, &weights[i], 1.0, &mut h);
                if i < last {
                    h.iter_mut()
                        .for_each(|v| *v = if *v > 0.0 { *v } else { 0.0 });
                }
            }
            let z = hidden[last].slice_axis(Axis(0), Slice::from(..rows));
            out.extend(
                z.column(0)
                    .iter()
                    .map(|&z| 1.0 / (1.0 + (-f64::from(z)).exp())),
            );
        }
    }

    /// Checks the invariant: one mean and positive scale per numeric feature, one
    /// cardinality and embedding of `cardinality + 1` rows per categorical one, layers
    /// that chain from the input width to one unit, every value finite.
    ///
    /// # Errors
    /// The first problem found, as a sentence.
    pub fn check(&self) -> Result<(), String> {
        let numeric = self
            .features
            .features()
            .iter()
            .filter(|f| !f.is_categorical());
        let numeric = numeric.count();
        let categorical = self.features.len() - numeric;
        if self.features.is_empty() {
            return Err("a network needs at least one feature".into());
        }
        if self.mean.len() != numeric || self.scale.len() != numeric {
            return Err(format!(
                "a network needs one mean and scale per numeric feature ({numeric}), not {} and {}",
                self.mean.len(),
                self.scale.len()
            ));
        }
        if self.mean.iter().any(|m| !m.is_finite())
            || self.scale.iter().any(|s| !(s.is_finite() && *s > 0.0))
        {
            return Err("a mean is not finite, or a scale is not positive".into());
        }
        if self.cardinalities.len() != categorical || self.embeddings.len() != categorical {
            return Err(format!(
                "a network needs one cardinality and embedding per categorical feature ({categorical}), not {} and {}",
                self.cardinalities.len(),
                self.embeddings.len()
            ));
        }
        for (k, (e, &card)) in self.embeddings.iter().zip(&self.cardinalities).enumerate() {
            check_weights(e, &format!("embedding {}", k + 1))?;
            if e.shape[0] != card.saturating_add(1) || e.shape[1] == 0 {
                return Err(format!(
                    "embedding {} has shape {:?}, expected {} rows (cardinality {card} + 1) and at least one column",
                    k + 1,
                    e.shape,
                    card.saturating_add(1)
                ));
            }
        }
        self.check_layers()
    }

    /// The layers' part of [`Network::check`].
    fn check_layers(&self) -> Result<(), String> {
        if self.layers.is_empty() {
            return Err("a network needs at least one layer".into());
        }
        let mut width = self.input_width();
        for (i, l) in self.layers.iter().enumerate() {
            let name = format!("layer {}", i + 1);
            check_weights(&l.weight, &name)?;
            if l.weight.shape[0] != width || l.weight.shape[1] == 0 {
                return Err(format!(
                    "{name} has shape {:?}, expected {width} inputs and at least one unit",
                    l.weight.shape
                ));
            }
            if l.bias.len() != l.weight.shape[1] || l.bias.iter().any(|b| !b.is_finite()) {
                return Err(format!(
                    "{name} needs {} finite biases, one per unit",
                    l.weight.shape[1]
                ));
            }
            width = l.weight.shape[1];
        }
        if width != 1 {
            return Err(format!("the last layer has {width} units, expected 1"));
        }
        Ok(())
    }
}

/// A matrix whose values match its shape and are finite.
fn check_weights(w: &Weights, name: &str) -> Result<(), String> {
    let n = w.shape[0].checked_mul(w.shape[1]);
    if n != Some(w.values.len()) {
        return Err(format!(
            "{name} has shape {:?} but {} values",
            w.shape,
            w.values.len()
        ));
    }
    if w.values.iter().any(|v| !v.is_finite()) {
        return Err(format!("{name} has a weight that is not finite"));
    }
    Ok(())
}

/// The embedding row of a code: itself when it is an integer below `missing`, else the
/// missing row.
pub fn code_of(v: f64, missing: usize) -> usize {
    if v >= 0.0 && v < missing as f64 && v.fract() == 0.0 {
        v as usize
    } else {
        missing
    }
}
