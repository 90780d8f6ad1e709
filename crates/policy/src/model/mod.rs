//! Learned change models as files and scores (`docs/src/reference/models.md`): what reading
//! a model file and scoring with it need, below the policies that score pages with a model
//! (`policy::Predictor`) and below `predict`, which trains and evaluates them.
//!
//! - [`Feature`] and [`FeatureSet`] (`feature.rs`): the features a model reads, by name;
//! - [`Model`] (`file.rs`): a single signed feature, a logistic regression or the network,
//!   its score of one example or of many, and its versioned JSON file;
//! - [`Hazard`] and [`Prior`] (`hazard.rs`): the stale model (the probability that a page
//!   changed since the last visit) and the gamma prior on rates its features read;
//! - [`Network`] (`network.rs`): the predictive-crawling paper's network, shapes checked,
//!   scored by its forward pass without candle;
//! - [`ModelError`] (`error.rs`): why a feature name or a model file cannot be used.
//!
//! **Invariant:** this module computes no feature value: a model scores the values its
//! caller computed (from observations in `predict`, from a crawl's statistics in
//! `policy`), in the order of its [`FeatureSet`]. (A [`Prior`] turns counts its caller
//! computed into a rate: the prior's own arithmetic, stored with the model.)

mod error;
mod feature;
mod file;
mod hazard;
mod network;

pub use error::ModelError;
pub use feature::{Feature, FeatureSet};
pub use file::{Label, Model, FORMAT, VERSION};
pub use hazard::{stale_probability, strength, Hazard, Prior, FLOOR, MAX_STRENGTH};
pub use network::{code_of, Column};
pub use network::{embedding_dim, Layer, Network, Weights, HIDDEN, MAX_EMBEDDING};
