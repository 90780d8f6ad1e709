//! The text format (docs/src/reference/data.md#the-text-format): one page per line,
//! `BITS [TAB page_id [TAB host [TAB key=value ...]]]`.
//!
//! Reading streams line by line (one reused buffer), so memory is the packed dataset plus
//! the ids, never the whole file. It is strict: every malformed line is an error naming
//! file, line, column (in characters, 1-based) and reason; nothing is silently fixed.
//!
//! - BITS: characters `0`, `1`, `?`, one per cycle; every page has the length of the first.
//! - Lines starting with `#` and blank lines are ignored; a trailing `\r` (CRLF files) is
//!   part of the line ending, not of the data.
//! - `page_id` and `host` may be empty. The dataset has ids (hosts) when at least one line
//!   has a non-empty id (host); pages without one get the empty string.
//! - Attributes: `weight=<f64>` (finite, >= 0; default 1); `latent_change=<f64>` (a
//!   probability in [0, 1], on every page or none: a synthetic history's latent change
//!   probabilities, docs/src/reference/data.md#latent-change-probabilities); any other
//!   `key=value` is a categorical attribute (docs/src/reference/data.md#attributes, [`super::attributes`]).
//!   A bad key (`host` is reserved), an empty value, a missing `=`, a repeated key or an
//!   empty attribute field is an error.
//!
//! ```
//! use freshgp_data::data::text;
//!
//! let d = text::read("01?\tpage-a\thost-1\n# comment\n110\tpage-b\thost-1\tweight=2\n".as_bytes(), "<mem>").unwrap();
//! assert_eq!((d.pages(), d.cycles()), (2, 3));
//! assert_eq!(d.weight(1), 2.0);
//! let mut out = Vec::new();
//! text::write(&d, &mut out).unwrap();
//! assert_eq!(String::from_utf8(out).unwrap(), "01?\tpage-a\thost-1\tweight=1\n110\tpage-b\thost-1\tweight=2\n");
//! ```

use super::attributes::AttributesBuilder;
use super::{DataError, Dataset};
use std::collections::HashMap;
use std::io::{BufRead, Write};

/// Reads a history in the text format from `reader`; `file` names it in errors.
pub fn read<R: BufRead>(mut reader: R, file: &str) -> Result<Dataset, DataError> {
    let mut parser = Parser::new(file);
    let mut buf = Vec::with_capacity(256);
    let mut line_no = 0usize;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| DataError::io(file, &e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let mut line = &buf[..];
        if let Some(rest) = line.strip_suffix(b"\n") {
            line = rest;
        }
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        parser.line(line_no, line)?;
    }
    parser.finish()
}

/// Reads a history from a file in the text format (see [`super::load`] for the usual entry).
pub fn read_file(path: &std::path::Path) -> Result<Dataset, DataError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| DataError::io(&name, &e))?;
    read(std::io::BufReader::with_capacity(1 << 20, f), &name)
}

/// Writes `d` in the text format. Columns are written up to the last one the dataset has
/// (ids, hosts, then weights and attributes); missing ones are left empty. Unknown cycles are written `?`.
///
/// Errors if an id or host name holds a TAB, CR or LF (it could not be read back), or on I/O.
pub fn write<W: Write>(d: &Dataset, out: W) -> Result<(), DataError> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    let io = |e: std::io::Error| DataError::io("<output>", &e);
    let check = |what: &str, p: usize, s: &str| {
        if s.contains(super::attributes::LINE_BREAKS) {
            Err(DataError::Invalid {
                what: format!("page {} {what}", p + 1),
                reason: format!("`{}` holds a TAB or line break", s.escape_debug()),
            })
        } else {
            Ok(())
        }
    };
    for name in d.host_names() {
        check("host", 0, name)?;
    }
    let columns = if d.has_weights() || d.has_latent() || !d.attributes().is_empty() {
        4
    } else if d.has_hosts() {
        3
    } else if d.has_ids() {
        2
    } else {
        1
    };
    let mut line = Vec::with_capacity(d.cycles() + 64);
    for p in 0..d.pages() {
        line.clear();
        d.push_bits(p, &mut line);
        if columns >= 2 {
            let id = d.id(p).unwrap_or("");
            check("id", p, id)?;
            line.push(b'\t');
            line.extend_from_slice(id.as_bytes());
        }
        if columns >= 3 {
            line.push(b'\t');
            if let Some(h) = d.host(p) {
                line.extend_from_slice(d.host_names()[h as usize].as_bytes());
            }
        }
        if d.has_weights() {
            write!(line, "\tweight={}", d.weight(p)).map_err(io)?;
        }
        if let Some(q) = d.latent(p) {
            write!(line, "\t{LATENT_KEY}={q}").map_err(io)?;
        }
        for a in d.attributes().iter() {
            if let Some(value) = a.value(p) {
                check(a.name(), p, value)?;
                write!(line, "\t{}={value}", a.name()).map_err(io)?;
            }
        }
        line.push(b'\n');
        out.write_all(&line).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Writes `d` to a new file at `path` in the text format.
pub fn write_file(d: &Dataset, path: &std::path::Path) -> Result<(), DataError> {
    super::write_atomically(path, |out| write(d, out))
}

/// Incremental parser state: packed rows and columns seen so far.
struct Parser<'a> {
    file: &'a str,
    cycles: usize,
    words: usize,
    first_line: usize,
    pages: usize,
    bits: Vec<u64>,
    unknown: Vec<u64>,
    id_text: String,
    id_ends: Vec<usize>,
    any_id: bool,
    hosts: Vec<u32>,
    host_index: HashMap<String, u32>,
    host_names: Vec<String>,
    any_host: bool,
    weights: Vec<f64>,
    any_weight: bool,
    /// Each page's latent change probability (NaN where its line gives none).
    latent: Vec<f64>,
    /// The first line with a latent probability and the first without one, if any.
    latent_lines: (Option<usize>, Option<usize>),
    attributes: AttributesBuilder,
}

/// The attribute key of a page's latent change probability
/// (docs/src/reference/data.md#latent-change-probabilities).
pub const LATENT_KEY: &str = "latent_change";

/// A page's special (non-categorical) attributes as one line gives them.
#[derive(Default)]
struct Special {
    weight: Option<f64>,
    latent: Option<f64>,
}

impl<'a> Parser<'a> {
    fn new(file: &'a str) -> Parser<'a> {
        Parser {
            file,
            cycles: 0,
            words: 0,
            first_line: 0,
            pages: 0,
            bits: Vec::new(),
            unknown: Vec::new(),
            id_text: String::new(),
            id_ends: Vec::new(),
            any_id: false,
            hosts: Vec::new(),
            host_index: HashMap::new(),
            host_names: Vec::new(),
            any_host: false,
            weights: Vec::new(),
            any_weight: false,
            latent: Vec::new(),
            latent_lines: (None, None),
            attributes: AttributesBuilder::default(),
        }
    }

    fn err(&self, line: usize, column: usize, reason: impl Into<String>) -> DataError {
        DataError::Malformed {
            file: self.file.to_string(),
            line,
            column,
            reason: reason.into(),
        }
    }

    /// Reads line `no`: `BITS [TAB id [TAB host [TAB key=value]...]]`, or a comment or
    /// blank line.
    fn line(&mut self, no: usize, bytes: &[u8]) -> Result<(), DataError> {
        let line = self.utf8(no, bytes)?;
        if line.starts_with('#') || line.trim().is_empty() {
            return Ok(());
        }
        if let Some(at) = line.find('\r') {
            // Only a line's last CR is dropped (read above); one inside would end up in an
            // id, host or value that no writer could write back.
            let column = line[..at].chars().count() + 1;
            return Err(self.err(no, column, "a carriage return inside the line"));
        }
        let mut fields = line.split('\t');
        let bits = fields.next().unwrap_or("");
        self.bits_field(no, bits)?;
        let mut column = bits.chars().count() + 2;
        if let Some(id) = fields.next() {
            self.any_id |= !id.is_empty();
            self.id_text.push_str(id);
            column += id.chars().count() + 1;
        }
        self.id_ends.push(self.id_text.len());
        let host = fields.next().unwrap_or("");
        self.host_field(no, column, host)?;
        column += host.chars().count() + 1;
        let mut special = Special::default();
        for attr in fields {
            self.attribute(no, column, attr, &mut special)?;
            column += attr.chars().count() + 1;
        }
        self.any_weight |= special.weight.is_some();
        self.weights.push(special.weight.unwrap_or(1.0));
        let lines = &mut self.latent_lines;
        match special.latent {
            Some(_) => lines.0 = lines.0.or(Some(no)),
            None => lines.1 = lines.1.or(Some(no)),
        }
        self.latent.push(special.latent.unwrap_or(f64::NAN));
        self.attributes.end_page();
        self.pages += 1;
        Ok(())
    }

    /// The line as text, or an error at its first byte that is not UTF-8.
    fn utf8<'b>(&self, no: usize, bytes: &'b [u8]) -> Result<&'b str, DataError> {
        std::str::from_utf8(bytes).map_err(|e| {
            let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or("");
            self.err(
                no,
                valid.chars().count() + 1,
                format!(
                    "not UTF-8 (byte 0x{:02x} at byte offset {})",
                    bytes[e.valid_up_to()],
                    e.valid_up_to()
                ),
            )
        })
    }

    /// Records the page's host (interned; empty: none).
    fn host_field(&mut self, no: usize, column: usize, host: &str) -> Result<(), DataError> {
        self.any_host |= !host.is_empty();
        let h = match self.host_index.get(host) {
            Some(&h) => h,
            None => {
                let h = u32::try_from(self.host_names.len())
                    .map_err(|_| self.err(no, column, "more than 2^32 hosts"))?;
                self.host_index.insert(host.to_string(), h);
                self.host_names.push(host.to_string());
                h
            }
        };
        self.hosts.push(h);
        Ok(())
    }

    /// Reads one `key=value` attribute at `column`: the weight, the latent change
    /// probability, or a categorical one.
    fn attribute(
        &mut self,
        no: usize,
        column: usize,
        attr: &str,
        special: &mut Special,
    ) -> Result<(), DataError> {
        let Some((key, value)) = attr.split_once('=') else {
            return Err(self.err(
                no,
                column,
                if attr.is_empty() {
                    "bad attribute: empty field (expected key=value)".to_string()
                } else {
                    format!(
                        "bad attribute `{}`: expected key=value",
                        attr.escape_debug()
                    )
                },
            ));
        };
        if key == LATENT_KEY {
            return self.latent_attribute(no, column, value, special);
        }
        if key != "weight" {
            return self
                .attributes
                .set(key, value)
                .map_err(|reason| self.err(no, column, reason));
        }
        let weight = &mut special.weight;
        if weight.is_some() {
            return Err(self.err(no, column, "bad attribute: weight given twice"));
        }
        let w: f64 = value
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| {
                self.err(
                    no,
                    column + key.chars().count() + 1,
                    format!(
                        "bad attribute: weight `{}` is not a finite number >= 0",
                        value.escape_debug()
                    ),
                )
            })?;
        *weight = Some(w);
        Ok(())
    }

    /// Reads the value of `latent_change=` at `column`: a probability in [0, 1].
    fn latent_attribute(
        &self,
        no: usize,
        column: usize,
        value: &str,
        special: &mut Special,
    ) -> Result<(), DataError> {
        if special.latent.is_some() {
            return Err(self.err(
                no,
                column,
                format!("bad attribute: {LATENT_KEY} given twice"),
            ));
        }
        let q: f64 = value
            .parse()
            .ok()
            .filter(|q: &f64| super::dataset::is_probability(*q))
            .ok_or_else(|| {
                self.err(
                    no,
                    column + LATENT_KEY.len() + 1,
                    format!(
                        "bad attribute: {LATENT_KEY} `{}` is not a probability in [0, 1]",
                        value.escape_debug()
                    ),
                )
            })?;
        special.latent = Some(q);
        Ok(())
    }

    fn bits_field(&mut self, no: usize, bits: &str) -> Result<(), DataError> {
        let b = bits.as_bytes();
        if self.pages == 0 {
            if b.is_empty() {
                return Err(self.err(no, 1, "empty BITS field (expected 0, 1 or ? per cycle)"));
            }
            self.cycles = bits.chars().count();
            self.words = self.cycles.div_ceil(64);
            self.first_line = no;
        }
        let start = self.bits.len();
        self.bits.resize(start + self.words, 0);
        self.unknown.resize(start + self.words, 0);
        for (k, &c) in b.iter().enumerate() {
            if k >= self.cycles {
                // Longer than the first line (all bytes so far were ASCII cycles).
                let n = bits.chars().count();
                return Err(self.err(no, self.cycles + 1, self.length_reason(n)));
            }
            let (w, m) = (start + k / 64, 1u64 << (k % 64));
            match c {
                b'0' => {}
                b'1' => self.bits[w] |= m,
                b'?' => self.unknown[w] |= m,
                _ => {
                    let ch = bits[k..].chars().next().unwrap_or('\u{fffd}');
                    return Err(self.err(
                        no,
                        k + 1,
                        format!(
                            "wrong character `{}` in BITS (expected 0, 1 or ?)",
                            ch.escape_debug()
                        ),
                    ));
                }
            }
        }
        if b.len() != self.cycles {
            return Err(self.err(no, b.len() + 1, self.length_reason(b.len())));
        }
        Ok(())
    }

    fn length_reason(&self, n: usize) -> String {
        format!(
            "length differs from the first line: {n} cycles, but line {} has {}",
            self.first_line, self.cycles
        )
    }

    fn finish(mut self) -> Result<Dataset, DataError> {
        if self.pages == 0 {
            return Err(DataError::Empty {
                file: self.file.to_string(),
            });
        }
        let (bits, unknown) = (
            std::mem::take(&mut self.bits),
            std::mem::take(&mut self.unknown),
        );
        let mut d = Dataset::from_parts(self.pages, self.cycles, bits, unknown);
        if self.any_id {
            d.set_id_arena(
                std::mem::take(&mut self.id_text),
                std::mem::take(&mut self.id_ends),
            );
        }
        if self.any_host {
            d.set_hosts(
                std::mem::take(&mut self.hosts),
                std::mem::take(&mut self.host_names),
            );
        }
        if self.any_weight {
            d.set_weights(std::mem::take(&mut self.weights));
        }
        match self.latent_lines {
            (Some(_), None) => d.set_latent(std::mem::take(&mut self.latent)),
            (Some(with), Some(without)) => {
                return Err(self.err(
                    without,
                    1,
                    format!(
                        "no {LATENT_KEY}= on this page, but line {with} gives one: a history \
                         records every page's latent change probability or none"
                    ),
                ))
            }
            _ => {}
        }
        d.set_attributes(std::mem::take(&mut self.attributes).finish());
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Dataset, DataError> {
        read(s.as_bytes(), "f.tsv")
    }

    fn err(s: &[u8]) -> String {
        read(s, "f.tsv").unwrap_err().to_string()
    }

    #[test]
    fn reads_all_column_shapes() {
        let d = parse("0101\n# c\n\n1?00\n").unwrap();
        assert_eq!((d.pages(), d.cycles()), (2, 4));
        assert!(!d.has_ids() && !d.has_hosts() && !d.has_weights());
        assert!(d.is_unknown(1, 2) && d.changed(1, 1));
        let d = parse("0101\ta/b.md\r\n0000\tc d\r\n").unwrap();
        assert_eq!((d.id(0), d.id(1)), (Some("a/b.md"), Some("c d")));
        let d = parse("01\tp1\th1\n10\tp2\th2\tweight=0.5\n11\tp3\th1\n").unwrap();
        assert_eq!(d.host_names(), ["h1", "h2"]);
        assert_eq!(
            (d.host(0), d.host(1), d.host(2)),
            (Some(0), Some(1), Some(0))
        );
        assert_eq!((d.weight(0), d.weight(1)), (1.0, 0.5));
    }

    #[test]
    fn latent_probabilities_read_on_every_page_or_none() {
        let src = "01\tp1\th1\tlatent_change=0.25\n10\tp2\th1\tweight=2\tlatent_change=1\n";
        let d = parse(src).unwrap();
        assert_eq!((d.latent(0), d.latent(1)), (Some(0.25), Some(1.0)));
        let mut out = Vec::new();
        write(&d, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "01\tp1\th1\tweight=1\tlatent_change=0.25\n10\tp2\th1\tweight=2\tlatent_change=1\n"
        );
        assert_eq!(
            parse(&String::from_utf8(Vec::from(src)).unwrap()).unwrap(),
            d
        );
        assert!(!parse("01\tp1\n").unwrap().has_latent());
        assert_eq!(
            err(b"01\tp1\th1\tlatent_change=0.5\n10\tp2\th1\n"),
            "f.tsv:2:1: no latent_change= on this page, but line 1 gives one: a history records every page's latent change probability or none"
        );
        assert_eq!(
            err(b"01\tp\th\tlatent_change=1.5\n"),
            "f.tsv:1:22: bad attribute: latent_change `1.5` is not a probability in [0, 1]"
        );
        assert_eq!(
            err(b"01\tp\th\tlatent_change=0.1\tlatent_change=0.2\n"),
            "f.tsv:1:26: bad attribute: latent_change given twice"
        );
        // -0 is stored as +0, as weights are.
        let z = parse("01\tp\th\tlatent_change=-0\n").unwrap();
        assert!(z.latent(0).unwrap().is_sign_positive());
    }

    #[test]
    fn a_carriage_return_inside_a_line_is_located() {
        // The trailing CR of a CRLF line is dropped; one inside would land in the id.
        assert_eq!(
            err(b"0101\tp\rh\n"),
            "f.tsv:1:7: a carriage return inside the line"
        );
        assert!(parse("0101\tp\th\r\n").is_ok());
    }

    #[test]
    fn each_malformation_is_located() {
        assert_eq!(
            err(b"0101\n01x1\n"),
            "f.tsv:2:3: wrong character `x` in BITS (expected 0, 1 or ?)"
        );
        assert_eq!(
            err(b"0101\n01\xc3\xa91\n"),
            "f.tsv:2:3: wrong character `\u{e9}` in BITS (expected 0, 1 or ?)"
        );
        assert_eq!(
            err(b"#h\n0101\n010\n"),
            "f.tsv:3:4: length differs from the first line: 3 cycles, but line 2 has 4"
        );
        assert_eq!(
            err(b"0101\n01011\n"),
            "f.tsv:2:5: length differs from the first line: 5 cycles, but line 1 has 4"
        );
        assert_eq!(
            err(b""),
            "f.tsv: no pages (the file is empty or holds only comments)"
        );
        assert_eq!(
            err(b"# only\n\n"),
            "f.tsv: no pages (the file is empty or holds only comments)"
        );
        assert_eq!(
            err(b"01\tp\th\tweight=x\n"),
            "f.tsv:1:15: bad attribute: weight `x` is not a finite number >= 0"
        );
        assert_eq!(
            err(b"01\tp\th\tweight=-1\n"),
            "f.tsv:1:15: bad attribute: weight `-1` is not a finite number >= 0"
        );
        assert_eq!(
            err(b"01\tp\th\tcolour!=red\n"),
            "f.tsv:1:8: bad attribute key `colour!` (letters, digits, _ - . ; not starting with a digit)"
        );
        assert_eq!(
            err(b"01\tp\th\tnoequals\n"),
            "f.tsv:1:8: bad attribute `noequals`: expected key=value"
        );
        assert_eq!(
            err(b"01\tp\th\tweight=1\tweight=2\n"),
            "f.tsv:1:17: bad attribute: weight given twice"
        );
        assert_eq!(
            err(b"01\tp\th\tcategory=a\tcategory=b\n"),
            "f.tsv:1:19: bad attribute: `category` given twice"
        );
        assert_eq!(
            err(b"01\tp\th\tcategory=\n"),
            "f.tsv:1:8: bad attribute: `category` has an empty value"
        );
        assert_eq!(
            err(b"01\tp\th\thost=x\n"),
            "f.tsv:1:8: bad attribute key `host`: reserved for the host column"
        );
        assert_eq!(
            err(b"01\n10\tp\xff\n"),
            "f.tsv:2:5: not UTF-8 (byte 0xff at byte offset 4)"
        );
        assert_eq!(
            err(b"\tp\n"),
            "f.tsv:1:1: empty BITS field (expected 0, 1 or ? per cycle)"
        );
        assert_eq!(
            err(b"01 \n"),
            "f.tsv:1:3: wrong character ` ` in BITS (expected 0, 1 or ?)"
        );
    }

    #[test]
    fn write_then_read_is_identity() {
        let src = "0?1\tp1\th1\tweight=2.5\n111\t\th2\tweight=1\n000\tp3\t\tweight=0\n";
        let d = parse(src).unwrap();
        let mut out = Vec::new();
        write(&d, &mut out).unwrap();
        assert_eq!(String::from_utf8(out.clone()).unwrap(), src);
        assert_eq!(read(&out[..], "x").unwrap(), d);
    }

    #[test]
    fn attributes_read_and_write_back() {
        let src = "01\tp1\th1\tcategory=shoes\tcountry=BR\n\
                   10\tp2\th1\tweight=2\tcountry=DE\n\
                   11\tp3\n";
        let d = parse(src).unwrap();
        let names = d.attributes().names();
        assert_eq!(names, ["category", "country"]);
        let country = d.attributes().get("country").unwrap();
        assert_eq!(
            (country.value(0), country.value(1), country.value(2)),
            (Some("BR"), Some("DE"), None)
        );
        let mut out = Vec::new();
        write(&d, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "01\tp1\th1\tweight=1\tcategory=shoes\tcountry=BR\n\
             10\tp2\th1\tweight=2\tcountry=DE\n\
             11\tp3\t\tweight=1\n"
        );
        assert_eq!(read(&out[..], "x").unwrap(), d);
        let plain = parse("01\tp1\n").unwrap();
        assert_ne!(
            plain.fingerprint(),
            parse("01\tp1\t\tk=v\n").unwrap().fingerprint()
        );
    }

    /// The same content has one fingerprint whatever order its hosts and attribute keys
    /// and values were met in; the first definition read that order.
    #[test]
    fn the_fingerprint_reads_content_not_interning_order() {
        let a = parse("01\tp1\ta.org\tk=x\tj=y\n10\tp2\tb.org\tk=z\n").unwrap();
        let mut b = a.clone();
        // The same hosts per page, named in the other order.
        b.set_hosts(vec![1, 0], vec!["b.org".into(), "a.org".into()]);
        assert_eq!(b.host_names(), ["b.org", "a.org"]);
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.first_fingerprint(), b.first_fingerprint());
        // Attribute keys met in another order.
        let c = parse("01\tp1\ta.org\tj=y\tk=x\n10\tp2\tb.org\tk=z\n").unwrap();
        assert_eq!(a.fingerprint(), c.fingerprint());
        // Content still counts: another host, value or key.
        for other in [
            "01\tp1\tc.org\tk=x\tj=y\n10\tp2\tb.org\tk=z\n",
            "01\tp1\ta.org\tk=x\tj=w\n10\tp2\tb.org\tk=z\n",
            "01\tp1\ta.org\tk=x\tj=y\n10\tp2\tb.org\tj=z\n",
            "01\tp1\ta.org\tk=x\n10\tp2\tb.org\tk=z\tj=y\n",
        ] {
            assert_ne!(
                a.fingerprint(),
                parse(other).unwrap().fingerprint(),
                "{other}"
            );
        }
        // Pages dropped by the unknown-cycle policy keep their hosts' names in the list;
        // written and read back, the same content has the same fingerprint.
        let kept = a.subset(&[1]);
        assert_eq!(kept.host_names().len(), 2);
        let mut out = Vec::new();
        write(&kept, &mut out).unwrap();
        let back = read(&out[..], "x").unwrap();
        assert_eq!(back.host_names(), ["b.org"]);
        assert_eq!(kept.fingerprint(), back.fingerprint());
        assert_ne!(kept.first_fingerprint(), back.first_fingerprint());
    }

    #[test]
    fn refuses_to_write_unreadable_ids() {
        let mut d = Dataset::new(1, 2);
        d.set_ids(vec!["a\tb".into()]);
        let e = write(&d, Vec::new()).unwrap_err();
        assert!(e.to_string().contains("TAB"), "{e}");
    }

    #[test]
    fn long_rows_span_words() {
        let row: String = (0..200)
            .map(|k| {
                if k % 3 == 0 {
                    '1'
                } else if k % 5 == 0 {
                    '?'
                } else {
                    '0'
                }
            })
            .collect();
        let d = parse(&format!("{row}\n{row}\n")).unwrap();
        let e = Dataset::from_bit_strings(&[&row, &row]).unwrap();
        assert_eq!(d, e);
    }
}
