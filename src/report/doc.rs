//! The summary as a document: headings, paragraphs, lists and tables of inline text, built
//! once from the analysis and written both as Markdown (`summary.md`) and as HTML
//! (`report.html`, see [`super::html`]), so the two show the same tables with the same
//! figures.
//!
//! Inline text is a list of [`Span`]s: plain text, code, strong text and a link to a
//! report file. Text that comes from the study (names, formulas, descriptions) is always
//! a span of its own, never parsed: only the report's own prose is split on backticks
//! ([`Inline::prose`]).

/// A piece of inline text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Span {
    /// Plain text.
    Text(String),
    /// Code: a name, a formula, a file.
    Code(String),
    /// Emphasised text (a method's fitness value).
    Strong(String),
    /// A file of the report, by its path relative to the report's directory.
    File(String),
}

/// A line of inline text.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Inline(pub(crate) Vec<Span>);

impl Inline {
    /// Prose written by the report: text with `code` between backticks.
    pub(crate) fn prose(text: &str) -> Inline {
        Inline::default().and_prose(text)
    }

    /// Plain text, unparsed.
    pub(crate) fn text(text: impl Into<String>) -> Inline {
        Inline(vec![Span::Text(text.into())])
    }

    /// Code, unparsed.
    pub(crate) fn code(text: impl Into<String>) -> Inline {
        Inline(vec![Span::Code(text.into())])
    }

    /// Strong text, unparsed.
    pub(crate) fn strong(text: impl Into<String>) -> Inline {
        Inline(vec![Span::Strong(text.into())])
    }

    /// Appends prose (see [`Inline::prose`]).
    pub(crate) fn and_prose(mut self, text: &str) -> Inline {
        for (i, part) in text.split('`').enumerate() {
            match i % 2 {
                0 if !part.is_empty() => self.0.push(Span::Text(part.to_string())),
                0 => {}
                _ => self.0.push(Span::Code(part.to_string())),
            }
        }
        self
    }

    /// Appends plain text.
    pub(crate) fn and_text(mut self, text: impl Into<String>) -> Inline {
        self.0.push(Span::Text(text.into()));
        self
    }

    /// Appends code.
    pub(crate) fn and_code(mut self, text: impl Into<String>) -> Inline {
        self.0.push(Span::Code(text.into()));
        self
    }

    /// Appends strong text.
    pub(crate) fn and_strong(mut self, text: impl Into<String>) -> Inline {
        self.0.push(Span::Strong(text.into()));
        self
    }

    /// Appends a link to the report file `path`.
    pub(crate) fn and_file(mut self, path: impl Into<String>) -> Inline {
        self.0.push(Span::File(path.into()));
        self
    }
}

/// A list item with its sub-items.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    /// The item's text.
    pub(crate) text: Inline,
    /// Its sub-items.
    pub(crate) children: Vec<Inline>,
}

/// A block of the document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    /// A heading of `level` 1 to 3.
    Heading {
        /// 1 (the title), 2 (a section) or 3.
        level: u8,
        /// The heading.
        text: Inline,
    },
    /// One paragraph of one or more lines.
    Paragraph(Vec<Inline>),
    /// A bulleted list.
    List(Vec<Item>),
    /// A table: the header row and the body rows, each of the header's width.
    Table {
        /// The column headings.
        head: Vec<Inline>,
        /// The rows.
        rows: Vec<Vec<Inline>>,
    },
}

impl Block {
    /// A heading.
    pub(crate) fn heading(level: u8, text: Inline) -> Block {
        Block::Heading { level, text }
    }

    /// A paragraph of one line.
    pub(crate) fn paragraph(text: Inline) -> Block {
        Block::Paragraph(vec![text])
    }
}

/// Writes `span` as Markdown; in a table cell, `|` is escaped.
fn markdown_span(out: &mut String, span: &Span, in_cell: bool) {
    let escaped = |text: &str| {
        if in_cell {
            text.replace('|', "\\|")
        } else {
            text.to_string()
        }
    };
    match span {
        Span::Text(t) => out.push_str(&escaped(t)),
        Span::Code(t) => {
            out.push('`');
            out.push_str(&escaped(t));
            out.push('`');
        }
        Span::Strong(t) => {
            out.push_str("**");
            out.push_str(&escaped(t));
            out.push_str("**");
        }
        Span::File(path) => {
            out.push_str("[`");
            out.push_str(path);
            out.push_str("`](");
            out.push_str(path);
            out.push(')');
        }
    }
}

fn markdown_inline(out: &mut String, text: &Inline, in_cell: bool) {
    for span in &text.0 {
        markdown_span(out, span, in_cell);
    }
}

fn markdown_row(out: &mut String, cells: &[Inline]) {
    out.push('|');
    for cell in cells {
        out.push(' ');
        markdown_inline(out, cell, true);
        out.push_str(" |");
    }
    out.push('\n');
}

/// The document as Markdown: blocks separated by a blank line.
pub(crate) fn markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for (i, block) in blocks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match block {
            Block::Heading { level, text } => {
                out.push_str(&"#".repeat(usize::from(*level)));
                out.push(' ');
                markdown_inline(&mut out, text, false);
                out.push('\n');
            }
            Block::Paragraph(lines) => {
                for line in lines {
                    markdown_inline(&mut out, line, false);
                    out.push('\n');
                }
            }
            Block::List(items) => {
                for item in items {
                    out.push_str("- ");
                    markdown_inline(&mut out, &item.text, false);
                    out.push('\n');
                    for child in &item.children {
                        out.push_str("  - ");
                        markdown_inline(&mut out, child, false);
                        out.push('\n');
                    }
                }
            }
            Block::Table { head, rows } => {
                markdown_row(&mut out, head);
                out.push('|');
                out.push_str(&"---|".repeat(head.len()));
                out.push('\n');
                for row in rows {
                    markdown_row(&mut out, row);
                }
            }
        }
    }
    out
}

/// `r`, a fraction, as a percentage: `5%`, `0.1%`.
pub(super) fn percent(r: f64) -> String {
    let p = r * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round())
    } else {
        format!("{p}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_splits_code_and_text_is_never_parsed() {
        let p = Inline::prose("a `b` c `d`");
        assert_eq!(
            p.0,
            vec![
                Span::Text("a ".into()),
                Span::Code("b".into()),
                Span::Text(" c ".into()),
                Span::Code("d".into()),
            ]
        );
        assert_eq!(Inline::text("`x`").0, vec![Span::Text("`x`".into())]);
    }

    #[test]
    fn markdown_separates_blocks_and_escapes_cells_only() {
        let blocks = vec![
            Block::heading(2, Inline::prose("T `a|b`")),
            Block::Paragraph(vec![Inline::text("one"), Inline::text("two")]),
            Block::Table {
                head: vec![Inline::text("M"), Inline::text("V")],
                rows: vec![vec![Inline::code("x|y"), Inline::strong("1")]],
            },
            Block::List(vec![Item {
                text: Inline::text("top"),
                children: vec![Inline::default().and_file("plots/a.svg")],
            }]),
        ];
        assert_eq!(
            markdown(&blocks),
            "## T `a|b`\n\none\ntwo\n\n| M | V |\n|---|---|\n| `x\\|y` | **1** |\n\n- top\n  - [`plots/a.svg`](plots/a.svg)\n"
        );
    }
}
