//! WARC records, one at a time, streaming (the WARC 1.1 format, ISO 28500): a version line
//! (`WARC/1.0`, `WARC/1.1`), named fields up to an empty line (a line starting with a space
//! or tab continues the field before it), a block of `Content-Length` bytes, and the two
//! line ends that close the record.
//!
//! Written here rather than taken from the `warc` crate (0.4), which fits neither the
//! readers' errors nor their input: a field value that is not UTF-8 panics inside the
//! crate (a fuzzer found it at once), a file cut inside a record's header reads as a clean
//! end, and its errors carry no offset.

use std::io::{BufRead, Read};

/// The most bytes of a record's header block.
const MAX_HEADER: usize = 1 << 20;

/// Why the next record cannot be read, at the byte offset of the record (or, for a
/// record that does not end where it says, of that record).
#[derive(Debug)]
pub(crate) struct RecordError {
    /// Offset of the record the error is about.
    pub offset: u64,
    /// What is wrong.
    pub reason: String,
}

/// A record's header: its fields (names lower-cased); its block is read from the
/// [`Records`] that gave it.
#[derive(Debug)]
pub(crate) struct Header {
    /// The record's offset in the stream.
    pub offset: u64,
    /// `(name in lower case, value)`, in order.
    pub fields: Vec<(String, String)>,
}

impl Header {
    /// The value of the field `name` (lower case), if the record has it.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The records of a stream.
pub(crate) struct Records<R> {
    reader: R,
    /// Bytes consumed so far.
    offset: u64,
    /// The current record's offset, its block's length and how much of it is left.
    current: Option<(u64, u64, u64)>,
    line: Vec<u8>,
}

impl<R: BufRead> Records<R> {
    /// The records of `reader`.
    pub fn new(reader: R) -> Records<R> {
        Records {
            reader,
            offset: 0,
            current: None,
            line: Vec::new(),
        }
    }

    /// The next record's header (`None` at the end of the stream); what is left of the
    /// previous record's block is skipped, and its end checked.
    pub fn next_header(&mut self) -> Result<Option<Header>, RecordError> {
        self.finish_record()?;
        let offset = self.offset;
        let error = |reason: String| RecordError { offset, reason };
        // The version line, after any blank lines a writer left between records.
        loop {
            match self.read_line(offset)? {
                0 => return Ok(None),
                _ if trimmed(&self.line).is_empty() => continue,
                _ => break,
            }
        }
        if !trimmed(&self.line).starts_with(b"WARC/") {
            return Err(error(format!(
                "not a WARC record: it starts with `{}`",
                String::from_utf8_lossy(&self.line[..self.line.len().min(40)]).escape_debug()
            )));
        }
        let start = self.offset;
        let mut fields: Vec<(String, String)> = Vec::new();
        loop {
            if self.read_line(offset)? == 0 {
                return Err(error(
                    "the file ends inside the record's header (a truncated file?)".into(),
                ));
            }
            if self.offset - start > MAX_HEADER as u64 {
                return Err(error(format!("a header of more than {MAX_HEADER} bytes")));
            }
            let line = trimmed(&self.line);
            if line.is_empty() {
                break;
            }
            let text = std::str::from_utf8(line).map_err(|_| {
                error(format!(
                    "header line `{}` is not UTF-8",
                    String::from_utf8_lossy(line).escape_debug()
                ))
            })?;
            if text.starts_with([' ', '\t']) {
                let (_, value) = fields
                    .last_mut()
                    .ok_or_else(|| error("the header starts with a continuation line".into()))?;
                value.push(' ');
                value.push_str(text.trim());
                continue;
            }
            let (name, value) = text.split_once(':').ok_or_else(|| {
                error(format!("header line `{}` has no `:`", text.escape_debug()))
            })?;
            fields.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
        let header = Header { offset, fields };
        let length = header
            .field("content-length")
            .ok_or_else(|| error("the record has no Content-Length".into()))?;
        let length = length
            .parse::<u64>()
            .map_err(|_| error(format!("Content-Length `{length}` is not a length")))?;
        self.current = Some((offset, length, length));
        Ok(Some(header))
    }

    /// Reads one line into `self.line` (with its end); 0 at the end of the stream.
    fn read_line(&mut self, offset: u64) -> Result<usize, RecordError> {
        self.line.clear();
        let n = (&mut self.reader)
            .take(MAX_HEADER as u64 + 1)
            .read_until(b'\n', &mut self.line)
            .map_err(|e| read_error(offset, &e))?;
        self.offset += n as u64;
        Ok(n)
    }

    /// Skips what is left of the current record's block and checks the two line ends
    /// after it.
    pub fn finish_record(&mut self) -> Result<(), RecordError> {
        let Some((offset, length, left)) = self.current.take() else {
            return Ok(());
        };
        let lied = || {
            RecordError {
            offset,
            reason: format!(
                "the record does not end where its Content-Length ({length} bytes) says: its length is wrong, or the file is cut short"
            ),
        }
        };
        let skipped = std::io::copy(&mut (&mut self.reader).take(left), &mut std::io::sink())
            .map_err(|e| read_error(offset, &e))?;
        self.offset += skipped;
        if skipped < left {
            return Err(lied());
        }
        let mut end = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.reader.read(&mut end[got..]) {
                Ok(0) => return Err(lied()),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(read_error(offset, &e)),
            }
        }
        self.offset += 4;
        if &end != b"\r\n\r\n" {
            return Err(lied());
        }
        Ok(())
    }
}

impl<R: BufRead> Read for Records<R> {
    /// Reads the current record's block (nothing past its end).
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let Some((_, _, left)) = &mut self.current else {
            return Ok(0);
        };
        let want = out.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
        let n = self.reader.read(&mut out[..want])?;
        if n == 0 && want > 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the block ends before its Content-Length",
            ));
        }
        *left -= n as u64;
        self.offset += n as u64;
        Ok(n)
    }
}

/// A line without its end (`\n` or `\r\n`).
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A read that failed under the record at `offset` (a gzip stream cut short, say).
fn read_error(offset: u64, e: &std::io::Error) -> RecordError {
    RecordError {
        offset,
        reason: match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                "the gzip stream ends inside a member (a truncated file?)".into()
            }
            _ => format!("cannot read: {e}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fields: &str, block: &str) -> String {
        format!(
            "WARC/1.1\r\n{fields}Content-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    }

    #[test]
    fn fields_blocks_and_offsets() {
        let first = record(
            "WARC-Type: response\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nX-Long: a\r\n  b\r\n",
            "hello",
        );
        let text = first.clone() + "\r\n" + &record("warc-type: request\r\n", "");
        let mut records = Records::new(text.as_bytes());
        let h = records.next_header().unwrap().unwrap();
        assert_eq!(h.offset, 0);
        assert_eq!(h.field("warc-type"), Some("response"));
        assert_eq!(h.field("x-long"), Some("a b"));
        let mut block = String::new();
        records.read_to_string(&mut block).unwrap();
        assert_eq!(block, "hello");
        let h = records.next_header().unwrap().unwrap();
        assert_eq!(
            (h.offset, h.field("warc-type")),
            (first.len() as u64, Some("request"))
        );
        assert!(records.next_header().unwrap().is_none());
    }

    #[test]
    fn each_malformation_is_an_error_at_its_record() {
        let good = record("WARC-Type: response\r\n", "hello");
        let at = good.len() as u64;
        for (text, offset, reason) in [
            (
                good.clone() + "WARC/1.0\r\nWARC-Type: x\r\n",
                at,
                "the file ends inside the record's header",
            ),
            (
                good.replace("Length: 5", "Length: 9"),
                0,
                "does not end where its Content-Length (9 bytes) says",
            ),
            (
                good.replace("Length: 5", "Length: 2"),
                0,
                "does not end where its Content-Length (2 bytes) says",
            ),
            (
                good.replace("Length: 5", "Length: five"),
                0,
                "Content-Length `five` is not a length",
            ),
            (
                good.replace("Content-Length: 5\r\n", ""),
                0,
                "the record has no Content-Length",
            ),
            (
                good.replace("WARC-Type:", "WARC-Type"),
                0,
                "header line `WARC-Type response` has no `:`",
            ),
            (
                good.clone() + "HTTP/1.1 200 OK\r\n",
                at,
                "not a WARC record: it starts with `HTTP/1.1 200 OK",
            ),
            (
                good.replace("WARC-Type: response\r\n", " x\r\n"),
                0,
                "starts with a continuation line",
            ),
        ] {
            let mut records = Records::new(text.as_bytes());
            let e = loop {
                match records.next_header() {
                    Err(e) => break e,
                    Ok(Some(_)) => {}
                    Ok(None) => panic!("no error in {text:?}"),
                }
            };
            assert_eq!(e.offset, offset, "{text:?}: {}", e.reason);
            assert!(e.reason.contains(reason), "{}", e.reason);
        }
        let bad = [b"WARC/1.0\r\nWARC-Type: \xff\r\n\r\n".as_slice()].concat();
        let e = Records::new(&bad[..]).next_header().unwrap_err();
        assert!(e.reason.contains("is not UTF-8"), "{}", e.reason);
    }
}
