//! Saving and loading a [`Scheduler`]: a versioned, checksummed binary file.
//!
//! A crawler restarts without losing history: everything the ranking depends on (the
//! policy, the tie seed, the latest cycle, every slot's page id, statistics — tracked ones
//! included —, policy memory, host and weight, the interned visit intervals, the free
//! slots, a bandit's weights, the attributes) is saved, and a loaded scheduler ranks
//! exactly as the saved one would have.
//!
//! Layout:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `\x89FGPSCH\n` |
//! | 4 | format version, little-endian (`8`; versions `1` to `7` are read too) |
//! | 8 | payload length, little-endian |
//! | n | payload |
//! | 4 | CRC-32 of every byte before it; the file ends here |
//!
//! The payload of version 8, the one written (and of version 7, which held a bandit's
//! weights without the count of cycles it played), is compact and columnar (`compact.rs`):
//! each distinct page state once, then per slot its state's index, host, weight and the
//! end of its id, then the ids; about 24 bytes per page besides its id, read with no
//! allocation per page, the ids decoded only when a page is looked up by id. Versions 1
//! to 6 (`legacy.rs`) held every field per slot in [`bincode`].
//!
//! The host and group totals `HR` and `GR` read are not saved: they are the sums of the
//! pages' `X` and `n` per host and group, recomputed on loading (as is the group a page's
//! statistics hold). Loading a version 1 or 2 file gives every page weight
//! 1 and the tracked statistics of its known history; when the policy reads `n7`, `X7` or
//! `MLE`, which need the visit history such files do not keep, a file with a page
//! already visited is refused (start a new state file), one whose pages were never
//! visited loads.
//!
//! A truncated, corrupt or foreign file is an error naming the file and what is wrong,
//! never a panic or a huge allocation (the decoder is limited to the payload's length),
//! and the decoded state is checked for consistency before use (e.g. a weight that is not
//! finite and >= 0, masks that disagree with the last visit, intervals that do not add
//! up to it, statistics kept for another policy's terminals), naming the page. The page id type must be
//! the one the file was saved with. Saving writes a temporary file beside the target,
//! syncs it and renames it over the target, so a crash leaves the old or the new state,
//! never a mix.
//!
//! ```
//! use freshgp_schedule::schedule::Scheduler;
//! use freshgp_policy::policy::{Baseline, Policy};
//!
//! let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Nad));
//! s.add("a".to_string())?;
//! s.observe("a", 1, true)?;
//! let bytes = s.to_bytes()?;
//! let back: Scheduler = Scheduler::from_bytes(&bytes, "<memory>")?;
//! assert_eq!(back.stats("a"), s.stats("a"));
//! assert!(Scheduler::<String>::from_bytes(&bytes[..bytes.len() - 1], "<memory>").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{PageId, Scheduler};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Debug;
use std::path::Path;

/// The first 8 bytes of every state file.
pub(crate) const MAGIC: [u8; 8] = *b"\x89FGPSCH\n";
/// The format version this build writes (it also reads version 7, whose bandits lack the
/// count of plays, and versions 1 to 6: `legacy.rs`).
pub(crate) const VERSION: u32 = 8;

const HEADER: usize = 8 + 4 + 8;
const TRAILER: usize = 4;

/// Why a state cannot be saved or loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Reading or writing failed.
    #[error("{file}: {reason}")]
    Io {
        /// The file.
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// The file is not a usable scheduler state.
    #[error("{file}: not a usable scheduler state: {reason}")]
    Corrupt {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// The state cannot be encoded.
    #[error("cannot encode the scheduler state: {0}")]
    Encode(String),
}

/// The little-endian integer in `bytes` (exactly 4 of them).
fn u32_le(bytes: &[u8]) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(bytes);
    u32::from_le_bytes(word)
}

/// The little-endian integer in `bytes` (exactly 8 of them).
fn u64_le(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

impl<K: PageId + Serialize + DeserializeOwned + 'static> Scheduler<K> {
    /// The state as bytes (the file format above).
    pub fn to_bytes(&self) -> Result<Vec<u8>, StateError> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        self.compact_payload(&mut out).map_err(StateError::Encode)?;
        let size = (out.len() - HEADER) as u64;
        out[12..HEADER].copy_from_slice(&size.to_le_bytes());
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        Ok(out)
    }

    /// Reads a state from `bytes` (a whole file); `file` names it in errors.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Scheduler<K>, StateError> {
        Scheduler::from_file(Cow::Borrowed(bytes), file)
    }

    /// [`Scheduler::from_bytes`], keeping a file read whole rather than copying from it.
    fn from_file(bytes: Cow<'_, [u8]>, file: &str) -> Result<Scheduler<K>, StateError> {
        let bad = |reason: String| StateError::Corrupt {
            file: file.to_string(),
            reason,
        };
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(
                "wrong magic bytes (not a freshgp scheduler state)".into()
            ));
        }
        if bytes.len() < HEADER + TRAILER {
            return Err(bad(format!(
                "truncated: {} bytes, a state has at least {}",
                bytes.len(),
                HEADER + TRAILER
            )));
        }
        let version = u32_le(&bytes[8..12]);
        if !(1..=VERSION).contains(&version) {
            return Err(bad(format!(
                "format version {version}, this build reads versions 1 to {VERSION}"
            )));
        }
        let size = u64_le(&bytes[12..20]);
        let actual = (bytes.len() - HEADER - TRAILER) as u64;
        if size != actual {
            return Err(bad(format!(
                "the header announces {size} bytes of state, the file holds {actual} \
                 (truncated or appended to)"
            )));
        }
        let (body, trailer) = bytes.split_at(bytes.len() - TRAILER);
        let stored = u32_le(trailer);
        let crc = crc32fast::hash(body);
        if crc != stored {
            return Err(bad(format!(
                "checksum mismatch (stored {stored:08x}, computed {crc:08x}): the file is corrupt"
            )));
        }
        let payload = HEADER..body.len();
        match version {
            7.. => Scheduler::from_compact(version, bytes, payload),
            _ => Scheduler::from_legacy(version, &bytes[payload]),
        }
        .map_err(bad)
    }

    /// Saves the state to `path` atomically (a temporary file beside it, then a rename);
    /// a file that already holds this state byte for byte is left alone
    /// ([`crate::atomic::write_if_changed`]).
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let name = path.display().to_string();
        let io = |e: std::io::Error| StateError::Io {
            file: name.clone(),
            reason: e.to_string(),
        };
        let bytes = self.to_bytes()?;
        crate::atomic::write_if_changed(path, &bytes).map_err(io)?;
        Ok(())
    }

    /// Loads a state saved by [`Scheduler::save`].
    pub fn load(path: &Path) -> Result<Scheduler<K>, StateError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| StateError::Io {
            file: name.clone(),
            reason: e.to_string(),
        })?;
        Scheduler::from_file(Cow::Owned(bytes), &name)
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
