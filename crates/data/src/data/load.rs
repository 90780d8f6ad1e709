//! The one loading path: [`load`] reads a stored history, text or binary cache (told apart
//! by the cache's magic bytes; `-` is standard input), and resolves its unknown cycles.

use super::{cache, text, DataError, Dataset, UnknownPolicy, UnknownReport};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// How [`load`] reads a history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOptions {
    /// What to do with unknown cycles (default: the paper's policy,
    /// docs/src/reference/data.md#unknown-cycles).
    pub unknown: UnknownPolicy,
}

/// Which on-disk format a history was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The text format (docs/src/reference/data.md#the-text-format).
    Text,
    /// The binary cache of [`cache`].
    Binary,
}

/// What [`load`] did besides reading.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LoadReport {
    /// The format detected.
    pub format: Format,
    /// Pages in the file, before any was dropped.
    pub pages_read: usize,
    /// What the unknown-cycle policy did.
    pub unknown: UnknownReport,
}

/// A loaded history: the dataset with unknown cycles resolved, and the report.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The history, ready to simulate (no unknown cycle unless the policy keeps them).
    pub dataset: Dataset,
    /// What was read and what the unknown-cycle policy changed.
    pub report: LoadReport,
}

/// Reads a history as stored (unknown cycles kept as `?`), from text or from the binary
/// cache, detected by its magic bytes.
fn read_raw(path: &Path) -> Result<(Dataset, Format), DataError> {
    if path.as_os_str() == "-" {
        // Standard input, read whole (the binary format checks its length).
        let name = "<stdin>";
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
            .map_err(|e| DataError::io(name, &e))?;
        let len = bytes.len() as u64;
        return read_from(std::io::Cursor::new(bytes), name, len);
    }
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| DataError::io(&name, &e))?;
    let len = file.metadata().map_err(|e| DataError::io(&name, &e))?.len();
    read_from(BufReader::with_capacity(1 << 20, file), &name, len)
}

/// Reads a text or binary history (told apart by the binary format's magic bytes).
fn read_from<R: BufRead>(
    mut reader: R,
    name: &str,
    len: u64,
) -> Result<(Dataset, Format), DataError> {
    let head = reader.fill_buf().map_err(|e| DataError::io(name, &e))?;
    if head.starts_with(&cache::MAGIC) {
        Ok((cache::read(&mut reader, name, len)?, Format::Binary))
    } else {
        Ok((text::read(reader, name)?, Format::Text))
    }
}

/// Reads a history (text or binary cache; `-` reads standard input) and resolves its
/// unknown cycles by `options.unknown`. This is the one loading path the rest of freshgp
/// uses.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Loaded, DataError> {
    let (raw, format) = read_raw(path)?;
    let pages_read = raw.pages();
    let (dataset, unknown) = options
        .unknown
        .apply_keeping_pages(raw, &path.display().to_string())?;
    Ok(Loaded {
        dataset,
        report: LoadReport {
            format,
            pages_read,
            unknown,
        },
    })
}
