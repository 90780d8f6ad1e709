//! # freshgp-archive
//!
//! Change histories for [freshgp](https://crates.io/crates/freshgp) from the files
//! crawlers and web archives already keep.
//!
//! - [`archive`]: CDX and CDXJ indexes, WARC files and Heritrix crawl logs read into a
//!   [`Dataset`](freshgp_data::data::Dataset), by the rule every reader of crawl files
//!   shares ([`freshgp_data::data::captures`]).

use freshgp_data::data;

pub mod archive;
