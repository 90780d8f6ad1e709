//! An exclusive lock on a scheduler state file, so that two crawler processes (two
//! `freshgp schedule` runs) never read the same state and save over each other's
//! observations.
//!
//! The lock is an operating-system lock (`std::fs::File::try_lock`) on a file next to the
//! state, `<state>.lock`; it is released when the [`StateLock`] is dropped, or when the
//! process ends however it ends, so a killed run never leaves a stale lock. The lock file
//! itself stays (it holds nothing). The lock belongs to the path as given: two runs must
//! name the state by the same path (a symlink to it locks a lock file of its own).
//!
//! ```
//! use freshgp::schedule::StateLock;
//!
//! let dir = tempfile::tempdir()?;
//! let state = dir.path().join("crawl.state");
//! let held = StateLock::try_acquire(&state)?;
//! // A second holder is refused while the first holds it...
//! assert!(StateLock::try_acquire(&state).is_err());
//! drop(held);
//! // ...and admitted once it is released.
//! let _again = StateLock::try_acquire(&state)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// Why a state could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{state} is in use by another scheduler run (lock {lock}); wait for it to finish, or wait for it with --wait")]
    Busy {
        /// The state file.
        state: String,
        /// The lock file.
        lock: String,
    },
    /// The lock file could not be opened or locked.
    #[error("cannot lock {lock}: {reason}")]
    Io {
        /// The lock file.
        lock: String,
        /// The system's reason.
        reason: String,
    },
}

/// An exclusive lock on a state file, held until dropped.
#[derive(Debug)]
pub struct StateLock {
    _file: File,
    path: PathBuf,
}

impl StateLock {
    /// The lock file of `state`: `<state>.lock`, beside it.
    pub fn path_of(state: &Path) -> PathBuf {
        let mut name = state.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        state.with_file_name(name)
    }

    /// Takes the lock of `state`, or fails at once with [`LockError::Busy`] when another
    /// process holds it.
    pub fn try_acquire(state: &Path) -> Result<StateLock, LockError> {
        let (file, path) = StateLock::open(state)?;
        match file.try_lock() {
            Ok(()) => Ok(StateLock { _file: file, path }),
            Err(TryLockError::WouldBlock) => Err(LockError::Busy {
                state: state.display().to_string(),
                lock: path.display().to_string(),
            }),
            Err(TryLockError::Error(e)) => Err(io(&path, e)),
        }
    }

    /// Takes the lock of `state`, waiting as long as another process holds it.
    pub fn acquire(state: &Path) -> Result<StateLock, LockError> {
        let (file, path) = StateLock::open(state)?;
        file.lock().map_err(|e| io(&path, e))?;
        Ok(StateLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open(state: &Path) -> Result<(File, PathBuf), LockError> {
        let path = StateLock::path_of(state);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        Ok((file, path))
    }
}

fn io(path: &Path, e: std::io::Error) -> LockError {
    LockError::Io {
        lock: path.display().to_string(),
        reason: e.to_string(),
    }
}
