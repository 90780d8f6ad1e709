//! A compact binary copy of a history (unknown cycles kept), versioned and checksummed.
//!
//! It stores exactly what the text holds, so text → cache → text is lossless, and loads
//! without parsing. [`super::load`] recognises it by its first 8 bytes (its magic bytes).
//!
//! Layout (version 3, all integers little-endian; a history without latent change
//! probabilities is written as version 2, the same bytes without that section; version 1,
//! without attributes, still reads):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `\x89FGPDAT\n` (non-UTF-8 first byte; the `\n` catches newline translation) |
//! | 4 | version (`3`, or `2` without latent probabilities) |
//! | 4 | flags: bit 0 ids, bit 1 hosts, bit 2 weights, bit 3 attributes, bit 4 latent probabilities (version 3) |
//! | 8 + 8 | pages P, cycles D |
//! | 8·P·W, twice | change words, then unknown words (W = ⌈D/64⌉ per page) |
//! | ids | 8 (text length T), 8·P (end offset of each id), T bytes UTF-8 |
//! | hosts | 8 (name count H), per name 4 (length) + bytes, then 4·P host indices |
//! | weights | 8·P `f64` |
//! | attributes | 8 (count A), per attribute: its key, 8 (value count V) and V values, each string as 4 (length) + bytes, then 4·P codes (`u32::MAX`: none) |
//! | latent | 8·P `f64`, each in [0, 1] |
//! | 4 | CRC-32 of every byte before it; the file ends here |
//!
//! Every size is checked against the file length before anything is allocated, and every
//! invariant of [`Dataset`] is checked after reading, so a truncated, corrupt or foreign
//! file is a clear error, never a panic or a huge allocation.
//!
//! ```
//! use freshgp_data::data::{cache, Dataset};
//!
//! let d = Dataset::from_bit_strings(&["01?1", "0000"]).unwrap();
//! let mut bytes = Vec::new();
//! cache::write(&d, &mut bytes).unwrap();
//! let back = cache::read(&mut &bytes[..], "<mem>", bytes.len() as u64).unwrap();
//! assert_eq!(back, d);
//! assert!(cache::read(&mut &bytes[..20], "<mem>", 20).is_err());
//! ```

use super::{DataError, Dataset};
use std::io::{Read, Write};

/// The first 8 bytes of every cache file.
pub(crate) const MAGIC: [u8; 8] = *b"\x89FGPDAT\n";
/// The format version this build writes for a history with latent change probabilities
/// (it reads this one, 2 and 1).
pub(crate) const VERSION: u32 = 3;
/// The version written for a history without latent probabilities (the same bytes as
/// before they existed).
const PLAIN_VERSION: u32 = 2;

const HAS_IDS: u32 = 1;
const HAS_HOSTS: u32 = 2;
const HAS_WEIGHTS: u32 = 4;
const HAS_ATTRIBUTES: u32 = 8;
const HAS_LATENT: u32 = 16;

/// Writes `d` as a binary cache.
pub fn write<W: Write>(d: &Dataset, out: W) -> Result<(), DataError> {
    let mut w = CrcWriter {
        out: std::io::BufWriter::with_capacity(1 << 20, out),
        crc: crc32fast::Hasher::new(),
    };
    let io = |e: std::io::Error| DataError::io("<output>", &e);
    let flags = (d.has_ids() as u32 * HAS_IDS)
        | (d.has_hosts() as u32 * HAS_HOSTS)
        | (d.has_weights() as u32 * HAS_WEIGHTS)
        | (!d.attributes().is_empty() as u32 * HAS_ATTRIBUTES)
        | (d.has_latent() as u32 * HAS_LATENT);
    let version = if d.has_latent() {
        VERSION
    } else {
        PLAIN_VERSION
    };
    w.put(&MAGIC).map_err(io)?;
    w.put(&version.to_le_bytes()).map_err(io)?;
    w.put(&flags.to_le_bytes()).map_err(io)?;
    w.put(&(d.pages() as u64).to_le_bytes()).map_err(io)?;
    w.put(&(d.cycles() as u64).to_le_bytes()).map_err(io)?;
    let (bits, unknown) = d.raw_words();
    w.words(bits).map_err(io)?;
    w.words(unknown).map_err(io)?;
    if let Some((text, ends)) = d.id_arena() {
        w.put(&(text.len() as u64).to_le_bytes()).map_err(io)?;
        let ends: Vec<u64> = ends.iter().map(|&e| e as u64).collect();
        w.words(&ends).map_err(io)?;
        w.put(text.as_bytes()).map_err(io)?;
    }
    if let Some(hosts) = d.host_indices() {
        w.strings(d.host_names())?;
        w.u32s(hosts).map_err(io)?;
    }
    if let Some(weights) = d.weight_values() {
        let bits: Vec<u64> = weights.iter().map(|w| w.to_bits()).collect();
        w.words(&bits).map_err(io)?;
    }
    if !d.attributes().is_empty() {
        w.put(&(d.attributes().iter().count() as u64).to_le_bytes())
            .map_err(io)?;
        for a in d.attributes().iter() {
            w.string(a.name())?;
            w.strings(a.values())?;
            w.u32s(a.codes()).map_err(io)?;
        }
    }
    if let Some(latent) = d.latent_values() {
        let bits: Vec<u64> = latent.iter().map(|q| q.to_bits()).collect();
        w.words(&bits).map_err(io)?;
    }
    let crc = w.crc.clone().finalize();
    w.out.write_all(&crc.to_le_bytes()).map_err(io)?;
    w.out.flush().map_err(io)
}

/// Writes `d` to a new binary cache file at `path`.
pub fn write_file(d: &Dataset, path: &std::path::Path) -> Result<(), DataError> {
    super::write_atomically(path, |out| write(d, out))
}

/// Reads a binary cache of `len` bytes (the whole file, magic included) from `input`;
/// `file` names it in errors. The sections in file order: header, history, then the
/// optional ids, hosts, weights, attributes and latent probabilities, then the checksum.
pub fn read<R: Read>(input: &mut R, file: &str, len: u64) -> Result<Dataset, DataError> {
    let mut r = CrcReader {
        input,
        crc: crc32fast::Hasher::new(),
        left: len,
        file,
    };
    let (flags, pages, cycles) = read_header(&mut r)?;
    let mut d = read_history(&mut r, pages, cycles)?;
    if flags & HAS_IDS != 0 {
        let (text, ends) = read_ids(&mut r, pages)?;
        d.set_id_arena(text, ends);
    }
    if flags & HAS_HOSTS != 0 {
        let (hosts, names) = read_hosts(&mut r, pages)?;
        d.set_hosts(hosts, names);
    }
    if flags & HAS_WEIGHTS != 0 {
        d.set_weights(read_weights(&mut r, pages)?);
    }
    if flags & HAS_ATTRIBUTES != 0 {
        d.set_attributes(read_attributes(&mut r, pages)?);
    }
    if flags & HAS_LATENT != 0 {
        d.set_latent(read_latent(&mut r, pages)?);
    }
    read_trailer(&mut r)?;
    Ok(d)
}

/// Magic, version, flags, page and cycle counts: `(flags, pages, cycles)`.
fn read_header<R: Read>(r: &mut CrcReader<'_, R>) -> Result<(u32, usize, usize), DataError> {
    let mut magic = [0u8; 8];
    r.bytes_into(&mut magic)?;
    if magic != MAGIC {
        return Err(r.bad("wrong magic bytes (not a freshgp cache)"));
    }
    let version = r.u32()?;
    if !(1..=VERSION).contains(&version) {
        return Err(r.bad(&format!(
            "format version {version}, this build reads versions 1 to {VERSION}"
        )));
    }
    let flags = r.u32()?;
    let known = match version {
        1 => HAS_IDS | HAS_HOSTS | HAS_WEIGHTS,
        2 => HAS_IDS | HAS_HOSTS | HAS_WEIGHTS | HAS_ATTRIBUTES,
        _ => HAS_IDS | HAS_HOSTS | HAS_WEIGHTS | HAS_ATTRIBUTES | HAS_LATENT,
    };
    if flags & !known != 0 {
        return Err(r.bad(&format!("unknown flags 0x{flags:x}")));
    }
    let pages = r.u64()?;
    let cycles = r.u64()?;
    if cycles == 0 || pages == 0 {
        return Err(r.bad("zero pages or zero cycles"));
    }
    if pages > u32::MAX as u64 {
        return Err(r.bad("more than 2^32 pages"));
    }
    let cycles = usize::try_from(cycles).map_err(|_| r.bad("too many cycles"))?;
    Ok((flags, pages as usize, cycles))
}

/// The change and unknown bits, checked to be disjoint and inside the cycles.
fn read_history<R: Read>(
    r: &mut CrcReader<'_, R>,
    pages: usize,
    cycles: usize,
) -> Result<Dataset, DataError> {
    let wpp = cycles.div_ceil(64);
    let n = r.fits((pages as u64).checked_mul(wpp as u64), 16)?;
    let bits = r.words(n)?;
    let unknown = r.words(n)?;
    for p in 0..pages {
        for j in 0..wpp {
            let (b, u) = (bits[p * wpp + j], unknown[p * wpp + j]);
            if b & u != 0 {
                return Err(r.bad(&format!(
                    "page {} has a cycle both changed and unknown",
                    p + 1
                )));
            }
            let used = (cycles - 64 * j).min(64);
            if used < 64 && (b | u) >> used != 0 {
                return Err(r.bad(&format!("page {} has bits past its last cycle", p + 1)));
            }
        }
    }
    Ok(Dataset::from_parts(pages, cycles, bits, unknown))
}

/// The page ids: their text and the end offset of each.
fn read_ids<R: Read>(
    r: &mut CrcReader<'_, R>,
    pages: usize,
) -> Result<(String, Vec<usize>), DataError> {
    let text_len = r.u64()?;
    let ends = r.words(r.fits(Some(pages as u64), 8)?)?;
    let text_len = r.fits(Some(text_len), 1)?;
    let mut text = vec![0u8; text_len];
    r.bytes_into(&mut text)?;
    let text = String::from_utf8(text).map_err(|_| r.bad("page ids are not UTF-8"))?;
    if text.contains(super::attributes::LINE_BREAKS) {
        return Err(r.bad("a page id holds a TAB or line break"));
    }
    let mut prev = 0u64;
    for &e in &ends {
        if e < prev || e > text_len as u64 || !text.is_char_boundary(e as usize) {
            return Err(r.bad("page id offsets out of order or out of range"));
        }
        prev = e;
    }
    if prev != text_len as u64 {
        return Err(r.bad("page id offsets do not cover the id text"));
    }
    Ok((text, ends.into_iter().map(|e| e as usize).collect()))
}

/// The host names and each page's host index.
fn read_hosts<R: Read>(
    r: &mut CrcReader<'_, R>,
    pages: usize,
) -> Result<(Vec<u32>, Vec<String>), DataError> {
    let names = r.strings()?;
    let hosts = r.u32s(pages)?;
    if hosts.iter().any(|&h| h as usize >= names.len()) {
        return Err(r.bad("a host index is out of range"));
    }
    if names
        .iter()
        .any(|n| n.contains(super::attributes::LINE_BREAKS))
    {
        return Err(r.bad("a host name holds a TAB or line break"));
    }
    Ok((hosts, names))
}

/// One number per page, each checked by `valid` (`what` says which rule one broke).
fn read_numbers<R: Read>(
    r: &mut CrcReader<'_, R>,
    pages: usize,
    valid: impl Fn(f64) -> bool,
    what: &str,
) -> Result<Vec<f64>, DataError> {
    let numbers: Vec<f64> = r
        .words(r.fits(Some(pages as u64), 8)?)?
        .into_iter()
        .map(f64::from_bits)
        .collect();
    if !numbers.iter().all(|&x| valid(x)) {
        return Err(r.bad(what));
    }
    Ok(numbers)
}

/// Each page's weight, checked finite and not negative.
fn read_weights<R: Read>(r: &mut CrcReader<'_, R>, pages: usize) -> Result<Vec<f64>, DataError> {
    let valid = |w: f64| w.is_finite() && w >= 0.0;
    read_numbers(r, pages, valid, "a weight is not a finite number >= 0")
}

/// Each page's latent change probability, checked to be in [0, 1].
fn read_latent<R: Read>(r: &mut CrcReader<'_, R>, pages: usize) -> Result<Vec<f64>, DataError> {
    let valid = super::dataset::is_probability;
    read_numbers(
        r,
        pages,
        valid,
        "a latent change probability is not in [0, 1]",
    )
}

/// The categorical attributes, checked as [`crate::data::Attributes`] requires.
fn read_attributes<R: Read>(
    r: &mut CrcReader<'_, R>,
    pages: usize,
) -> Result<crate::data::Attributes, DataError> {
    let count = r.u64()?;
    let count = r.fits(Some(count), 16)?;
    let mut columns = Vec::with_capacity(count);
    for _ in 0..count {
        let name = r.string()?;
        let values = r.strings()?;
        columns.push((name, values, r.u32s(pages)?));
    }
    crate::data::Attributes::from_parts(columns, pages).map_err(|reason| r.bad(&reason))
}

/// The checksum of everything before it, and nothing after.
fn read_trailer<R: Read>(r: &mut CrcReader<'_, R>) -> Result<(), DataError> {
    let expected = r.crc.clone().finalize();
    let mut crc = [0u8; 4];
    r.bytes_into(&mut crc)?;
    if u32::from_le_bytes(crc) != expected {
        return Err(r.bad("checksum mismatch (the file is corrupt)"));
    }
    if r.left != 0 {
        return Err(r.bad(&format!("{} unexpected bytes after the end", r.left)));
    }
    Ok(())
}

/// Reads a binary cache file.
pub fn read_file(path: &std::path::Path) -> Result<Dataset, DataError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| DataError::io(&name, &e))?;
    let len = f.metadata().map_err(|e| DataError::io(&name, &e))?.len();
    read(
        &mut std::io::BufReader::with_capacity(1 << 20, f),
        &name,
        len,
    )
}

struct CrcWriter<W: Write> {
    out: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> CrcWriter<W> {
    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.crc.update(b);
        self.out.write_all(b)
    }

    fn words(&mut self, words: &[u64]) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(8 * 8192);
        for chunk in words.chunks(8192) {
            buf.clear();
            for w in chunk {
                buf.extend_from_slice(&w.to_le_bytes());
            }
            self.put(&buf)?;
        }
        Ok(())
    }

    fn u32s(&mut self, values: &[u32]) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(4 * values.len());
        for v in values {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        self.put(&buf)
    }

    /// One string: 4 bytes of length, then its bytes.
    fn string(&mut self, s: &str) -> Result<(), DataError> {
        let io = |e: std::io::Error| DataError::io("<output>", &e);
        let len = u32::try_from(s.len()).map_err(|_| DataError::Invalid {
            what: "a host name or attribute".into(),
            reason: "longer than 4 GiB".into(),
        })?;
        self.put(&len.to_le_bytes()).map_err(io)?;
        self.put(s.as_bytes()).map_err(io)
    }

    /// A count (8 bytes), then each string.
    fn strings(&mut self, strings: &[String]) -> Result<(), DataError> {
        self.put(&(strings.len() as u64).to_le_bytes())
            .map_err(|e| DataError::io("<output>", &e))?;
        strings.iter().try_for_each(|s| self.string(s))
    }
}

struct CrcReader<'a, R: Read> {
    input: &'a mut R,
    crc: crc32fast::Hasher,
    left: u64,
    file: &'a str,
}

impl<R: Read> CrcReader<'_, R> {
    fn bad(&self, reason: &str) -> DataError {
        DataError::Cache {
            file: self.file.to_string(),
            reason: reason.to_string(),
        }
    }

    /// Checks that `count` items of `size` bytes fit in what is left of the file.
    fn fits(&self, count: Option<u64>, size: u64) -> Result<usize, DataError> {
        match count.and_then(|c| c.checked_mul(size).map(|b| (c, b))) {
            Some((c, bytes)) if bytes <= self.left => Ok(c as usize),
            _ => Err(self.bad("truncated (a section is longer than the rest of the file)")),
        }
    }

    fn bytes_into(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        if buf.len() as u64 > self.left {
            return Err(self.bad("truncated (ends early)"));
        }
        self.input.read_exact(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.bad("truncated (ends early)")
            } else {
                DataError::io(self.file, &e)
            }
        })?;
        self.left -= buf.len() as u64;
        self.crc.update(buf);
        Ok(())
    }

    fn u32(&mut self) -> Result<u32, DataError> {
        let mut b = [0u8; 4];
        self.bytes_into(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, DataError> {
        let mut b = [0u8; 8];
        self.bytes_into(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn u32s(&mut self, n: usize) -> Result<Vec<u32>, DataError> {
        self.fits(Some(n as u64), 4)?;
        let mut b = vec![0u8; 4 * n];
        self.bytes_into(&mut b)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    fn string(&mut self) -> Result<String, DataError> {
        let len = self.u32()? as u64;
        let len = self.fits(Some(len), 1)?;
        let mut b = vec![0u8; len];
        self.bytes_into(&mut b)?;
        String::from_utf8(b).map_err(|_| self.bad("a host name or attribute is not UTF-8"))
    }

    fn strings(&mut self) -> Result<Vec<String>, DataError> {
        let count = self.u64()?;
        let count = self.fits(Some(count), 4)?;
        (0..count).map(|_| self.string()).collect()
    }

    fn words(&mut self, n: usize) -> Result<Vec<u64>, DataError> {
        self.fits(Some(n as u64), 8)?;
        let mut out = Vec::with_capacity(n);
        let mut buf = vec![0u8; 8 * 8192];
        let mut left = n;
        while left > 0 {
            let k = left.min(8192);
            self.bytes_into(&mut buf[..8 * k])?;
            out.extend(
                buf[..8 * k]
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))),
            );
            left -= k;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text;

    fn sample() -> Dataset {
        text::read(
            "0?1\tp1\th1\tweight=2.5\tcat=a\n111\tpé\th2\tweight=1\tcat=é\tbrand=x\n000\tp3\t\tweight=0\n"
                .as_bytes(),
            "s",
        )
        .unwrap()
    }

    fn bytes(d: &Dataset) -> Vec<u8> {
        let mut b = Vec::new();
        write(d, &mut b).unwrap();
        b
    }

    #[test]
    fn round_trip() {
        for d in [
            sample(),
            Dataset::from_bit_strings(&["1".repeat(130).as_str()]).unwrap(),
        ] {
            let b = bytes(&d);
            assert_eq!(read(&mut &b[..], "x", b.len() as u64).unwrap(), d);
        }
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error() {
        let b = bytes(&sample());
        for cut in 0..b.len() {
            let e = read(&mut &b[..cut], "c.bin", cut as u64).unwrap_err();
            assert!(matches!(e, DataError::Cache { .. }), "cut {cut}: {e}");
        }
        for i in 0..b.len() {
            let mut c = b.clone();
            c[i] ^= 0x40;
            assert!(
                read(&mut &c[..], "c.bin", c.len() as u64).is_err(),
                "flip at {i}"
            );
        }
        let mut longer = b.clone();
        longer.push(0);
        let e = read(&mut &longer[..], "c.bin", longer.len() as u64).unwrap_err();
        assert!(e.to_string().contains("unexpected bytes"), "{e}");
        let mut v4 = b.clone();
        v4[8] = 4;
        let e = read(&mut &v4[..], "c.bin", v4.len() as u64).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.bin: not a usable freshgp binary cache: format version 4, this build reads versions 1 to 3"
        );
    }

    #[test]
    fn latent_probabilities_round_trip_as_version_3_and_others_stay_version_2() {
        let latent = text::read(
            "0?1\tp1\th1\tweight=2.5\tlatent_change=0.25\n111\tp2\t\tlatent_change=1\n".as_bytes(),
            "s",
        )
        .unwrap();
        let b = bytes(&latent);
        assert_eq!(b[8], 3);
        assert_eq!(read(&mut &b[..], "x", b.len() as u64).unwrap(), latent);
        assert_eq!(bytes(&sample())[8], 2);
        // The latent flag in a version 2 file is unknown there.
        let v2 = as_version(b.clone(), 2);
        let e = read(&mut &v2[..], "v2", v2.len() as u64).unwrap_err();
        assert!(e.to_string().contains("unknown flags"), "{e}");
        // A probability above 1 (0.25's bits made 1.25's, checksum made right) is refused.
        let mut bad = b.clone();
        let at = b
            .windows(8)
            .rposition(|w| w == 0.25f64.to_bits().to_le_bytes())
            .unwrap();
        bad[at..at + 8].copy_from_slice(&1.25f64.to_bits().to_le_bytes());
        let bad = as_version(bad, 3);
        let e = read(&mut &bad[..], "b", bad.len() as u64).unwrap_err();
        assert!(e.to_string().contains("latent change probability"), "{e}");
    }

    /// `b` with its version set to `version` and its checksum recomputed.
    fn as_version(mut b: Vec<u8>, version: u8) -> Vec<u8> {
        b[8] = version;
        let n = b.len() - 4;
        let crc = crc32fast::hash(&b[..n]);
        b[n..].copy_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn version_1_files_still_read_but_hold_no_attributes() {
        let plain = text::read("0?1\tp1\th1\tweight=2.5\n".as_bytes(), "s").unwrap();
        let v1 = as_version(bytes(&plain), 1);
        assert_eq!(read(&mut &v1[..], "v1", v1.len() as u64).unwrap(), plain);
        let v1 = as_version(bytes(&sample()), 1);
        let e = read(&mut &v1[..], "v1", v1.len() as u64).unwrap_err();
        assert!(e.to_string().contains("unknown flags 0xf"), "{e}");
    }

    #[test]
    fn ids_hosts_and_values_the_text_format_cannot_write_are_refused() {
        // The sample's id `p1`, host `h1` and value `red`, each given a TAB or line break
        // (same length, checksum made right): a cache that would read but not write as text.
        let plain = text::read("01\tp1\th1\tcolor=red\n".as_bytes(), "s").unwrap();
        let b = bytes(&plain);
        for (from, to, what) in [
            (&b"p1"[..], &b"p\t"[..], "page id"),
            (b"h1", b"h\r", "host name"),
            (b"red", b"r\nd", "value"),
        ] {
            let at = b.windows(from.len()).position(|w| w == from).unwrap();
            let mut c = b.clone();
            c[at..at + from.len()].copy_from_slice(to);
            let body = c.len() - 4;
            let crc = crc32fast::hash(&c[..body]);
            c[body..].copy_from_slice(&crc.to_le_bytes());
            let e = read(&mut &c[..], "c", c.len() as u64).unwrap_err();
            assert!(e.to_string().contains("TAB or line break"), "{what}: {e}");
            assert!(e.to_string().contains(what), "{what}: {e}");
        }
    }

    #[test]
    fn huge_declared_sizes_do_not_allocate() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&(u32::MAX as u64).to_le_bytes());
        b.extend_from_slice(&u64::MAX.to_le_bytes());
        let e = read(&mut &b[..], "h", b.len() as u64).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}
