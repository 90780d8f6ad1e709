//! Tidy checks: the conventions reviewers check, kept true mechanically (in the spirit of
//! rust-analyzer's tidy tests). Each check names the file and line that breaks it.
//!
//! - every source file opens with `//!` module docs;
//! - library code (src/, not the binary, not tests) calls `unwrap()` / `expect(...)` only
//!   where the line or one of the two lines above states the invariant it relies on (a
//!   comment or message containing "invariant");
//! - library code does not print (`println!`, `eprintln!`, `print!`, `dbg!`): long runs
//!   report through callbacks, the binary prints;
//! - no function in src/ is longer than [`MAX_FUNCTION_LINES`] lines;
//! - ARCHITECTURE.md names every source file of src/, and every `*.rs` it names exists.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest function body allowed in src/ (lines from `fn` to its closing brace).
const MAX_FUNCTION_LINES: usize = 100;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap().display().to_string()
}

/// A source file's lines before its `#[cfg(test)]` module (test code may unwrap).
fn non_test_lines(text: &str) -> Vec<&str> {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .collect()
}

/// Library code: not the binary, not a test module (`tests.rs`, `*_tests.rs`).
fn is_library(path: &Path) -> bool {
    let rel = relative(path);
    !rel.starts_with("src/bin/") && !rel.ends_with("tests.rs")
}

fn check(problems: Vec<String>, what: &str) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

#[test]
fn every_source_file_has_module_docs() {
    let dirs = ["src", "tests", "benches", "examples"];
    let problems: Vec<String> = dirs
        .iter()
        .flat_map(|d| rust_files(&root().join(d)))
        .filter(|p| {
            let text = fs::read_to_string(p).unwrap();
            !text.trim_start().starts_with("//!")
        })
        .map(|p| format!("{}: no `//!` docs at the top", relative(&p)))
        .collect();
    check(problems, "files without module docs");
}

#[test]
fn library_unwraps_state_their_invariant() {
    let mut problems = Vec::new();
    for path in rust_files(&root().join("src"))
        .into_iter()
        .filter(|p| is_library(p))
    {
        let text = fs::read_to_string(&path).unwrap();
        let lines = non_test_lines(&text);
        for (i, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if !(code.contains(".unwrap()") || code.contains(".expect(")) {
                continue;
            }
            let context = lines[i.saturating_sub(2)..=i].join(" ").to_lowercase();
            if !context.contains("invariant") {
                problems.push(format!("{}:{}: {}", relative(&path), i + 1, code));
            }
        }
    }
    check(
        problems,
        "unwrap/expect in library code without a stated invariant (return an error, or \
         say `// Invariant: ...` on the line above)",
    );
}

#[test]
fn the_library_does_not_print() {
    let mut problems = Vec::new();
    for path in rust_files(&root().join("src"))
        .into_iter()
        .filter(|p| is_library(p))
    {
        let text = fs::read_to_string(&path).unwrap();
        for (i, line) in non_test_lines(&text).iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for mac in ["println!", "eprintln!", "print!", "eprint!", "dbg!"] {
                if code.contains(mac) {
                    problems.push(format!("{}:{}: {}", relative(&path), i + 1, code));
                }
            }
        }
    }
    check(problems, "printing in library code");
}

/// `(line, length, name)` of each function in `lines`: from its `fn` line to the line
/// closing its body (braces counted, ignoring those in strings and comments well enough
/// for this codebase's style).
fn functions(lines: &[&str]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let Some(at) = code.find("fn ") else { continue };
        let before = &code[..at];
        let is_item = before.split_whitespace().all(|w| {
            matches!(w, "pub" | "const" | "unsafe" | "async" | "extern") || w.starts_with("pub(")
        });
        if !is_item || code.starts_with("//") {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut opened) = (0i64, false);
        for (j, body) in lines[i..].iter().enumerate() {
            let body = body.split("//").next().unwrap_or("");
            for c in body.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && body.trim_end().ends_with(';') {
                break; // a declaration without a body
            }
            if opened && depth <= 0 {
                out.push((i + 1, j + 1, name.clone()));
                break;
            }
        }
    }
    out
}

#[test]
fn functions_stay_short() {
    let mut problems = Vec::new();
    for path in rust_files(&root().join("src")) {
        let text = fs::read_to_string(&path).unwrap();
        let lines = non_test_lines(&text);
        for (line, length, name) in functions(&lines) {
            if length > MAX_FUNCTION_LINES {
                problems.push(format!(
                    "{}:{line}: fn {name} is {length} lines",
                    relative(&path)
                ));
            }
        }
    }
    check(
        problems,
        &format!("functions longer than {MAX_FUNCTION_LINES} lines (split them into named steps)"),
    );
}

#[test]
fn the_function_finder_measures_what_it_should() {
    let text = "fn a() {\n    x;\n}\npub(crate) fn b(\n    y: u8,\n) -> u8 {\n    if y { 1 } else { 2 }\n}\nfn c();\n";
    let lines: Vec<&str> = text.lines().collect();
    let found: Vec<(usize, usize, String)> = functions(&lines);
    assert_eq!(found, [(1, 3, "a".to_string()), (4, 5, "b".to_string())]);
}

#[test]
fn architecture_names_every_module_and_only_real_ones() {
    let map = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut problems = Vec::new();
    for path in rust_files(&root().join("src")) {
        let rel = relative(&path);
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let named = if file == "mod.rs" || file == "main.rs" || file == "lib.rs" {
            let dir = rel.rsplit_once('/').map_or("src", |(d, _)| d).to_string();
            map.contains(&format!("{dir}/")) || map.contains(&format!("`{file}`"))
        } else {
            map.contains(&file)
        };
        if !named {
            problems.push(format!("{rel} is not named in ARCHITECTURE.md"));
        }
    }
    let names: Vec<String> = ["src", "tests", "benches", "examples"]
        .iter()
        .flat_map(|d| rust_files(&root().join(d)))
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    for word in map.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '/')) {
        let file = word.rsplit('/').next().unwrap_or(word);
        if file.ends_with(".rs") && !names.iter().any(|n| n == file) {
            problems.push(format!(
                "ARCHITECTURE.md names {word}, which does not exist"
            ));
        }
    }
    check(problems, "ARCHITECTURE.md out of date");
}
