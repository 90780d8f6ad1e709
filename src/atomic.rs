//! Writing a file so that a crash or an error never leaves it half written: the content
//! goes to a temporary file beside the target, is synced, then renamed over the target.
//! Readers see the old file or the new one, never a mix, and an existing file is not
//! truncated before its replacement is complete. Every file freshgp writes for a user
//! (datasets, caches, study units, scheduler states) goes through here.
//!
//! **Invariant:** on error the target is unchanged and the temporary file is removed.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `path` atomically with `fill`, which writes the content into a buffered writer.
pub(crate) fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let temp = temp_path(path);
    let result = (|| {
        let mut out = BufWriter::new(File::create(&temp)?);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Writes `bytes` to `path` atomically: `path` holds its old content or `bytes`, never a
/// part, whatever stops the write (an error, a full disk, a file-size limit, a kill).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("freshgp-atomic-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("out.txt");
/// freshgp::atomic::write(&path, b"new")?;
/// assert_eq!(std::fs::read(&path)?, b"new");
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// Like [`write()`], but leaves `path` alone when it already holds exactly `bytes`
/// (compared byte for byte, after a size check); returns whether it wrote. A large file
/// rewritten unchanged (a scheduler state after a batch that observed nothing) then
/// costs one read instead of a write and a sync.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("freshgp-atomic-doc2-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("out.txt");
/// assert!(freshgp::atomic::write_if_changed(&path, b"new")?);
/// assert!(!freshgp::atomic::write_if_changed(&path, b"new")?);
/// assert!(freshgp::atomic::write_if_changed(&path, b"newer")?);
/// assert_eq!(std::fs::read(&path)?, b"newer");
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    if holds(path, bytes).unwrap_or(false) {
        return Ok(false);
    }
    write(path, bytes)?;
    Ok(true)
}

/// Whether the file at `path` holds exactly `bytes` (read in blocks, never whole).
fn holds(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    use std::io::Read;
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() != bytes.len() as u64 {
        return Ok(false);
    }
    let mut block = vec![0; 1 << 20];
    for expected in bytes.chunks(block.len()) {
        let got = &mut block[..expected.len()];
        file.read_exact(got)?;
        if got != expected {
            return Ok(false);
        }
    }
    // Nothing after: the file may have grown since its size was read.
    Ok(file.read(&mut block[..1])? == 0)
}

/// `.NAME.PID.NONCE.tmp` beside `path` (same directory, so the rename stays on one file
/// system). The nonce (the clock's nanoseconds and a per-process count, mixed) keeps apart
/// writers with the same process id: threads of one process, or processes on different
/// machines of a cluster writing to one shared directory.
fn temp_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let nonce = crate::hash::mix64(nanos ^ COUNT.fetch_add(1, Ordering::Relaxed).rotate_left(40));
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.{}.{nonce:016x}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("data.tsv");
        write(&target, b"old\n").unwrap();
        let failed = write_with(&target, |out| {
            out.write_all(b"half of the new")?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"old\n");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["data.tsv"]);
        write(&target, b"new\n").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new\n");
    }

    #[test]
    fn atomic_write_leaves_no_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.json");
        write(&target, b"{\"x\": 1}\n").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"{\"x\": 1}\n");
        // A rename onto a non-empty directory fails: the target directory and its content
        // stay, and no temporary file is left behind.
        let blocked = dir.path().join("b.json");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("keep"), b"k").unwrap();
        assert!(write(&blocked, b"new").is_err());
        assert!(blocked.is_dir());
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
        assert_eq!(names.len(), 2);
        // A failed overwrite keeps the old content.
        let ro = dir.path().join("missing-dir").join("c.json");
        assert!(write(&ro, b"x").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"{\"x\": 1}\n");
    }
}
