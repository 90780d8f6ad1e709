//! The recipes of ARCHITECTURE.md ("Recipes"), walked: each lists the files a new terminal,
//! export language or crawl policy touches. This test holds each list to what the code
//! needs:
//!
//! - every file a recipe names exists (a new file's directory, for `<name>`);
//! - no source file, grammar or book page outside a recipe's list names every member of
//!   what the recipe extends (every terminal, every language, every policy kind): such a
//!   file is a list a new member would have to join, so it belongs in the recipe or should
//!   not exist;
//! - no recipe grows past its bound: three files each, as the design asks.
//!
//! A file may list every member of a closed, historical set that new members do not join
//! ([`CLOSED`], each with its reason).

use freshgp::export::Language;
use freshgp::formula::Terminal;
use std::fs;
use std::path::{Path, PathBuf};

/// Files that list every member of a set a new member does not join, and why.
const CLOSED: &[(&str, &str)] = &[(
    "tests/export/pinned.rs",
    "the exports of the first five languages, pinned as they were before the extended terminals",
)];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A recipe of ARCHITECTURE.md: its heading and the paths of its numbered list.
struct Recipe {
    heading: String,
    files: Vec<String>,
}

/// The recipes under "## Recipes": each `### ` heading and the first code span of each
/// numbered line below it.
fn recipes() -> Vec<Recipe> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let start = text
        .find("\n## Recipes\n")
        .expect("ARCHITECTURE.md has a Recipes section");
    let section = &text[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let mut out: Vec<Recipe> = Vec::new();
    for line in section[..end].lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            out.push(Recipe {
                heading: heading.to_string(),
                files: Vec::new(),
            });
        } else if let Some((number, rest)) = line.split_once(". ") {
            if number.chars().all(|c| c.is_ascii_digit()) && !number.is_empty() {
                let path = rest
                    .split('`')
                    .nth(1)
                    .expect("a numbered line names its file");
                out.last_mut()
                    .expect("a list under a heading")
                    .files
                    .push(path.to_string());
            }
        }
    }
    out
}

/// Every file of the kinds a recipe could miss: Rust sources, grammars and book pages.
fn scanned_files() -> Vec<PathBuf> {
    let mut dirs = vec![
        root().join("src"),
        root().join("python/src"),
        root().join("tests"),
        root().join("benches"),
        root().join("examples"),
        root().join("fuzz/fuzz_targets"),
        root().join("grammars"),
        root().join("docs/src"),
    ];
    for entry in fs::read_dir(root().join("crates")).unwrap() {
        dirs.push(entry.unwrap().path().join("src"));
    }
    let mut out = Vec::new();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("rs" | "ron" | "ebnf" | "md")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether `text` holds `word` with no identifier character right after it.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        !text[i + word.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The files outside `recipe` that hold every one of `markers` (per file, the markers
/// for its kind: Rust paths for `.rs`, quoted or code-span names for the others).
fn listing_everything(recipe: &Recipe, markers: impl Fn(&Path) -> Vec<String>) -> Vec<String> {
    scanned_files()
        .into_iter()
        .filter_map(|path| {
            let relative = path
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .to_string();
            let text = fs::read_to_string(&path).ok()?;
            let wanted = markers(&path);
            let all = !wanted.is_empty() && wanted.iter().all(|m| has_word(&text, m));
            let closed = CLOSED.iter().any(|(file, _)| *file == relative);
            (all && !closed && !recipe.files.contains(&relative)).then_some(relative)
        })
        .collect()
}

fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

fn recipe(heading: &str) -> Recipe {
    recipes()
        .into_iter()
        .find(|r| r.heading == heading)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no recipe `{heading}`"))
}

#[test]
fn every_recipe_names_files_that_exist_and_stays_within_its_bound() {
    let bounds = [
        ("A new terminal", 3),
        ("A new export language", 3),
        ("A new crawl policy", 3),
    ];
    let found = recipes();
    assert_eq!(
        found.iter().map(|r| r.heading.as_str()).collect::<Vec<_>>(),
        bounds.map(|(h, _)| h),
        "the recipes of ARCHITECTURE.md"
    );
    for (recipe, (_, bound)) in found.iter().zip(bounds) {
        assert!(
            !recipe.files.is_empty() && recipe.files.len() <= bound,
            "`{}` touches {} files (at most {bound})",
            recipe.heading,
            recipe.files.len()
        );
        for file in &recipe.files {
            let path = root().join(file);
            let exists = match file.find("<name>") {
                Some(_) => path.parent().unwrap().is_dir(),
                None => path.is_file(),
            };
            assert!(
                exists,
                "`{}` names {file}, which is not there",
                recipe.heading
            );
        }
    }
}

#[test]
fn only_the_terminal_recipe_lists_every_terminal() {
    let recipe = recipe("A new terminal");
    let others = listing_everything(&recipe, |path| {
        Terminal::ALL
            .iter()
            .map(|t| match is_rust(path) {
                true => format!("Terminal::{t:?}"),
                false => format!("\"{}\"", t.name()),
            })
            .collect()
    });
    assert!(
        others.is_empty(),
        "files that list every terminal: {others:?}"
    );
    // And the book page of the recipe does list them (as code spans).
    let page = fs::read_to_string(root().join(&recipe.files[2])).unwrap();
    for t in Terminal::ALL {
        assert!(
            page.contains(&format!("`{}`", t.name())),
            "{t} in {}",
            recipe.files[2]
        );
    }
    // Each code file of the recipe names every terminal: the row and the computation.
    for file in &recipe.files[..2] {
        let text = fs::read_to_string(root().join(file)).unwrap();
        for t in Terminal::ALL {
            assert!(
                has_word(&text, &format!("Terminal::{t:?}")),
                "{t:?} in {file}"
            );
        }
    }
}

#[test]
fn only_the_language_recipe_lists_every_language() {
    let recipe = recipe("A new export language");
    let names = ["Python", "C", "Java", "Rust", "Sql"];
    // The markers are every variant of `Language` (this list is checked against ALL).
    for language in Language::ALL {
        let debug = format!("{language:?}");
        assert!(names.iter().any(|n| debug.starts_with(n)), "{debug}");
    }
    let others = listing_everything(&recipe, |path| match is_rust(path) {
        true => names.iter().map(|n| format!("Language::{n}")).collect(),
        false => Vec::new(),
    });
    assert!(
        others.is_empty(),
        "files that list every language: {others:?}"
    );
}

#[test]
fn only_the_policy_recipe_lists_every_policy_kind() {
    let recipe = recipe("A new crawl policy");
    let kinds = [
        "Formula", "Baseline", "Adaptive", "Rate", "Value", "Model", "Oracle",
    ];
    // The markers are every variant of `Scorer`, as its definition lists them.
    let kind_rs = fs::read_to_string(root().join("crates/policy/src/policy/kind.rs")).unwrap();
    assert_eq!(enum_variants(&kind_rs, "Scorer"), kinds);
    let others = listing_everything(&recipe, |path| match is_rust(path) {
        true => kinds.iter().map(|k| format!("Scorer::{k}")).collect(),
        false => Vec::new(),
    });
    assert!(
        others.is_empty(),
        "files that list every policy kind: {others:?}"
    );
}

/// The variants of `pub enum NAME` in `source`: each line of the enum's body, at its first
/// indentation, that starts with a capital letter, up to its first `(`, `{` or `,`.
fn enum_variants(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("no `pub enum {name}`"));
    source[start..]
        .lines()
        .skip(1)
        .take_while(|line| *line != "}")
        .filter_map(|line| line.strip_prefix("    "))
        .filter(|line| line.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|line| {
            let end = line.find(['(', '{', ',', ' ']).unwrap_or(line.len());
            line[..end].to_string()
        })
        .collect()
}

#[test]
fn a_planted_list_is_found() {
    let recipe = Recipe {
        heading: "a made-up recipe".into(),
        files: Vec::new(),
    };
    // crates/formula/src/formula/terminal.rs lists every terminal: with an empty recipe
    // it is reported, so the scan can fail.
    let found = listing_everything(&recipe, |path| match is_rust(path) {
        true => Terminal::ALL
            .iter()
            .map(|t| format!("Terminal::{t:?}"))
            .collect(),
        false => Vec::new(),
    });
    assert!(
        found.contains(&"crates/formula/src/formula/terminal.rs".to_string()),
        "{found:?}"
    );
}
