//! `report.html`: the whole report in one self-contained page, readable offline.
//!
//! The page shows, in order: the summary's title, description and settings; a table of
//! contents; every setting of the study (all of `study.json`, flattened, and the
//! dataset's shape and fingerprint from `dataset.json`); every table of `summary.md` (the
//! same [`doc`](super::doc) blocks, so the same figures formatted the same way); every
//! SVG plot inline; the list of files. Nothing is loaded from elsewhere: no scripts, no
//! fonts, no style sheets, no images but the inline SVG; the style is a short inline
//! `<style>`. Every text that comes from the study is escaped.
//!
//! **Determinism:** the page is a function of the analysis, the study, the dataset record
//! and the plots only, like every other report.

use super::doc::{Block, Inline, Span};
use super::summary::Summary;
use crate::experiment::store::DatasetRecord;
use crate::experiment::study::Study;
use serde_json::Value;

/// The page's style sheet (inline: the page loads nothing).
const STYLE: &str = "body{font-family:sans-serif;line-height:1.4;color:#222;max-width:80em;margin:0 auto;padding:1em}
table{border-collapse:collapse;margin:.5em 0 1em}
th,td{border:1px solid #bbb;padding:.2em .5em;text-align:left;vertical-align:top;font-variant-numeric:tabular-nums}
th{background:#eee}
.scroll{overflow-x:auto}
figure{margin:1em 0}
figure svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.9em}
code{font-family:monospace}
";

/// Escapes text for HTML element content and quoted attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The id of a plot's figure: its file name (unique among the plots).
fn figure_id(file: &str) -> String {
    format!(
        "plot-{}",
        file.trim_start_matches("plots/").trim_end_matches(".svg")
    )
}

fn inline(out: &mut String, text: &Inline) {
    for span in &text.0 {
        match span {
            Span::Text(t) => out.push_str(&escape(t)),
            Span::Code(t) => {
                out.push_str("<code>");
                out.push_str(&escape(t));
                out.push_str("</code>");
            }
            Span::Strong(t) => {
                out.push_str("<strong>");
                out.push_str(&escape(t));
                out.push_str("</strong>");
            }
            Span::File(path) => {
                out.push_str("<a href=\"#");
                out.push_str(&escape(&figure_id(path)));
                out.push_str("\"><code>");
                out.push_str(&escape(path));
                out.push_str("</code></a>");
            }
        }
    }
}

/// The plain text of `text` (for ids).
fn plain(text: &Inline) -> String {
    text.0
        .iter()
        .map(|s| match s {
            Span::Text(t) | Span::Code(t) | Span::Strong(t) | Span::File(t) => t.as_str(),
        })
        .collect()
}

/// A table's row of cells `tag` (`th` or `td`).
fn row(out: &mut String, tag: &str, cells: &[Inline]) {
    out.push_str("<tr>");
    for cell in cells {
        out.push_str(&format!("<{tag}>"));
        inline(out, cell);
        out.push_str(&format!("</{tag}>"));
    }
    out.push_str("</tr>\n");
}

/// A table with an optional class, in a horizontally scrolling box.
fn table(out: &mut String, class: Option<&str>, head: &[Inline], rows: &[Vec<Inline>]) {
    out.push_str("<div class=\"scroll\">\n");
    match class {
        Some(c) => out.push_str(&format!("<table class=\"{}\">\n<thead>\n", escape(c))),
        None => out.push_str("<table>\n<thead>\n"),
    }
    row(out, "th", head);
    out.push_str("</thead>\n<tbody>\n");
    for r in rows {
        row(out, "td", r);
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
}

/// The page being written: its body and its sections (id and heading) for the table of
/// contents.
#[derive(Default)]
struct Page {
    body: String,
    sections: Vec<(String, String)>,
}

impl Page {
    /// A section heading (`h2`) with a unique id made of its text.
    fn section(&mut self, text: &Inline) {
        let slug: String = plain(text)
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                'a'..='z' | '0'..='9' => Some(c),
                ' ' | '-' | '_' => Some('-'),
                _ => None,
            })
            .collect();
        let base = if slug.is_empty() {
            "section".into()
        } else {
            slug
        };
        let mut id = base.clone();
        let mut n = 1;
        while self.sections.iter().any(|(used, _)| *used == id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        let mut html = String::new();
        inline(&mut html, text);
        self.body
            .push_str(&format!("<h2 id=\"{}\">{html}</h2>\n", escape(&id)));
        self.sections.push((id, html));
    }

    fn blocks(&mut self, blocks: &[Block]) {
        for block in blocks {
            match block {
                Block::Heading { level: 2, text } => self.section(text),
                Block::Heading { level, text } => {
                    let level = (*level).clamp(1, 6);
                    self.body.push_str(&format!("<h{level}>"));
                    inline(&mut self.body, text);
                    self.body.push_str(&format!("</h{level}>\n"));
                }
                Block::Paragraph(lines) => {
                    self.body.push_str("<p>");
                    for (i, line) in lines.iter().enumerate() {
                        if i > 0 {
                            self.body.push('\n');
                        }
                        inline(&mut self.body, line);
                    }
                    self.body.push_str("</p>\n");
                }
                Block::List(items) => {
                    self.body.push_str("<ul>\n");
                    for item in items {
                        self.body.push_str("<li>");
                        inline(&mut self.body, &item.text);
                        if !item.children.is_empty() {
                            self.body.push_str("\n<ul>\n");
                            for child in &item.children {
                                self.body.push_str("<li>");
                                inline(&mut self.body, child);
                                self.body.push_str("</li>\n");
                            }
                            self.body.push_str("</ul>\n");
                        }
                        self.body.push_str("</li>\n");
                    }
                    self.body.push_str("</ul>\n");
                }
                Block::Table { head, rows } => table(&mut self.body, None, head, rows),
            }
        }
    }

    /// The table of contents: a link to every section.
    fn contents(&self) -> String {
        let mut out = String::from("<nav aria-label=\"Contents\">\n<ul>\n");
        for (id, html) in &self.sections {
            out.push_str(&format!(
                "<li><a href=\"#{}\">{html}</a></li>\n",
                escape(id)
            ));
        }
        out.push_str("</ul>\n</nav>\n");
        out
    }
}

/// A setting's value as text: strings bare, lists of plain values in brackets.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(value_text).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

/// Whether `v` is shown in one cell (not an object, nor a list holding one).
fn is_plain(v: &Value) -> bool {
    match v {
        Value::Object(_) => false,
        Value::Array(items) => items.iter().all(is_plain),
        _ => true,
    }
}

/// Every setting under `v` as (dotted path, value) rows; object keys in sorted order
/// (whatever the map type serde_json was built with).
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    let join = |key: &str| {
        if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        }
    };
    match v {
        Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                flatten(&join(key), &map[key.as_str()], out);
            }
        }
        Value::Array(items) if !is_plain(v) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), item, out);
            }
        }
        v => out.push((prefix.to_string(), value_text(v))),
    }
}

/// The settings section: every field of the study but its configurations, the dataset's
/// record, then one column per configuration.
fn settings(page: &mut Page, study: &Study, shape: [usize; 2], dataset: Option<&DatasetRecord>) {
    page.section(&Inline::text("Settings"));
    page.body.push_str(
        "<p>Every setting of the study as its output directory records it (<code>study.json</code>), and the dataset the results were computed on (<code>dataset.json</code>).</p>\n",
    );
    // Invariant: a study is plain data (string keys, finite numbers): it is stored as
    // `study.json` the same way.
    let mut value = serde_json::to_value(study).expect("a study serializes");
    let configurations = value
        .as_object_mut()
        .and_then(|o| o.remove("configurations"))
        .unwrap_or(Value::Null);
    let mut rows = Vec::new();
    flatten("", &value, &mut rows);
    rows.push((
        "dataset shape".into(),
        format!("{} pages × {} cycles", shape[0], shape[1]),
    ));
    rows.push((
        "dataset fingerprint".into(),
        dataset.map_or("(not recorded)".into(), |d| d.fingerprint.to_string()),
    ));
    let cells = |rows: Vec<(String, String)>| -> Vec<Vec<Inline>> {
        rows.into_iter()
            .map(|(k, v)| vec![Inline::code(k), Inline::text(v)])
            .collect()
    };
    let head = [Inline::text("Setting"), Inline::text("Value")];
    table(&mut page.body, Some("settings"), &head, &cells(rows));
    let per_configuration: Vec<Vec<(String, String)>> = configurations
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let mut rows = Vec::new();
                    flatten("", c, &mut rows);
                    rows
                })
                .collect()
        })
        .unwrap_or_default();
    let mut keys: Vec<&String> = per_configuration.iter().flatten().map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    let mut head = vec![Inline::text("Configuration")];
    head.extend(
        study
            .configurations
            .iter()
            .map(|c| Inline::code(c.name.clone())),
    );
    let rows: Vec<Vec<Inline>> = keys
        .iter()
        .map(|&key| {
            let mut row = vec![Inline::code(key.clone())];
            row.extend(per_configuration.iter().map(|c| {
                let v = c.iter().find(|(k, _)| k == key);
                Inline::text(v.map_or(String::new(), |(_, v)| v.clone()))
            }));
            row
        })
        .collect();
    page.body.push_str("<h3>Configurations</h3>\n");
    table(&mut page.body, Some("settings"), &head, &rows);
}

/// `report.html` of a study: `summary` is the summary of its analysis, `shape` its
/// dataset's pages and cycles, `dataset` the directory's dataset record (if any), `plots`
/// the plot files (path and SVG text).
pub(super) fn page(
    summary: &Summary,
    study: &Study,
    shape: [usize; 2],
    dataset: Option<&DatasetRecord>,
    plots: &[(String, String)],
) -> String {
    let mut top = Page::default();
    top.blocks(&summary.header);
    let mut page = Page::default();
    settings(&mut page, study, shape, dataset);
    page.blocks(&summary.tables);
    if !plots.is_empty() {
        page.section(&Inline::text("Plots"));
        for (file, svg) in plots {
            page.body.push_str(&format!(
                "<figure id=\"{}\">\n{}\n<figcaption><code>{}</code></figcaption>\n</figure>\n",
                escape(&figure_id(file)),
                svg.trim(),
                escape(file)
            ));
        }
    }
    page.blocks(&summary.files);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Study {} (freshgp report)</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n{}{}{}</main>\n</body>\n</html>\n",
        escape(&study.name),
        top.body,
        page.contents(),
        page.body
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_everywhere() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        let mut out = String::new();
        inline(
            &mut out,
            &Inline::text("a<b").and_code("x & y").and_strong("<i>"),
        );
        assert_eq!(
            out,
            "a&lt;b<code>x &amp; y</code><strong>&lt;i&gt;</strong>"
        );
    }

    #[test]
    fn section_ids_are_unique_and_plain() {
        let mut page = Page::default();
        page.section(&Inline::text("Table 2: mean ± 95% CI"));
        page.section(&Inline::text("Table 2: mean ± 95% CI"));
        page.section(&Inline::text("<>"));
        let ids: Vec<&str> = page.sections.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            ["table-2-mean--95-ci", "table-2-mean--95-ci-2", "section"]
        );
    }

    #[test]
    fn settings_flatten_in_key_order_with_lists_in_one_cell() {
        let v: Value = serde_json::from_str(
            r#"{"b": {"y": [1, 2], "x": "s"}, "a": [{"k": true}], "c": {}, "d": []}"#,
        )
        .unwrap();
        let mut rows = Vec::new();
        flatten("", &v, &mut rows);
        let rows: Vec<(&str, &str)> = rows.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            rows,
            [
                ("a[0].k", "true"),
                ("b.x", "s"),
                ("b.y", "[1, 2]"),
                ("c", "{}"),
                ("d", "[]")
            ]
        );
    }
}
