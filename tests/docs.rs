//! The repository explains itself: every relative link between its markdown files (the
//! README, ARCHITECTURE.md, the book in `docs/`, the datasets' READMEs) resolves to a file
//! and, with `#anchor`, to a heading of it; every page of the book is in its summary; every
//! reference from code or data files to a section of the book (`docs/src/….md#…`) resolves;
//! and no text cites the old working spec or speaks of how it was written.
//!
//! Anchors are computed as mdBook computes heading ids: lower case, letters, digits, `-` and
//! `_` kept, white space turned into `-`, everything else dropped; a repeated heading gets
//! `-1`, `-2`, ... (`anchor_of`, checked against headings mdBook renders in the unit tests).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Directories, relative to the repository root, that hold no text of the repository's
/// own: build outputs, the book as built, study outputs, fuzzing's generated inputs.
const SKIPPED_DIRS: [&str; 8] = [
    "target",
    ".git",
    "docs/book",
    "results",
    "fuzz/target",
    "fuzz/corpus",
    "fuzz/artifacts",
    "python/target",
];

/// Every file below `dir` whose name ends in one of `extensions`, in path order.
fn files(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let skipped =
                SKIPPED_DIRS.contains(&relative(&path).as_str()) || name == "node_modules";
            if !skipped {
                out.extend(files(&path, extensions));
            }
        } else if extensions.iter().any(|e| name.ends_with(e)) {
            out.push(path);
        }
    }
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A heading's id as mdBook makes it.
fn anchor_of(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Markdown with its fenced code blocks blanked (lines kept, so line numbers stay right).
fn without_code_blocks(text: &str) -> Vec<String> {
    let mut fence: Option<String> = None;
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            match &fence {
                Some(f) if trimmed.starts_with(f.as_str()) => {
                    fence = None;
                    String::new()
                }
                Some(_) => String::new(),
                None if trimmed.starts_with("```") || trimmed.starts_with("~~~") => {
                    fence = Some(trimmed[..3].to_string());
                    String::new()
                }
                None => line.to_string(),
            }
        })
        .collect()
}

/// A line with its inline code spans removed.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The ids of a markdown file's headings (ATX `#` headings outside code blocks; an explicit
/// `{#id}` wins), with mdBook's suffixes for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    for line in without_code_blocks(text) {
        let trimmed = line.trim_start();
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if level == 0 || level > 6 || !trimmed[level..].starts_with(' ') {
            continue;
        }
        let heading = trimmed[level..].trim();
        let id = match heading.rfind("{#") {
            Some(at) if heading.ends_with('}') => heading[at + 2..heading.len() - 1].to_string(),
            _ => anchor_of(heading),
        };
        let n = seen.entry(id.clone()).or_insert(0);
        out.insert(if *n == 0 {
            id.clone()
        } else {
            format!("{id}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of a markdown text's inline links `[text](target)` and reference
/// definitions `[label]: target`, with their line numbers; code is not read.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in without_code_blocks(text).iter().enumerate() {
        let line = without_code_spans(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n + 1, target.trim_matches(['<', '>']).to_string()));
            rest = &after[end..];
        }
        let trimmed = line.trim_start();
        if let Some(close) = trimmed.strip_prefix('[').and_then(|t| t.find("]:")) {
            let target = trimmed[close + 3..].split_whitespace().next().unwrap_or("");
            out.push((n + 1, target.to_string()));
        }
    }
    out
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// Problems with `target`, a link from `from`: the file it names must exist and, with an
/// anchor, be markdown with a heading of that id.
fn check_target(from: &Path, target: &str) -> Option<String> {
    if target.is_empty() || is_external(target) {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Some(format!("`{target}`: no file {}", relative(&file)));
    }
    let anchor = anchor?;
    if file.extension().is_none_or(|e| e != "md") {
        return Some(format!(
            "`{target}`: an anchor into a file that is not markdown"
        ));
    }
    let text = std::fs::read_to_string(&file).unwrap();
    (!anchors(&text).contains(anchor))
        .then(|| format!("`{target}`: {} has no heading `#{anchor}`", relative(&file)))
}

fn markdown_files() -> Vec<PathBuf> {
    files(&root(), &[".md"])
}

#[test]
fn every_relative_link_resolves() {
    let mut problems = Vec::new();
    let pages = markdown_files();
    assert!(pages.len() > 20, "{} markdown files", pages.len());
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (line, target) in links(&text) {
            if let Some(p) = check_target(page, &target) {
                problems.push(format!("{}:{line}: {p}", relative(page)));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

/// `docs/src/….md` or `docs/src/….md#anchor` references in `text`, with line numbers.
fn book_references(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("docs/src/") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || "/._-#".contains(c)))
                .unwrap_or(tail.len());
            let reference = tail[..end].trim_end_matches('.');
            if reference.contains(".md") {
                out.push((n + 1, reference.to_string()));
            }
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn references_to_the_book_resolve() {
    let mut problems = Vec::new();
    let mut count = 0;
    let kinds = [".rs", ".ron", ".sh", ".toml", ".py", ".md", ".ebnf", "run"];
    for file in files(&root(), &kinds) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (line, reference) in book_references(&text) {
            count += 1;
            // Resolved from the repository root, whatever file it is written in.
            if let Some(p) = check_target(&root().join("README.md"), &reference) {
                problems.push(format!("{}:{line}: {p}", relative(&file)));
            }
        }
    }
    assert!(count > 0, "no reference to the book found");
    assert!(
        problems.is_empty(),
        "references to missing sections of the book:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_summary_lists_every_page_of_the_book() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&summary)
        .into_iter()
        .map(|(_, t)| src.join(t))
        .collect();
    let mut missing = Vec::new();
    for page in files(&src, &[".md"]) {
        if page.file_name().is_some_and(|n| n != "SUMMARY.md") && !listed.contains(&page) {
            missing.push(relative(&page));
        }
    }
    assert!(
        missing.is_empty(),
        "pages the book leaves out (add them to docs/src/SUMMARY.md):\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_text_cites_the_old_spec_or_tells_its_history() {
    // Built from parts so that this file does not match itself.
    let spec = ["SPEC", " §"].concat();
    let history = ["sess", "ion"].concat();
    let kinds = [
        ".rs", ".md", ".ron", ".sh", ".toml", ".py", ".ebnf", ".txt", ".dict", ".sbatch", "run",
    ];
    let mut problems = Vec::new();
    for file in files(&root(), &kinds) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let tells_history = lower.match_indices(&history).any(|(at, _)| {
                let before = lower[..at].chars().next_back();
                !before.is_some_and(char::is_alphanumeric)
            });
            if line.contains(&spec) || tells_history {
                problems.push(format!("{}:{}: {}", relative(&file), n + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the repository speaks of the product only: link the book's reference \
         (docs/src/reference/) instead of the old spec, and leave histories to git:\n{}",
        problems.join("\n")
    );
}

#[test]
fn anchors_are_mdbooks_heading_ids() {
    // Ids as mdBook 0.5 renders these headings.
    for (heading, id) in [
        ("Counts: t, n and X", "counts-t-n-and-x"),
        ("Politeness: the host cap", "politeness-the-host-cap"),
        (
            "Training, selection and test",
            "training-selection-and-test",
        ),
        ("uniform, change and weight", "uniform-change-and-weight"),
        ("`lambda-harmonic`", "lambda-harmonic"),
        ("P", "p"),
    ] {
        assert_eq!(anchor_of(heading), id);
    }
    let text = "# A\n\n## Twice\n\n```\n## Not a heading\n```\n\n## Twice\n\n## Own {#mine}\n";
    let got: Vec<String> = anchors(text).into_iter().collect();
    assert_eq!(got, ["a", "mine", "twice", "twice-1"]);
}

#[test]
fn the_link_checker_finds_what_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(dir.path().join("other.md"), "# Other\n\n## A section\n").unwrap();
    let text = "See [one](other.md#a-section), [two](other.md#nowhere), [three](missing.md),\n\
                `[code](missing.md)`, [web](https://example.com/x.md) and [self](#top).\n\n\
                [ref]: other.md\n\n# Top\n";
    std::fs::write(&page, text).unwrap();
    let found: Vec<(usize, String)> = links(text);
    let targets: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        targets,
        [
            "other.md#a-section",
            "other.md#nowhere",
            "missing.md",
            "https://example.com/x.md",
            "#top",
            "other.md"
        ]
    );
    let broken: Vec<&str> = targets
        .iter()
        .copied()
        .filter(|t| check_target(&page, t).is_some())
        .collect();
    assert_eq!(broken, ["other.md#nowhere", "missing.md"]);
    // Built from parts so that the scan of this file does not find them.
    let (a, b) = (
        ["docs", "/src/reference/data.md#page-weights"].concat(),
        ["docs", "/src/x.md"].concat(),
    );
    let refs = book_references(&format!("see {a}, or {b}."));
    assert_eq!(refs, [(1, a), (1, b)]);
}

/// The terminals page's table names every terminal, in column order, and so does the
/// sentence under it (the syntax file points there).
#[test]
fn the_terminals_page_lists_every_terminal_in_column_order() {
    let page = std::fs::read_to_string(root().join("docs/src/reference/terminals.md")).unwrap();
    let table: Vec<&str> = page
        .lines()
        .skip_while(|l| !l.starts_with("| terminal |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| l.split('|').nth(1).unwrap().split('`').skip(1).step_by(2))
        .filter(|name| !name.trim().is_empty())
        .collect();
    let known: Vec<&str> = freshgp::formula::Terminal::ALL
        .iter()
        .map(|t| t.name())
        .collect();
    assert_eq!(table, known, "docs/src/reference/terminals.md's table");
    let order = format!("`{}`", known.join(" "));
    assert!(
        page.contains(&order),
        "the column order {order} is not spelt out"
    );
    let ebnf = std::fs::read_to_string(root().join("grammars/formula.ebnf")).unwrap();
    assert!(
        ebnf.contains("terminal   = ? the name of a terminal, docs/src/reference/terminals.md ?")
    );
}

/// The repository paths a markdown text names in code spans (`crates/sim/src/sim/mod.rs`,
/// `experiments/quick.ron`, ...), with line numbers; placeholders (`<name>`, `*`, `...`)
/// are not paths.
fn named_paths(text: &str) -> Vec<(usize, String)> {
    const ROOTS: [&str; 10] = [
        "src/",
        "crates/",
        "tests/",
        "benches/",
        "grammars/",
        "examples/",
        "experiments/",
        "datasets/",
        "fuzz/",
        ".ci/",
    ];
    let mut out = Vec::new();
    for (n, line) in without_code_blocks(text).iter().enumerate() {
        for (i, span) in line.split('`').enumerate() {
            let path = span.split([' ', ':', '(']).next().unwrap_or("");
            let placeholder = path.contains(['<', '*', '{', '…']) || path.contains("...");
            if i % 2 == 1 && ROOTS.iter().any(|r| path.starts_with(r)) && !placeholder {
                out.push((n + 1, path.trim_end_matches([',', '.']).to_string()));
            }
        }
    }
    out
}

#[test]
fn paths_the_docs_name_exist() {
    let mut problems = Vec::new();
    let mut count = 0;
    for page in markdown_files() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, path) in named_paths(&text) {
            count += 1;
            let generated = ["fuzz/artifacts", "fuzz/corpus", "fuzz/target"]
                .iter()
                .any(|g| path.starts_with(g));
            if !generated && !root().join(&path).exists() {
                problems.push(format!(
                    "{}:{line}: `{path}` does not exist",
                    relative(&page)
                ));
            }
        }
    }
    assert!(count > 100, "{count} paths named");
    assert!(
        problems.is_empty(),
        "the docs name files that are not there:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_path_finder_reads_code_spans_only() {
    let text = "`src/sim/mod.rs` and `src/a.rs:12`, not src/b.rs, nor `experiments/robust*.ron`\n\
                or `tests/<name>.rs`; `freshgp x` and (`datasets/real/README.md`).\n```\nsrc/c.rs\n```\n";
    let found: Vec<String> = named_paths(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(
        found,
        ["src/sim/mod.rs", "src/a.rs", "datasets/real/README.md"]
    );
}
