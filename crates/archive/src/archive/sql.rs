//! The history built by SQL where the captures already are: a query for DuckDB or Spark
//! over a table of captures, one row a capture, such as Common Crawl's columnar URL index
//! (`url_surtkey`, `fetch_time`, `url`, `fetch_status`, `content_digest`,
//! `content_mime_type`, its default column names here).
//!
//! The query returns one column, `line`: a page's line of the text format (`bits<TAB>key<TAB>host`),
//! one row a page in key order, so its rows joined by line ends are the history
//! `dataset from-cdx` writes from the same captures ([`super::cdx`]), byte for byte. It
//! applies the same rule ([`crate::data::captures`]) in window functions: a page's
//! captures in time order, a change where a success's digest differs from the previous
//! success's, a revisit by its digest (unchanged without one) and a 304 unchanged, redirects
//! and errors by [`StatusRule`]. Three differences, documented in the guide:
//! - digests are compared as text, upper-cased, after any `sha1:`-style prefix (`-` and
//!   empty are none): the same hash in base32 and in hex differs here (CDX and Common
//!   Crawl write base32), and a digest of the wrong form is not refused;
//! - captures of one page at the same second are taken in the order of their digests,
//!   where the reader takes them in file order: the two differ only when a page has
//!   different content twice within one second;
//! - hosts are the URL's host as written, lower-cased, where the reader takes the WHATWG
//!   URL parser's (punycode, percent-escapes decoded, IPv4 numbers normalised).
//!
//! Hosts come from the URL's host name, or from a host column (`host=url_host_name`, or
//! `host=url_host_registered_domain` for registrable domains).
//!
//! ```
//! use freshgp_archive::archive::sql::{history_sql, Columns, Engine};
//! use freshgp_archive::archive::ArchiveOptions;
//!
//! let sql = history_sql(Engine::Duckdb, "ccindex", &Columns::default(), &ArchiveOptions::default()).unwrap();
//! assert!(sql.contains("FROM ccindex") && sql.contains("url_surtkey"));
//! ```

use super::rules::{by_name, ArchiveOptions, HostRule, StatusRule};

/// The engines the query is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// DuckDB.
    Duckdb,
    /// Apache Spark SQL.
    Spark,
}

impl Engine {
    /// The engines, by the names the command takes.
    pub const NAMES: [(&'static str, Engine); 2] =
        [("duckdb", Engine::Duckdb), ("spark", Engine::Spark)];
}

impl std::str::FromStr for Engine {
    type Err = String;

    fn from_str(text: &str) -> Result<Engine, String> {
        by_name(&Engine::NAMES, text)
    }
}

/// The columns of the captures' table the query reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// The URL key (SURT): the page.
    pub key: String,
    /// The capture's time (a timestamp).
    pub time: String,
    /// The original URL (its host names the page's host).
    pub url: String,
    /// The HTTP status (an integer; NULL for none).
    pub status: String,
    /// The payload digest (text; NULL for none).
    pub digest: String,
    /// The MIME type (`warc/revisit` for a revisit; NULL for none).
    pub mime: String,
    /// A column naming the host, read instead of the URL's host name.
    pub host: Option<String>,
}

impl Default for Columns {
    /// Common Crawl's columnar index.
    fn default() -> Columns {
        Columns {
            key: "url_surtkey".into(),
            time: "fetch_time".into(),
            url: "url".into(),
            status: "fetch_status".into(),
            digest: "content_digest".into(),
            mime: "content_mime_type".into(),
            host: None,
        }
    }
}

impl Columns {
    /// Sets one column from `role=column` (roles: key, time, url, status, digest, mime,
    /// host).
    pub fn set(&mut self, assignment: &str) -> Result<(), String> {
        let (role, column) = assignment.split_once('=').ok_or_else(|| {
            format!("column `{assignment}`: expected ROLE=COLUMN, e.g. key=url_surtkey")
        })?;
        identifier(column).map_err(|e| format!("column `{assignment}`: {e}"))?;
        let column = column.to_string();
        match role {
            "key" => self.key = column,
            "time" => self.time = column,
            "url" => self.url = column,
            "status" => self.status = column,
            "digest" => self.digest = column,
            "mime" => self.mime = column,
            "host" => self.host = Some(column),
            _ => {
                return Err(format!(
                    "column `{assignment}`: no role `{role}` (key, time, url, status, digest, mime, host)"
                ))
            }
        }
        Ok(())
    }
}

/// Refuses a name that is not a plain SQL identifier (letters, digits, `_`; dots between
/// the parts of a qualified name), so that no name needs quoting.
fn identifier(name: &str) -> Result<(), String> {
    let part = |p: &str| {
        p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if name.split('.').all(part) {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a plain SQL name (letters, digits and _, parts joined by .)"
        ))
    }
}

/// The kind of a capture (`C` content, `N` not modified, `F` failed) from its status
/// `s`, MIME type `m` and digest `d`, under `options`' rules.
fn kind(options: &ArchiveOptions) -> String {
    let success = "CASE WHEN d IS NULL THEN 'F' ELSE 'C' END";
    let rule = |r: StatusRule| match r {
        StatusRule::Unknown => "'F'",
        StatusRule::Content => success,
    };
    format!(
        "CASE WHEN (m = 'warc/revisit' AND d IS NULL) OR s = 304 THEN 'N' \
         WHEN s IS NULL OR (s >= 200 AND s <= 299) THEN {success} \
         WHEN s >= 300 AND s <= 399 THEN {} ELSE {} END",
        rule(options.redirects),
        rule(options.errors)
    )
}

/// The host column the captures' table gives (`, COLUMN AS hc`, or nothing) and the
/// expression naming a page's host: that column, else the URL `u`'s host name, else the
/// key `k`'s.
fn host(spark: bool, columns: &Columns) -> (String, String) {
    let url_host = "lower(regexp_extract(u, '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\\\\[[^]]*\\\\]|[^:/?#]*)', 1))";
    let url_host = if spark {
        url_host.to_string()
    } else {
        url_host.replace("\\\\", "\\")
    };
    let key_host = if spark {
        "array_join(reverse(split(split_part(split_part(k, ')', 1), ':', 1), ',')), '.')"
    } else {
        "array_to_string(list_reverse(string_split(split_part(split_part(k, ')', 1), ':', 1), ',')), '.')"
    };
    match &columns.host {
        Some(h) => (format!(", {h} AS hc"), "hc".to_string()),
        None => (
            String::new(),
            format!("CASE WHEN {url_host} <> '' THEN {url_host} ELSE lower({key_host}) END"),
        ),
    }
}

/// The query that builds the history from `table`'s captures with `engine`, under
/// `options`' cycle length and status rules (the host rule must be [`HostRule::Name`]:
/// name a host column for domains).
pub fn history_sql(
    engine: Engine,
    table: &str,
    columns: &Columns,
    options: &ArchiveOptions,
) -> Result<String, String> {
    identifier(table).map_err(|e| format!("table: {e}"))?;
    if options.hosts == HostRule::Domain && columns.host.is_none() {
        return Err("hosts by registrable domain need the Public Suffix List, which SQL lacks: name a column that holds them (Common Crawl's host=url_host_registered_domain)".into());
    }
    let Columns {
        key,
        time,
        url,
        status,
        digest,
        mime,
        ..
    } = columns;
    let spark = engine == Engine::Spark;
    let seconds = if spark {
        format!("unix_timestamp({time})")
    } else {
        format!("CAST(floor(epoch({time})) AS BIGINT)")
    };
    let kind = kind(options);
    let (host_column, host) = host(spark, columns);
    let last_success = if spark {
        "last(cd, true)"
    } else {
        "last_value(cd IGNORE NULLS)"
    };
    let grid = if spark {
        "SELECT p.k, p.h, c FROM pages p CROSS JOIN bounds b LATERAL VIEW explode(sequence(b.lo, b.hi)) g AS c"
    } else {
        "SELECT p.k, p.h, g.range AS c FROM pages p CROSS JOIN bounds b CROSS JOIN LATERAL range(b.lo, b.hi + 1) g"
    };
    let line = if spark {
        "concat(concat_ws('', transform(array_sort(collect_list(struct(g.c, CASE WHEN y.ch = 1 THEN '1' WHEN y.se = 1 THEN '0' ELSE '?' END AS v))), x -> x.v)), '\\t', g.k, '\\t', g.h)"
    } else {
        "string_agg(CASE WHEN y.ch = 1 THEN '1' WHEN y.se = 1 THEN '0' ELSE '?' END, '' ORDER BY g.c) || chr(9) || g.k || chr(9) || g.h"
    };
    let cycle = options.cycle;
    Ok(format!(
        "-- The change history of the captures in {table}, as freshgp dataset from-cdx builds it:\n\
         -- one row a page, in key order, each a line of freshgp's text format.\n\
         WITH raw AS (\n\
         \x20 SELECT {key} AS k, {seconds} AS t, CAST({status} AS INT) AS s,\n\
         \x20        upper(regexp_replace(NULLIF(NULLIF({digest}, '-'), ''), '^[A-Za-z0-9]+:', '')) AS d, {mime} AS m, {url} AS u{host_column}\n\
         \x20 FROM {table}\n\
         \x20 WHERE {mime} IS NULL OR {mime} NOT IN ('text/dns', 'warc/request', 'warc/metadata', 'warc/warcinfo', 'warc-info')\n\
         ),\n\
         kinds AS (\n\
         \x20 SELECT k, t, {host} AS h, d, {kind} AS kind, CAST(floor(t / {cycle}) AS BIGINT) AS c FROM raw\n\
         ),\n\
         ordered AS (\n\
         \x20 SELECT k, t, h, c, kind, d, CASE WHEN kind = 'C' THEN d END AS cd,\n\
         \x20        row_number() OVER (PARTITION BY k ORDER BY t, d NULLS FIRST, kind) AS i\n\
         \x20 FROM kinds\n\
         ),\n\
         marked AS (\n\
         \x20 SELECT k, c, i, h, kind,\n\
         \x20        CASE WHEN kind = 'C' AND {last_success} OVER (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) <> d THEN 1 ELSE 0 END AS changed\n\
         \x20 FROM ordered\n\
         ),\n\
         cycles AS (\n\
         \x20 SELECT k, c, max(changed) AS ch, max(CASE WHEN kind <> 'F' THEN 1 ELSE 0 END) AS se FROM marked GROUP BY k, c\n\
         ),\n\
         pages AS (SELECT k, max(CASE WHEN i = 1 THEN h END) AS h FROM marked GROUP BY k),\n\
         bounds AS (SELECT min(c) AS lo, max(c) AS hi FROM kinds),\n\
         grid AS ({grid})\n\
         SELECT {line} AS line\n\
         FROM grid g LEFT JOIN cycles y ON y.k = g.k AND y.c = g.c\n\
         GROUP BY g.k, g.h\n\
         ORDER BY g.k\n"
    ))
}
