//! Why a dataset could not be built, read or written ([`DataError`]): every loader's
//! errors name the file, line, column and reason; and [`write_atomically`], the one way a
//! history is written, naming the file in its errors.

/// Why a dataset could not be built or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    /// A malformed line or field, with its place.
    #[error("{file}:{line}:{column}: {reason}")]
    Malformed {
        /// The file (or other origin).
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// A malformed record of a binary or record-structured file (a WARC record), at its
    /// byte offset.
    #[error("{file}: byte {offset}: {reason}")]
    Record {
        /// The file (or other origin).
        file: String,
        /// Byte offset of the record (in the decompressed stream, for a gzip'd file).
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The input holds no page.
    #[error("{file}: no pages (the file is empty or holds only comments)")]
    Empty {
        /// The file (or other origin).
        file: String,
    },
    /// The file could not be opened, read or written.
    #[error("{file}: {reason}")]
    Io {
        /// The file.
        file: String,
        /// The operating system's message.
        reason: String,
    },
    /// A binary cache that is truncated, corrupt, foreign or of another version.
    #[error("{file}: not a usable freshgp binary cache: {reason}")]
    Cache {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A value that cannot be stored or generated (e.g. an id holding a TAB, a bad preset).
    #[error("{what}: {reason}")]
    Invalid {
        /// What was being checked (a field, a page, a preset).
        what: String,
        /// What is wrong.
        reason: String,
    },
}

impl DataError {
    pub(crate) fn io(file: &str, err: &std::io::Error) -> DataError {
        DataError::Io {
            file: file.to_string(),
            reason: err.to_string(),
        }
    }
}

/// Writes the file at `path` atomically ([`crate::atomic`]) with `write`, naming `path` in
/// I/O errors: a failed or interrupted write leaves an existing file as it was.
pub(crate) fn write_atomically(
    path: &std::path::Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), DataError>,
) -> Result<(), DataError> {
    let name = path.display().to_string();
    // `write` reports its failures as `DataError`s; keep the first to return it.
    let mut failure = None;
    let written = crate::atomic::write_with(path, |out| {
        write(out).map_err(|e| {
            let reason = e.to_string();
            failure = Some(e);
            std::io::Error::other(reason)
        })
    });
    match (written, failure) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(DataError::Io { reason, .. })) => Err(DataError::Io { file: name, reason }),
        (Err(_), Some(other)) => Err(other),
        (Err(e), None) => Err(DataError::io(&name, &e)),
    }
}
