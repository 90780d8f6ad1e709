//! An input file as lines or bytes: gzip'd or not (told by its first two bytes, whatever
//! its name), many gzip members one after another as archives write them, and the read
//! errors named by file and place.

use crate::data::DataError;
use flate2::bufread::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// An open input: its name for errors and its bytes, decompressed.
pub struct Input {
    /// How errors name it (the path as given, or `<stdin>`).
    pub name: String,
    /// Whether it is gzip'd.
    pub gzip: bool,
    /// The bytes, decompressed.
    pub reader: Box<dyn BufRead + Send>,
}

/// Read-ahead of the file and of the decompressed stream (an input holds two, and a merge
/// of many files one input a file).
const BUFFER: usize = 1 << 18;

impl Input {
    /// Opens `path` (`-`: standard input).
    pub fn open(path: &Path) -> Result<Input, DataError> {
        if path.as_os_str() == "-" {
            return Input::from_reader(
                "<stdin>",
                BufReader::with_capacity(BUFFER, std::io::stdin()),
            );
        }
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| DataError::Io {
            file: name.clone(),
            reason: format!("cannot open: {e}"),
        })?;
        Input::from_reader(&name, BufReader::with_capacity(BUFFER, file))
    }

    /// Reads `reader`, named `name` in errors, decompressing it when it starts as gzip does.
    pub fn from_reader<R: BufRead + Send + 'static>(
        name: &str,
        mut reader: R,
    ) -> Result<Input, DataError> {
        let head = reader.fill_buf().map_err(|e| DataError::Io {
            file: name.to_string(),
            reason: e.to_string(),
        })?;
        let gzip = head.starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn BufRead + Send> = if gzip {
            Box::new(BufReader::with_capacity(
                BUFFER,
                MultiGzDecoder::new(reader),
            ))
        } else {
            Box::new(reader)
        };
        Ok(Input {
            name: name.to_string(),
            gzip,
            reader,
        })
    }

    /// Why reading failed, at line `line` (0: before the first), in words a user can act on.
    pub fn read_error(&self, line: usize, e: &std::io::Error) -> DataError {
        let reason = match e.kind() {
            std::io::ErrorKind::UnexpectedEof if self.gzip => {
                "the gzip stream ends inside a member (a truncated file?)".to_string()
            }
            std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData if self.gzip => {
                format!("corrupt gzip data ({e})")
            }
            _ => e.to_string(),
        };
        DataError::Malformed {
            file: self.name.clone(),
            line: line.max(1),
            column: 1,
            reason,
        }
    }
}

/// One line of an input, without its end, with its place.
pub struct Line<'a> {
    /// The line's bytes.
    pub text: &'a [u8],
    /// Its 1-based number.
    pub number: usize,
    /// The input's name.
    pub file: &'a str,
}

impl Line<'_> {
    /// The line as text, or `(column, reason)` where it stops being UTF-8.
    pub fn text(&self) -> Result<&str, (usize, String)> {
        std::str::from_utf8(self.text).map_err(|e| {
            let valid = String::from_utf8_lossy(&self.text[..e.valid_up_to()]);
            (valid.chars().count() + 1, "not UTF-8".to_string())
        })
    }

    /// The error of this line at 1-based `column`.
    pub fn error(&self, column: usize, reason: String) -> DataError {
        DataError::Malformed {
            file: self.file.to_string(),
            line: self.number,
            column,
            reason,
        }
    }
}

/// The 1-based column (in characters) of byte `at` of `line` (at most one past its end).
pub fn column_of(line: &str, at: usize) -> usize {
    let mut at = at.min(line.len());
    while !line.is_char_boundary(at) {
        at -= 1;
    }
    line[..at].chars().count() + 1
}

/// Lines of an input, one buffer reused: `next` gives the line without its end (`\n` or
/// `\r\n`), `None` at the end.
pub struct Lines {
    /// The input.
    pub input: Input,
    /// Lines read so far (the current line's number).
    pub line: usize,
    buf: Vec<u8>,
}

impl Lines {
    /// The lines of `input`.
    pub fn new(input: Input) -> Lines {
        Lines {
            input,
            line: 0,
            buf: Vec::with_capacity(1024),
        }
    }

    /// The next line, without its end.
    #[allow(clippy::should_implement_trait)] // lends its buffer: not an Iterator
    pub fn next(&mut self) -> Option<Result<Line<'_>, DataError>> {
        self.buf.clear();
        match self.input.reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                self.line += 1;
                let line = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
                Some(Ok(Line {
                    text: line.strip_suffix(b"\r").unwrap_or(line),
                    number: self.line,
                    file: &self.input.name,
                }))
            }
            Err(e) => Some(Err(self.input.read_error(self.line + 1, &e))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn lines(bytes: Vec<u8>) -> Result<Vec<String>, DataError> {
        let input = Input::from_reader("t.gz", std::io::Cursor::new(bytes))?;
        let mut lines = Lines::new(input);
        let mut out = Vec::new();
        while let Some(line) = lines.next() {
            out.push(String::from_utf8(line?.text.to_vec()).unwrap());
        }
        Ok(out)
    }

    #[test]
    fn members_follow_one_another_and_plain_text_reads_as_is() {
        let mut two = gzip(b"a\r\nb\n");
        two.extend(gzip(b"c"));
        assert_eq!(lines(two).unwrap(), ["a", "b", "c"]);
        assert_eq!(lines(b"x\ny".to_vec()).unwrap(), ["x", "y"]);
        assert!(lines(Vec::new()).unwrap().is_empty());
    }

    #[test]
    fn a_truncated_member_is_an_error_at_its_line() {
        let mut two = gzip(b"a\nb\n");
        let second = gzip(b"c\nd\ne\n");
        // Without its trailer the data is whole, and the end is missing after the last line.
        let mut cut = two.clone();
        cut.extend(&second[..second.len() - 6]);
        let e = lines(cut).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.gz:6:1: the gzip stream ends inside a member (a truncated file?)"
        );
        // Cut inside the compressed data: the lines before it stay read, the error is later.
        two.extend(&second[..12]);
        let e = lines(two).unwrap_err();
        assert!(matches!(e, DataError::Malformed { line: 3.., .. }), "{e}");
        assert!(
            e.to_string()
                .contains("the gzip stream ends inside a member"),
            "{e}"
        );
    }
}
