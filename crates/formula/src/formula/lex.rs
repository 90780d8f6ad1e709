//! The formula text's tokens (numbers, names, symbols) for the nom parser, and their
//! error type: where, and what was expected. Grammar files read their constants with the
//! same number syntax ([`parse_constant`]).

use nom::character::complete::multispace0;
use nom::combinator::opt;
use nom::error::{ErrorKind, ParseError as NomParseError};
use nom::{Err, IResult};

/// nom's error type here: where, and what was expected.
#[derive(Debug)]
pub(super) struct PErr<'a> {
    pub(super) at: &'a str,
    pub(super) expected: String,
}

impl<'a> PErr<'a> {
    pub(super) fn new(at: &'a str, expected: impl Into<String>) -> Self {
        PErr {
            at,
            expected: expected.into(),
        }
    }
}

impl<'a> NomParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, kind: ErrorKind) -> Self {
        PErr::new(input, format!("({kind:?})"))
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    /// Of two alternatives that both failed, keep the one that got further; at the same
    /// place, list both expectations.
    fn or(self, other: Self) -> Self {
        match self.at.len().cmp(&other.at.len()) {
            std::cmp::Ordering::Less => self,
            std::cmp::Ordering::Greater => other,
            std::cmp::Ordering::Equal if self.expected == other.expected => self,
            std::cmp::Ordering::Equal => PErr {
                at: self.at,
                expected: format!("{} or {}", other.expected, self.expected),
            },
        }
    }
}

pub(super) type Res<'a, T> = IResult<&'a str, T, PErr<'a>>;

pub(super) fn fail<T>(at: &str, expected: impl Into<String>) -> Res<'_, T> {
    Err(Err::Error(PErr::new(at, expected)))
}

pub(super) fn fatal<T>(at: &str, expected: impl Into<String>) -> Res<'_, T> {
    Err(Err::Failure(PErr::new(at, expected)))
}

/// Skips whitespace, then expects the character `c`.
pub(super) fn sym<'a>(c: char) -> impl FnMut(&'a str) -> Res<'a, char> {
    move |i: &'a str| {
        let (i, _) = multispace0(i)?;
        match i.strip_prefix(c) {
            Some(rest) => Ok((rest, c)),
            None => fail(i, format!("`{c}`")),
        }
    }
}

/// A run of decimal digits and underscores starting with a digit.
pub(super) fn digits(i: &str) -> Res<'_, &str> {
    let end = i
        .char_indices()
        .find(|&(k, c)| !(c.is_ascii_digit() || (k > 0 && c == '_')))
        .map_or(i.len(), |(k, _)| k);
    if end == 0 || !i.as_bytes()[0].is_ascii_digit() {
        fail(i, "a digit")
    } else {
        Ok((&i[end..], &i[..end]))
    }
}

/// A number in Rust float notation, as its text (without the `f64` suffix).
pub(super) fn number_text(i: &str) -> Res<'_, &str> {
    let start = i;
    let mantissa = |i| -> Res<'_, ()> {
        if let Ok((rest, _)) = digits(i) {
            let rest = match rest.strip_prefix('.') {
                Some(after) => opt(digits)(after)?.0,
                None => rest,
            };
            Ok((rest, ()))
        } else if let Some(after) = i.strip_prefix('.') {
            let (rest, _) = digits(after).map_err(|_| Err::Error(PErr::new(i, "a number")))?;
            Ok((rest, ()))
        } else {
            fail(i, "a number")
        }
    };
    let (i, ()) = mantissa(i)?;
    let exponent = |i: &str| -> Option<usize> {
        let rest = i.strip_prefix(['e', 'E'])?;
        let rest = rest.strip_prefix(['+', '-']).unwrap_or(rest);
        let (after, _) = digits(rest).ok()?;
        Some(i.len() - after.len())
    };
    let i = match exponent(i) {
        Some(len) => &i[len..],
        None => i,
    };
    let text = &start[..start.len() - i.len()];
    let i = i.strip_prefix("f64").unwrap_or(i);
    Ok((i, text))
}

/// The value of a number's text, or why it has none.
pub(super) fn number_value(text: &str) -> Result<f64, String> {
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    match cleaned.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("a finite number (`{text}` is out of range)")),
        Err(e) => Err(format!("a number (`{text}`: {e})")),
    }
}

pub(super) fn identifier(i: &str) -> Res<'_, &str> {
    let mut chars = i.char_indices();
    match chars.next() {
        Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return fail(i, "a name"),
    }
    let end = chars
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(i.len(), |(k, _)| k);
    Ok((&i[end..], &i[..end]))
}

/// Reads a grammar constant: `e`, or a number with an optional leading `-`.
pub(super) fn parse_constant(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let (negative, body) = match trimmed.strip_prefix('-') {
        Some(body) => (true, body.trim_start()),
        None => (false, trimmed),
    };
    let value = if body == "e" {
        std::f64::consts::E
    } else {
        match number_text(body) {
            Ok(("", text)) => number_value(text)?,
            _ => return Err("expected `e` or a number".into()),
        }
    };
    Ok(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_for_grammars() {
        assert_eq!(parse_constant("e"), Ok(std::f64::consts::E));
        assert_eq!(parse_constant("-0.5"), Ok(-0.5));
        assert!(parse_constant("x").is_err());
        assert!(parse_constant("1e400").is_err());
    }
}
