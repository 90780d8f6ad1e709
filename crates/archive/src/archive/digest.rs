//! Content digests as archives write them, read into the 64 bits a capture compares.
//!
//! A digest is an optional algorithm prefix (`sha1:`, `sha256:`, `sha512:`, `md5:`, in
//! any case) and the hash in base32 (RFC 4648, the WARC and CDX convention: 32 characters
//! for SHA-1) or hexadecimal (40 for SHA-1, as Nutch and some indexers write). Without a
//! prefix the length tells the algorithm: base32 of 32 (SHA-1), 52 (SHA-256) or 103
//! (SHA-512) characters, or hex of 32 (MD5: 32 characters that are all hex digits), 40, 64
//! or 128. A capture keeps the hash's
//! first 64 bits, so the same SHA-1 in base32 and in hex is the same content; hashes of
//! different algorithms are different content (a page whose archive switched from SHA-1
//! to SHA-256 reads as changed once). `-` or nothing is no digest.
//!
//! ```
//! use freshgp_archive::archive::digest::{parse_digest, DigestError};
//!
//! let base32 = parse_digest("sha1:7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG").unwrap();
//! let hex = parse_digest("fe05bcdcdc4928012781a5f1a2737cbb52988e42").unwrap();
//! assert!(base32.is_some() && base32 == hex);
//! assert_eq!(parse_digest("-"), Ok(None));
//! assert!(matches!(parse_digest("sha1:XYZ"), Err(DigestError::Length { .. })));
//! ```

use data_encoding::{BASE32, BASE32_NOPAD, HEXLOWER_PERMISSIVE};

/// The hash functions a digest may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// MD5 (16 bytes).
    Md5,
    /// SHA-1 (20 bytes), the WARC and CDX default.
    Sha1,
    /// SHA-256 (32 bytes).
    Sha256,
    /// SHA-512 (64 bytes).
    Sha512,
}

impl Algorithm {
    /// The prefixes a digest may carry, with their algorithms.
    const PREFIXES: [(&'static str, Algorithm); 4] = [
        ("md5", Algorithm::Md5),
        ("sha1", Algorithm::Sha1),
        ("sha256", Algorithm::Sha256),
        ("sha512", Algorithm::Sha512),
    ];

    fn bytes(self) -> usize {
        match self {
            Algorithm::Md5 => 16,
            Algorithm::Sha1 => 20,
            Algorithm::Sha256 => 32,
            Algorithm::Sha512 => 64,
        }
    }

    /// A tag mixed into the 64 bits kept, so hashes of different algorithms differ.
    fn tag(self) -> u64 {
        match self {
            Algorithm::Md5 => 0,
            Algorithm::Sha1 => 1,
            Algorithm::Sha256 => 2,
            Algorithm::Sha512 => 3,
        }
    }
}

/// Why a text is not a digest. Each holds the text as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestError {
    /// A prefix before `:` that names no algorithm this reader knows.
    #[error("digest `{0}`: unknown algorithm (expected sha1:, sha256:, sha512: or md5:)")]
    Algorithm(String),
    /// A length no algorithm's base32 or hex form has.
    #[error(
        "digest `{text}`: {len} characters is no {what} (base32 of 32, 52 or 103 characters or hex of 32, 40, 64 or 128)"
    )]
    Length {
        /// The digest.
        text: String,
        /// Its length after the prefix.
        len: usize,
        /// What it was read as.
        what: &'static str,
    },
    /// Characters outside the base32 or hex alphabet its length calls for.
    #[error("digest `{text}` is not {form}")]
    Alphabet {
        /// The digest.
        text: String,
        /// The form its length calls for.
        form: &'static str,
    },
}

/// The first 64 bits of the hash a digest names (see the module docs), `None` for `-` or
/// an empty text.
pub fn parse_digest(text: &str) -> Result<Option<u64>, DigestError> {
    if text.is_empty() || text == "-" {
        return Ok(None);
    }
    let (algorithm, value) = match text.split_once(':') {
        Some((prefix, value)) => {
            let algorithm = Algorithm::PREFIXES
                .iter()
                .find(|(p, _)| p.eq_ignore_ascii_case(prefix))
                .map(|&(_, a)| a)
                .ok_or_else(|| DigestError::Algorithm(text.to_string()))?;
            (Some(algorithm), value)
        }
        None => (None, text),
    };
    let len = value.len();
    let base32_len = |a: Algorithm| (a.bytes() * 8).div_ceil(5);
    let (algorithm, base32) = match algorithm {
        // Hex first: an MD5's 32 hex digits are as long as its padded base32.
        Some(a) if len == 2 * a.bytes() && value.bytes().all(|b| b.is_ascii_hexdigit()) => {
            (a, false)
        }
        Some(a) if len == base32_len(a) || len == a.bytes().div_ceil(5) * 8 => (a, true),
        Some(a) if len == 2 * a.bytes() => (a, false),
        Some(_) => {
            return Err(DigestError::Length {
                text: text.to_string(),
                len,
                what: "form of its algorithm",
            })
        }
        None => match len {
            32 if value.bytes().all(|b| b.is_ascii_hexdigit()) => (Algorithm::Md5, false),
            32 => (Algorithm::Sha1, true),
            52 => (Algorithm::Sha256, true),
            103 => (Algorithm::Sha512, true),
            40 => (Algorithm::Sha1, false),
            64 => (Algorithm::Sha256, false),
            128 => (Algorithm::Sha512, false),
            _ => {
                return Err(DigestError::Length {
                    text: text.to_string(),
                    len,
                    what: "digest",
                })
            }
        },
    };
    let mut bytes = [0u8; 64];
    let n = algorithm.bytes();
    let decoded = if base32 {
        let upper = value.to_ascii_uppercase();
        let engine = if upper.ends_with('=') {
            &BASE32
        } else {
            &BASE32_NOPAD
        };
        engine
            .decode(upper.as_bytes())
            .ok()
            .filter(|d| d.len() == n)
    } else {
        HEXLOWER_PERMISSIVE
            .decode(value.as_bytes())
            .ok()
            .filter(|d| d.len() == n)
    };
    let decoded = decoded.ok_or_else(|| DigestError::Alphabet {
        text: text.to_string(),
        form: if base32 { "base32" } else { "hexadecimal" },
    })?;
    bytes[..n].copy_from_slice(&decoded);
    let first = u64::from_be_bytes(bytes[..8].try_into().unwrap_or_default());
    Ok(Some(first ^ algorithm.tag().rotate_right(8)))
}

/// The 64 bits a capture keeps of a SHA-1 computed here (a payload without a digest).
pub(crate) fn sha1_bits(hash: &[u8; 20]) -> u64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    u64::from_be_bytes(first) ^ Algorithm::Sha1.tag().rotate_right(8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn forms_of_one_hash_agree_and_algorithms_differ() {
        let sha1 = [
            0xfe, 5, 0xbc, 0xdc, 0xdc, 0x49, 0x28, 1, 0x27, 0x81, 0xa5, 0xf1, 0xa2, 0x73, 0x7c,
            0xbb, 0x52, 0x98, 0x8e, 0x42,
        ];
        let b32 = BASE32.encode(&sha1);
        let hex = data_encoding::HEXLOWER.encode(&sha1);
        let want = Some(sha1_bits(&sha1));
        for text in [
            b32.clone(),
            format!("sha1:{b32}"),
            format!("SHA1:{}", b32.to_lowercase()),
            hex.clone(),
            format!("sha1:{}", hex.to_uppercase()),
        ] {
            assert_eq!(parse_digest(&text), Ok(want), "{text}");
        }
        let md5 = &hex[..32];
        assert_eq!(parse_digest(&format!("md5:{md5}")), parse_digest(md5));
        assert_ne!(
            parse_digest(md5).unwrap(),
            parse_digest(&format!("sha256:{hex}{}", &hex[..24])).unwrap()
        );
        assert_eq!(parse_digest(""), Ok(None));
    }

    #[test]
    fn each_wrong_form_is_its_own_error() {
        assert_eq!(
            parse_digest("crc:1234"),
            Err(DigestError::Algorithm("crc:1234".into()))
        );
        assert!(matches!(
            parse_digest("ABC"),
            Err(DigestError::Length { len: 3, .. })
        ));
        assert!(matches!(
            parse_digest("sha1:ABCD"),
            Err(DigestError::Length { len: 4, .. })
        ));
        let e = parse_digest(&"1".repeat(32)).unwrap().unwrap();
        assert_ne!(e, 0, "32 hex digits are an MD5");
        let bad = format!("{}!", "A".repeat(31));
        assert!(matches!(
            parse_digest(&bad),
            Err(DigestError::Alphabet { form: "base32", .. })
        ));
        let bad = format!("{}g", "a".repeat(39));
        let e = parse_digest(&bad).unwrap_err();
        assert_eq!(e.to_string(), format!("digest `{bad}` is not hexadecimal"));
    }

    proptest! {
        #[test]
        fn any_sha1_reads_the_same_in_either_form(bytes in proptest::array::uniform20(any::<u8>())) {
            let b32 = parse_digest(&BASE32.encode(&bytes)).unwrap();
            let hex = parse_digest(&data_encoding::HEXLOWER.encode(&bytes)).unwrap();
            prop_assert_eq!(b32, Some(sha1_bits(&bytes)));
            prop_assert_eq!(hex, b32);
        }
    }
}
