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
use std::time::{Duration, SystemTime};

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
/// freshgp_data::atomic::write(&path, b"new")?;
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
/// assert!(freshgp_data::atomic::write_if_changed(&path, b"new")?);
/// assert!(!freshgp_data::atomic::write_if_changed(&path, b"new")?);
/// assert!(freshgp_data::atomic::write_if_changed(&path, b"newer")?);
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

/// A temporary file untouched this long is a killed writer's: a write touches its file
/// until the rename (the last touch is the last block written, before the sync).
pub const ORPHAN_AGE: Duration = Duration::from_secs(3600);

/// A temporary file of a process that no longer runs on this machine, untouched this long,
/// is a killed writer's (on a file system shared by several machines, a writer elsewhere
/// may have the same process id, so the file must also be a minute old).
const DEAD_WRITER_AGE: Duration = Duration::from_secs(60);

/// Removes from `dir` the temporary files killed writers left (`.NAME.PID.NONCE.tmp`, as
/// [`write()`] names them): those untouched for [`ORPHAN_AGE`], or for a minute when
/// their process is not running on this machine (known where `/proc` lists processes).
/// Other files, and temporaries of running writers, are left alone. Returns how many
/// were removed; a directory that does not exist holds none.
///
/// # Errors
/// A directory that cannot be listed, or an orphan that cannot be removed.
pub fn remove_orphans(dir: &Path) -> io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let now = SystemTime::now();
    let procs = Path::new("/proc/self").exists();
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = temp_pid(&name) else {
            continue;
        };
        let meta = entry.metadata()?;
        if !meta.is_file() {
            continue;
        }
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        let dead =
            procs && pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists();
        if age >= ORPHAN_AGE || (dead && age >= DEAD_WRITER_AGE) {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                // Another run removed it first.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}

/// The process id in a temporary file's name `.NAME.PID.NONCE.tmp`, if `name` is one.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, nonce) = rest.rsplit_once('.')?;
    let (stem, pid) = rest.rsplit_once('.')?;
    let hex = nonce.len() == 16 && nonce.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && !stem.is_empty()).then(|| pid.parse().ok())?
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
    fn a_temporary_files_name_gives_its_process() {
        let temp = temp_path(Path::new("/d/unit.json"));
        let name = temp.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(temp_pid(&name), Some(std::process::id()));
        assert_eq!(temp_pid(".a.b.12.00000000000000ff.tmp"), Some(12));
        for other in [
            "unit.json",
            ".unit.json.12.tmp",
            ".unit.json.x.00000000000000ff.tmp",
            ".unit.json.12.00000000000000fg.tmp",
            "..12.00000000000000ff.tmp",
            ".unit.json.12.00000000000000ff.tmp.json",
        ] {
            assert_eq!(temp_pid(other), None, "{other}");
        }
    }

    #[test]
    fn orphans_are_removed_and_live_temporaries_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - ORPHAN_AGE - Duration::from_secs(5);
        let minute_old = SystemTime::now() - DEAD_WRITER_AGE - Duration::from_secs(5);
        let put = |name: &str, modified: SystemTime| {
            let path = dir.path().join(name);
            std::fs::write(&path, b"x").unwrap();
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(modified)
                .unwrap();
        };
        let me = std::process::id();
        // A process id no machine gives: the largest Linux allows is 2^22.
        let gone = 4_194_304 + 17;
        put(&format!(".a.json.{me}.00000000000000aa.tmp"), old);
        put(&format!(".b.json.{gone}.00000000000000bb.tmp"), minute_old);
        put(&format!(".c.json.{me}.00000000000000cc.tmp"), minute_old);
        put(
            &format!(".d.json.{gone}.00000000000000dd.tmp"),
            SystemTime::now(),
        );
        put("e.json", old);
        put(".e.json.tmp", old);
        let removed = remove_orphans(dir.path()).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let procs = Path::new("/proc/self").exists();
        // Hour-old: gone whoever wrote it. A minute old: gone if its writer is dead here.
        // Running (this process) or just written: kept. Other files: kept.
        let mut want = vec![format!(".c.json.{me}.00000000000000cc.tmp")];
        want.push(format!(".d.json.{gone}.00000000000000dd.tmp"));
        if !procs {
            want.push(format!(".b.json.{gone}.00000000000000bb.tmp"));
        }
        want.extend([".e.json.tmp".to_string(), "e.json".to_string()]);
        want.sort();
        assert_eq!(left, want);
        assert_eq!(removed, if procs { 2 } else { 1 });
        assert_eq!(remove_orphans(&dir.path().join("absent")).unwrap(), 0);
    }

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
