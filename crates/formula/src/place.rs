//! Where in a user's text an error is: the line and column a RON reader reports, kept
//! inside the text.
//!
//! The RON parser counts columns in bytes and sometimes reports one past the end of its
//! line (after reading a long number, say); serde_json counts bytes too. freshgp's own
//! readers count columns in characters, so every reader of RON (experiment files,
//! grammars, presets, GP settings) and of JSON (model files) reports its errors through
//! [`ron_place`] or [`byte_place`].
//!
//! **Invariant:** the place is a line of the text (1 to the number of lines) and a column
//! from 1 to one past that line's last character.
//!
//! ```
//! use freshgp_formula::place::ron_place;
//! let text = "(\n  runs: 033333333333\n)";
//! let e = ron::from_str::<ron::Value>("(\n  runs: x").unwrap_err();
//! let (line, column) = ron_place(text, e.position);
//! assert!(line <= 3 && column <= 22);
//! ```

/// The line and column (both from 1, the column in characters) of `position` in `text`,
/// moved inside the text. RON counts the column in bytes.
pub fn ron_place(text: &str, position: ron::error::Position) -> (usize, usize) {
    byte_place(text, position.line, position.col)
}

/// Why a RON file of settings cannot be read: the one error of [`read_ron`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RonFileError {
    /// The file cannot be read.
    #[error("cannot read {file}: {reason}")]
    Io {
        /// The file.
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// The text is not a record of the expected shape.
    #[error("{file}:{line}:{column}: {reason}")]
    Syntax {
        /// The file.
        file: String,
        /// The line of the mistake (1-based).
        line: usize,
        /// Its column (1-based, in characters).
        column: usize,
        /// What is wrong.
        reason: String,
    },
}

/// The record of type `T` a RON file holds, or where and why it does not.
///
/// # Errors
/// [`RonFileError`]: the file cannot be read, or its text is not such a record (the line
/// and column of the mistake, [`ron_place`]).
pub fn read_ron<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> Result<T, RonFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| RonFileError::Io {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    ron::from_str::<T>(&text).map_err(|e| {
        let (line, column) = ron_place(&text, e.position);
        RonFileError::Syntax {
            file,
            line,
            column,
            reason: e.code.to_string(),
        }
    })
}

/// The line and character column (both counted from 1) of line `line`, byte column
/// `byte` (counted from 1) in `text`, moved inside the text: a byte inside a character
/// counts as that character, a byte past the line's end as one past its last character.
///
/// ```
/// assert_eq!(freshgp_formula::place::byte_place("é = x", 1, 6), (1, 5));
/// ```
pub fn byte_place(text: &str, line: usize, byte: usize) -> (usize, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = line.clamp(1, lines.len());
    let content = lines[line - 1];
    let mut end = byte.saturating_sub(1).min(content.len());
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    (line, content[..end].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ron::error::Position;

    #[test]
    fn places_stay_inside_the_text() {
        let text = "ab\ncdef\n";
        let at = |line, col| ron_place(text, Position { line, col });
        assert_eq!(at(2, 3), (2, 3));
        assert_eq!(at(2, 99), (2, 5));
        assert_eq!(at(0, 0), (1, 1));
        assert_eq!(at(9, 9), (3, 1));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // `é` is two bytes: RON's byte column 30 is character 24 of this line.
        let text = "(name: \"éééééé\", runs: @)";
        let e = ron::from_str::<ron::Value>(text).unwrap_err();
        let (line, column) = ron_place(text, e.position);
        assert_eq!(text.chars().nth(column - 1), Some('@'), "{:?}", e.position);
        assert_eq!((line, column), (1, 24));
        assert_eq!(byte_place("aé", 1, 3), (1, 2));
    }
}
