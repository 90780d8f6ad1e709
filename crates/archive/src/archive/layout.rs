//! The fields of classic CDX lines ([`CdxFields`]): named by a ` CDX` header, by the user,
//! or known from their count.

/// The most fields before the last one the reader uses.
pub(crate) const MAX_FIELDS: usize = 32;

/// A field of a classic CDX line the reader uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Key,
    Time,
    Url,
    Mime,
    Status,
    Digest,
    OldDigest,
    Other,
}

impl Field {
    /// A field by its CDX letter or the Wayback CDX server's name.
    fn named(name: &str) -> Field {
        match name {
            "N" | "urlkey" => Field::Key,
            "b" | "timestamp" => Field::Time,
            "a" | "original" => Field::Url,
            "m" | "mimetype" | "mime" => Field::Mime,
            "s" | "statuscode" | "status" => Field::Status,
            "k" | "digest" => Field::Digest,
            "c" => Field::OldDigest,
            _ => Field::Other,
        }
    }
}

/// The fields of classic CDX lines, in order: CDX letters (`N b a m s k`) or the Wayback
/// CDX server's names (`urlkey timestamp original mimetype statuscode digest length`),
/// separated by spaces or commas. It must name the key and the timestamp.
///
/// ```
/// use freshgp_archive::archive::cdx::CdxFields;
///
/// assert!("urlkey timestamp original statuscode digest".parse::<CdxFields>().is_ok());
/// assert!("N a k".parse::<CdxFields>().unwrap_err().contains("timestamp"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxFields {
    pub(crate) fields: Vec<Field>,
    pub(crate) key: usize,
    pub(crate) time: usize,
    pub(crate) url: Option<usize>,
    pub(crate) mime: Option<usize>,
    pub(crate) status: Option<usize>,
    pub(crate) digest: Option<usize>,
    /// The least fields a line must have to hold every field used.
    pub(crate) needed: usize,
}

impl std::str::FromStr for CdxFields {
    type Err = String;

    fn from_str(text: &str) -> Result<CdxFields, String> {
        let fields: Vec<Field> = text
            .split([' ', ','])
            .filter(|f| !f.is_empty())
            .map(Field::named)
            .collect();
        let at = |f: Field| fields.iter().position(|&g| g == f);
        let key = at(Field::Key)
            .ok_or_else(|| format!("CDX fields `{text}` name no URL key (N or urlkey)"))?;
        let time = at(Field::Time)
            .ok_or_else(|| format!("CDX fields `{text}` name no timestamp (b or timestamp)"))?;
        let (url, mime, status) = (at(Field::Url), at(Field::Mime), at(Field::Status));
        let digest = at(Field::Digest).or(at(Field::OldDigest));
        let needed = [Some(key), Some(time), url, mime, status, digest]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(0)
            + 1;
        if needed > MAX_FIELDS {
            return Err(format!(
                "CDX fields `{text}`: the fields used must be among the first {MAX_FIELDS}"
            ));
        }
        Ok(CdxFields {
            fields,
            key,
            time,
            url,
            mime,
            status,
            digest,
            needed,
        })
    }
}

impl CdxFields {
    /// The layout of a headerless line of `count` fields, if a known form has that many.
    pub(crate) fn by_count(count: usize) -> Option<CdxFields> {
        let names = match count {
            7 => "urlkey timestamp original mimetype statuscode digest length",
            9 => "N b a m s k r V g",
            11 => "N b a m s k r M S V g",
            _ => return None,
        };
        names.parse().ok()
    }
}
