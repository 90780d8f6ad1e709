//! A sample of a history's pages, whole hosts at a time
//! (docs/src/reference/gp.md#searching-on-a-sample-of-the-pages): what the search may
//! evaluate its formulas on, so that a generation costs a share of a full one.
//!
//! A page with a host is in the sample when its host is: a host's pages compete for its
//! slots under a host cap and give its change rate (`HR`) together, so a sample that
//! split hosts would ask a formula a different question. A page without a host is a unit
//! of its own. The units are taken in the order of a hash of each (its host's name, or
//! the page's id, or without ids its row) until they hold the share of the pages (rounded
//! up): the sample holds at least that many pages and overshoots by less than one unit,
//! does not depend on the order of the pages in the file when they have ids, is the same
//! on every machine, and a larger share holds every unit of a smaller one.
//!
//! ```
//! use freshgp_data::data::{sample::PageSample, Dataset};
//!
//! let d = Dataset::from_bit_strings(&["0101"; 1000]).unwrap();
//! let pages: Vec<u32> = (0..1000).collect();
//! let half = PageSample::new(0.5).unwrap().pages(&d, &pages);
//! assert_eq!(half.len(), 500); // no hosts: 1,000 units of one page
//! let tenth = PageSample::new(0.1).unwrap().pages(&d, &pages);
//! assert!(tenth.iter().all(|p| half.contains(p)));
//! assert!(PageSample::new(1.5).is_err());
//! ```

use super::Dataset;
use crate::hash::mix64;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

/// Why a share cannot sample pages.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("page sample {0}: expected a share of the pages in (0, 1)")]
pub struct SampleError(pub f64);

/// A share in (0, 1) of a history's pages, taken by host
/// ([module documentation](self)).
///
/// **Invariant:** `0 < share < 1` (a share of 1 is no sample: leave it out).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct PageSample {
    share: f64,
}

/// Salts that keep a host's draw apart from the page's of the same index.
const HOST_SALT: u64 = 0x686f_7374_0000_0000;
const PAGE_SALT: u64 = 0x7061_6765_0000_0000;

impl PageSample {
    /// A sample of `share` of the pages.
    ///
    /// # Errors
    /// A share outside (0, 1), or not a number.
    pub fn new(share: f64) -> Result<PageSample, SampleError> {
        if share > 0.0 && share < 1.0 {
            Ok(PageSample { share })
        } else {
            Err(SampleError(share))
        }
    }

    /// The share of the pages.
    pub fn share(self) -> f64 {
        self.share
    }

    /// The pages of `pages` (indices into `dataset`) in the sample, in their order: the
    /// units (hosts, and pages without one) in the order of their hash until they hold
    /// `⌈share · pages⌉` pages. Empty only when `pages` is.
    ///
    /// Two hosts (or pages) whose hashes are equal count as one unit: the hash has 64
    /// bits, so this is as likely as not only among some four billion units.
    pub fn pages(self, dataset: &Dataset, pages: &[u32]) -> Vec<u32> {
        let hosts: Vec<u64> = (dataset.host_names().iter())
            .map(|name| HOST_SALT ^ hash_text(name))
            .collect();
        let keys: Vec<u64> = (pages.iter())
            .map(|&p| match dataset.named_host(p as usize) {
                Some(h) => hosts[h as usize],
                None => match dataset.id(p as usize) {
                    Some(id) => PAGE_SALT ^ hash_text(id),
                    None => PAGE_SALT ^ u64::from(p),
                },
            })
            .collect();
        let mut sizes: FxHashMap<u64, usize> = FxHashMap::default();
        for &k in &keys {
            *sizes.entry(k).or_default() += 1;
        }
        let mut units: Vec<(u64, u64, usize)> =
            sizes.into_iter().map(|(k, n)| (mix64(k), k, n)).collect();
        units.sort_unstable();
        let target = (self.share * pages.len() as f64).ceil() as usize;
        let mut taken = FxHashSet::default();
        let mut held = 0;
        for (_, k, n) in units {
            if held >= target {
                break;
            }
            taken.insert(k);
            held += n;
        }
        (pages.iter().zip(&keys))
            .filter(|(_, k)| taken.contains(k))
            .map(|(&p, _)| p)
            .collect()
    }
}

/// A hash of `text`, the same on every machine: its bytes, eight at a time, mixed in turn.
fn hash_text(text: &str) -> u64 {
    text.as_bytes()
        .chunks(8)
        .fold(text.len() as u64, |h, chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            mix64(h ^ u64::from_le_bytes(word))
        })
}

impl TryFrom<f64> for PageSample {
    type Error = SampleError;

    fn try_from(share: f64) -> Result<PageSample, SampleError> {
        PageSample::new(share)
    }
}

impl From<PageSample> for f64 {
    fn from(sample: PageSample) -> f64 {
        sample.share
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text::read;

    /// `hosts` hosts of `per` pages each, then `alone` pages without a host.
    fn hosted(hosts: usize, per: usize, alone: usize) -> Dataset {
        let mut text = String::new();
        for h in 0..hosts {
            for i in 0..per {
                text.push_str(&format!("0101\th{h}-{i}\th{h}.example\n"));
            }
        }
        for i in 0..alone {
            text.push_str(&format!("0110\ta{i}\n"));
        }
        read(text.as_bytes(), "hosts.tsv").unwrap()
    }

    #[test]
    fn shares_outside_the_open_interval_are_refused() {
        for bad in [0.0, 1.0, -0.2, 1.5, f64::NAN, f64::INFINITY] {
            let err = PageSample::new(bad).unwrap_err();
            assert!(err.to_string().contains("in (0, 1)"), "{err}");
        }
        assert_eq!(PageSample::new(0.25).unwrap().share(), 0.25);
    }

    #[test]
    fn hosts_are_taken_whole_until_the_share_is_held() {
        let d = hosted(400, 5, 2000);
        let pages: Vec<u32> = (0..d.pages() as u32).collect();
        for share in [0.001, 0.3, 0.77] {
            let sample = PageSample::new(share).unwrap().pages(&d, &pages);
            let in_sample = |p: u32| sample.binary_search(&p).is_ok();
            for h in 0..400u32 {
                let members: Vec<bool> = (0..5).map(|i| in_sample(h * 5 + i)).collect();
                assert!(members.iter().all(|&m| m == members[0]), "host {h} split");
            }
            // At least the share, and less than one host (5 pages) more.
            let target = (share * 4000.0f64).ceil() as usize;
            assert!(
                sample.len() >= target && sample.len() < target + 5,
                "{share}: {}",
                sample.len()
            );
            // Both hosts and lone pages are drawn.
            if share > 0.1 {
                assert!(sample.iter().any(|&p| p < 2000) && sample.iter().any(|&p| p >= 2000));
            }
        }
    }

    #[test]
    fn the_sample_does_not_depend_on_order_and_nests() {
        let d = hosted(50, 3, 300);
        let all: Vec<u32> = (0..d.pages() as u32).collect();
        let s = PageSample::new(0.4).unwrap();
        let whole = s.pages(&d, &all);
        let reversed: Vec<u32> = all.iter().rev().copied().collect();
        let mut back = s.pages(&d, &reversed);
        back.reverse();
        assert_eq!(back, whole);
        let smaller = PageSample::new(0.1).unwrap().pages(&d, &all);
        assert!(smaller.iter().all(|p| whole.contains(p)));
        assert!(smaller.len() < whole.len());
        assert_eq!(
            PageSample::new(0.5).unwrap().pages(&d, &[]),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn a_host_larger_than_the_share_is_taken_whole() {
        // A host of 90 pages and 10 lone pages: the lone pages cannot hold a fifth, so the
        // host is taken, whole, with the lone pages before it in hash order.
        let d = hosted(1, 90, 10);
        let all: Vec<u32> = (0..100).collect();
        let sample = PageSample::new(0.2).unwrap().pages(&d, &all);
        assert_eq!(sample[..90], all[..90]);
        assert!(sample.len() <= 100);
    }

    #[test]
    fn the_sample_is_the_same_whatever_the_files_order() {
        let d = hosted(30, 4, 200);
        let mut text = Vec::new();
        crate::data::text::write(&d, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let backwards: String = text.lines().rev().map(|l| format!("{l}\n")).collect();
        let reversed = read(backwards.as_bytes(), "reversed.tsv").unwrap();
        let ids = |d: &Dataset, share: f64| -> Vec<String> {
            let all: Vec<u32> = (0..d.pages() as u32).collect();
            let mut ids: Vec<String> = (PageSample::new(share).unwrap().pages(d, &all))
                .iter()
                .map(|&p| d.id(p as usize).unwrap().to_string())
                .collect();
            ids.sort();
            ids
        };
        for share in [0.1, 0.35, 0.8] {
            assert_eq!(ids(&d, share), ids(&reversed, share), "{share}");
        }
    }

    #[test]
    fn a_share_reads_and_writes_as_a_number() {
        let s: PageSample = serde_json::from_str("0.2").unwrap();
        assert_eq!(s.share(), 0.2);
        assert_eq!(serde_json::to_string(&s).unwrap(), "0.2");
        let err = serde_json::from_str::<PageSample>("1.0").unwrap_err();
        assert!(err.to_string().contains("in (0, 1)"), "{err}");
    }
}
