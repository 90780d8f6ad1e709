//! Why a feature name or a model file cannot be used.

/// Why a feature name or a model file cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A feature name that is none of `freqW`, `since_change`, `group:KEY`, `cat:KEY`.
    #[error("{0}")]
    Feature(String),
    /// A model file that cannot be used: not JSON, not a freshgp model, another version,
    /// or parameters that break the model's invariant.
    #[error("{0}")]
    File(String),
}
