//! Where in a user's text an error is: the line and column a RON reader reports, kept
//! inside the text.
//!
//! The RON parser sometimes reports a column past the end of its line (after reading a
//! long number, say); a place that points outside the text helps no one, so every reader of
//! RON (experiment files, grammars, presets, GP settings) reports its errors through
//! [`ron_place`].
//!
//! **Invariant:** the place is a line of the text (1 to the number of lines) and a column
//! from 1 to one past that line's last character.
//!
//! ```
//! use freshgp::place::ron_place;
//! let text = "(\n  runs: 033333333333\n)";
//! let e = ron::from_str::<ron::Value>("(\n  runs: x").unwrap_err();
//! let (line, column) = ron_place(text, e.position);
//! assert!(line <= 3 && column <= 22);
//! ```

/// The line and column (both from 1) of `position` in `text`, moved inside the text.
pub fn ron_place(text: &str, position: ron::error::Position) -> (usize, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = position.line.clamp(1, lines.len());
    let width = lines[line - 1].chars().count();
    (line, position.col.clamp(1, width + 1))
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
}
