//! Policy files (`file("..")`: the first policy line of a file, e.g. a formula an
//! evolution printed) and model files (`model:FILE`, `[model FILE]`), relative to the
//! directory of the study file being read, if any, else to the working directory.

use super::{ModelUseError, Policy, PolicyError, Predictor};

std::thread_local! {
    /// The directory `file("..")` paths are relative to while a study file is read.
    static POLICY_FILES_DIR: std::cell::RefCell<Option<std::path::PathBuf>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `read` with `file("..")` policies resolved against `dir` (a study file's
/// directory, as its other relative paths are); elsewhere they are relative to the
/// working directory.
pub fn with_policy_files_in<T>(dir: &std::path::Path, read: impl FnOnce() -> T) -> T {
    let before = POLICY_FILES_DIR.with(|d| d.replace(Some(dir.to_path_buf())));
    let result = read();
    POLICY_FILES_DIR.with(|d| *d.borrow_mut() = before);
    result
}

/// `path` resolved against the study file being read, if any.
pub(crate) fn relative_to_study(path: &str) -> std::path::PathBuf {
    POLICY_FILES_DIR.with(|d| match &*d.borrow() {
        Some(dir) => dir.join(path),
        None => std::path::PathBuf::from(path),
    })
}

/// The policy text of a policy file: its first line that is not blank or a comment (`#`,
/// `//`), e.g. a formula an evolution printed.
pub(crate) fn read_policy_file(path: &str) -> Result<String, String> {
    let full = relative_to_study(path);
    let text = std::fs::read_to_string(&full)
        .map_err(|e| format!("cannot read policy file {}: {e}", full.display()))?;
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
        .map(str::to_string)
        .ok_or_else(|| format!("policy file {} holds no policy", full.display()))
}

impl Policy {
    /// The learned model at `path` (relative to a study file's directory while one is
    /// read, and then named by its absolute path), as `model:PATH` and `[model PATH]`
    /// name it.
    ///
    /// # Errors
    /// [`PolicyError::Model`]: an unreadable file, not a model file, or a model the
    /// simulation cannot compute (see [`Predictor`]).
    pub fn load_model(path: &str) -> Result<Predictor, PolicyError> {
        let path = path.trim();
        if path.is_empty() {
            return Err(PolicyError::Model(ModelUseError::NoPath));
        }
        let full = relative_to_study(path);
        // A path relative to a study file is named by its absolute form: the study's
        // stored copy (results/<name>/study.json) is read from another directory.
        let in_study = POLICY_FILES_DIR.with(|d| d.borrow().is_some());
        let shown = match std::fs::canonicalize(&full) {
            Ok(absolute) if in_study && std::path::Path::new(path).is_relative() => {
                absolute.to_string_lossy().into_owned()
            }
            _ => path.to_string(),
        };
        Ok(Predictor::load(&full, &shown)?)
    }
}
