//! An exclusive lock on a scheduler state file, so that two crawler processes (two
//! `freshgp schedule` runs) never read the same state and save over each other's
//! observations.
//!
//! The lock is an operating-system lock (`std::fs::File::try_lock`) on a file next to the
//! state, `<state>.lock`; it is released when the [`StateLock`] is dropped, or when the
//! process ends however it ends, so a killed run never leaves a stale lock. A run that ends
//! (in success or in error) removes the lock file as it releases it; only a killed run
//! leaves it, empty and unlocked, for the next run to take and remove. Removing it is safe
//! because a run that gets the lock checks that the file it locked is still the one at the
//! path (on Unix, the same device and inode), and otherwise locks the new one: a run that
//! waited on a file removed meanwhile never shares the lock with a run that created the
//! next. The lock belongs to the path as given: two runs must name the state by the same
//! path (a symlink to it locks a lock file of its own).
//!
//! ```
//! use freshgp_schedule::schedule::StateLock;
//!
//! let dir = tempfile::tempdir()?;
//! let state = dir.path().join("crawl.state");
//! let held = StateLock::try_acquire(&state)?;
//! // A second holder is refused while the first holds it...
//! assert!(StateLock::try_acquire(&state).is_err());
//! drop(held);
//! // ...and admitted once it is released (which removed the lock file).
//! assert!(!StateLock::path_of(&state).exists());
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
///
/// **Invariant:** while held, `file` is locked and is the file at `path`.
#[derive(Debug)]
pub struct StateLock {
    file: Option<File>,
    path: PathBuf,
}

impl Drop for StateLock {
    /// Removes the lock file while still holding it, then releases it.
    fn drop(&mut self) {
        if cfg!(unix) {
            // Nothing to do if it fails: a lock file left behind is taken by the next run.
            let _ = std::fs::remove_file(&self.path);
        }
        drop(self.file.take());
    }
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
        StateLock::take(state, |file, path| match file.try_lock() {
            Ok(()) => Ok(()),
            Err(TryLockError::WouldBlock) => Err(LockError::Busy {
                state: state.display().to_string(),
                lock: path.display().to_string(),
            }),
            Err(TryLockError::Error(e)) => Err(io(path, e)),
        })
    }

    /// Takes the lock of `state`, waiting as long as another process holds it.
    pub fn acquire(state: &Path) -> Result<StateLock, LockError> {
        StateLock::take(state, |file, path| file.lock().map_err(|e| io(path, e)))
    }

    /// Opens the lock file and locks it with `lock` until the file locked is the one at
    /// the path (the previous holder may have removed it as it released it).
    fn take(
        state: &Path,
        lock: impl Fn(&File, &Path) -> Result<(), LockError>,
    ) -> Result<StateLock, LockError> {
        loop {
            let (file, path) = StateLock::open(state)?;
            lock(&file, &path)?;
            if still_at(&file, &path) {
                return Ok(StateLock {
                    file: Some(file),
                    path,
                });
            }
        }
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

/// Whether `file` is the file now at `path`.
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Elsewhere lock files are never removed, so the file locked is the one at the path.
#[cfg(not(unix))]
fn still_at(_: &File, _: &Path) -> bool {
    true
}

fn io(path: &Path, e: std::io::Error) -> LockError {
    LockError::Io {
        lock: path.display().to_string(),
        reason: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Runs that take and release the lock over and over (each release removing the lock
    /// file) never hold it together, and leave no lock file.
    #[test]
    fn removing_the_lock_file_keeps_the_lock_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s.state");
        let (inside, entries) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for t in 0..8 {
                let (state, inside, entries) = (&state, &inside, &entries);
                scope.spawn(move || {
                    for i in 0..40 {
                        let held = if (t + i) % 3 == 0 {
                            match StateLock::try_acquire(state) {
                                Ok(held) => held,
                                Err(LockError::Busy { .. }) => continue,
                                Err(e) => panic!("{e}"),
                            }
                        } else {
                            StateLock::acquire(state).unwrap()
                        };
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two holders");
                        entries.fetch_add(1, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                        drop(held);
                    }
                });
            }
        });
        assert!(
            entries.load(Ordering::SeqCst) >= 8 * 26,
            "the waiting runs all entered"
        );
        assert!(!StateLock::path_of(&state).exists());
    }
}
