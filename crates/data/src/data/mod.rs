//! Change-history datasets (docs/src/reference/data.md): which pages changed in which
//! cycles.
//!
//! A [`Dataset`] holds P pages × D cycles packed as bits (one `u64` word per 64 cycles
//! per page), a mask of unknown cycles (`?`, failed downloads), and optional page ids,
//! hosts and weights. Cycles are numbered from 1.
//!
//! ```
//! use freshgp_data::data::Dataset;
//!
//! let d = Dataset::from_bit_strings(&["0101", "1?00"]).unwrap();
//! assert_eq!((d.pages(), d.cycles()), (2, 4));
//! assert!(d.changed(0, 2) && !d.changed(0, 1));
//! assert!(d.is_unknown(1, 2));
//! ```
//!
//! The submodules build on it:
//!
//! - [`text`]: the text format (docs/src/reference/data.md#the-text-format), read
//!   (streaming, strict) and written;
//! - [`cache`]: a compact, versioned, checksummed binary copy that loads faster;
//! - [`unknown`]: policies for unknown cycles (the paper's by default);
//! - [`captures`]: the rule that turns a page's downloads into its cycles, which every
//!   reader of crawl files shares;
//! - [`log`]: turning crawl logs (`url, fetch_time, content_hash`) into a history;
//! - [`synth`]: a realistic synthetic generator driven by RON presets;
//! - [`split`]: the temporal cross-validation (docs/src/reference/folds.md);
//! - [`sample`]: a share of the pages, whole hosts at a time (what a search may
//!   evaluate on);
//! - [`stats`]: summary figures of a history, the weight distribution included;
//! - [`weights`]: page importance weights from a `page<TAB>weight` file, set by page id;
//! - [`PageArrays`]: a history built from arrays held in memory (the Python module's);
//! - [`attributes`]: categorical page metadata (`category=`, `country=`, ...;
//!   docs/src/reference/data.md#attributes).
//!
//! One entry point reads any stored history: [`load`] detects the binary cache by its
//! magic bytes, else reads text, then resolves unknown cycles by [`LoadOptions::unknown`]
//! and reports what it did:
//!
//! ```no_run
//! use freshgp_data::data::{load, LoadOptions};
//!
//! let loaded = load("datasets/brdc12-sample.tsv".as_ref(), &LoadOptions::default())?;
//! println!("{} pages, {} dropped", loaded.dataset.pages(), loaded.report.unknown.pages_dropped);
//! # Ok::<(), freshgp_data::data::DataError>(())
//! ```
//!
//! **Invariant:** this module knows nothing of formulas, simulation or GP.

mod arrays;
pub mod attributes;
pub mod cache;
pub mod captures;
mod dataset;
mod error;
mod load;
pub mod log;
pub mod sample;
pub mod split;
pub mod stats;
pub mod synth;
pub mod text;
pub mod unknown;
pub mod weights;

pub use arrays::PageArrays;
pub use attributes::{Attribute, Attributes};
pub use dataset::{Dataset, Fingerprint};
pub(crate) use error::write_atomically;
pub use error::DataError;
pub use load::{load, Format, LoadOptions, LoadReport, Loaded};
pub use unknown::{UnknownPolicy, UnknownReport};
