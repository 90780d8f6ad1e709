//! Tidy checks: the conventions reviewers check, kept true mechanically (in the spirit of
//! rust-analyzer's tidy tests). Each check names the file and line that breaks it.
//!
//! The library's code is the root crate's src/ and each crate's `crates/*/src/` (the crates
//! found by listing crates/); "library code" is all of it but the binary (src/bin/) and
//! the test files (`tests.rs`, `*_tests.rs`). Tidy checks that:
//!
//! - every source file opens with `//!` module docs (tests', benches', examples', the fuzz
//!   targets' and the Python module's included);
//! - library code calls `unwrap()` / `expect(...)` only where the line or one of the two
//!   above states the invariant it relies on (a comment or message saying "invariant");
//! - library code does not print (`println!`, `eprintln!`, `print!`, `dbg!`): long runs
//!   report through callbacks, the binary prints;
//! - no code in src/ or crates/*/src/ but `crates/data/src/atomic.rs` writes a file in
//!   place (`fs::write`, `File::create`): a user's file is replaced whole or not at all;
//! - no function in src/, crates/*/src/ or python/src/ is longer than
//!   [`MAX_FUNCTION_LINES`] lines, and no `.rs` file in those, tests/, benches/ or
//!   examples/ longer than [`MAX_FILE_LINES`];
//! - ARCHITECTURE.md names every source file of src/ and crates/*/src/ (python/src/'s by
//!   path), and every `*.rs` it names exists;
//! - no import cycle among the source files of a crate;
//! - the crates depend only downward: each crate's `freshgp-*` dependencies come before it
//!   in the root Cargo.toml's `[workspace] members`, the layers bottom first. The layers
//!   are Cargo's: a crate uses only the crates it depends on, so tidy checks no modules'.
//!
//! The import graph has one node per `.rs` file of a crate (each library crate,
//! `crates/*/src/lib.rs` and `src/lib.rs`; the command, `src/bin/freshgp/main.rs`), module
//! paths read from the crate's own directory, `mod.rs` files included, test files and
//! items marked `#[cfg(test)]` left out. Its edges are the paths each file's code uses:
//! the leaves of its `use` declarations and the paths written inline (`crate::a::b`,
//! `super::x`, `child::y`), each resolved to the file that defines the item, following the
//! `use` declarations that re-export it on the way (so `crate::sim::Policy` leads to the
//! file that defines `Policy`, not to `sim/mod.rs`). A path into another crate
//! (`freshgp_formula::formula`, or `crate::formula` where the crate root only `use`s
//! another crate's `formula`) is no edge: those go down, as Cargo holds them.
//! The `pub use` re-exports of a facade (`mod.rs`, `lib.rs`) are not edges of their own,
//! and `mod` declarations never are: a facade that only declares and re-exports is in no
//! cycle, while one that defines an item its children use and uses them is.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest function body allowed in src/, crates/*/src/ and python/src/ (lines from
/// `fn` to its closing brace).
const MAX_FUNCTION_LINES: usize = 100;

/// The longest `.rs` file allowed in src/, crates/*/src/, tests/, benches/, examples/ and
/// python/src/.
const MAX_FILE_LINES: usize = 1000;

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

/// The workspace's crates under crates/ (`crates/formula`, ...): each directory of
/// crates/ with a `Cargo.toml`, sorted.
fn crate_dirs() -> Vec<String> {
    let mut dirs: Vec<String> = fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("Cargo.toml").is_file())
        .map(|path| relative(&path))
        .collect();
    dirs.sort();
    dirs
}

/// The library's source directories: the root crate's `src` and each `crates/*/src`.
fn source_dirs() -> Vec<String> {
    let crates = crate_dirs().into_iter().map(|dir| format!("{dir}/src"));
    std::iter::once("src".to_string()).chain(crates).collect()
}

/// Every `.rs` file of src/ (the binary's included) and of each crates/*/src/, then of
/// the directories `others` (`tests`, `python/src`).
fn source_files(others: &[&str]) -> Vec<PathBuf> {
    let dirs = source_dirs()
        .into_iter()
        .chain(others.iter().map(|d| d.to_string()));
    dirs.flat_map(|dir| rust_files(&root().join(dir))).collect()
}

/// A source file's lines before its `#[cfg(test)]` module (test code may unwrap).
fn non_test_lines(text: &str) -> Vec<&str> {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .collect()
}

/// Library code (of src/ and crates/*/src/): not the binary, not a test file (`tests.rs`,
/// `*_tests.rs`).
fn is_library(path: &Path) -> bool {
    let rel = relative(path);
    !rel.starts_with("src/bin/") && !is_test_file(&rel)
}

fn check(problems: Vec<String>, what: &str) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

#[test]
fn every_source_file_has_module_docs() {
    let others = ["tests", "benches", "examples", "python/src", "fuzz/src"];
    let problems: Vec<String> = source_files(&others)
        .into_iter()
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
    for path in source_files(&[]).into_iter().filter(|p| is_library(p)) {
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
    for path in source_files(&[]).into_iter().filter(|p| is_library(p)) {
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

#[test]
fn user_files_are_written_atomically() {
    let mut problems = Vec::new();
    for path in source_files(&[]) {
        let rel = relative(&path);
        if rel == "crates/data/src/atomic.rs" || is_test_file(&rel) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (i, line) in non_test_lines(&text).iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for call in ["fs::write(", "File::create("] {
                if code.contains(call) {
                    problems.push(format!("{rel}:{}: {code}", i + 1));
                }
            }
        }
    }
    check(
        problems,
        "a file written in place (a failed write leaves it half written): use \
         atomic::write (or atomic::write_with; freshgp_data::atomic, which freshgp re-exports)",
    );
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
    for path in source_files(&["python/src"]) {
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

/// ARCHITECTURE.md names each file of src/ and crates/*/src/: a `mod.rs`, `lib.rs` or
/// `main.rs` by its directory's path from the repository with a trailing slash
/// (`crates/sim/src/sim/`, `crates/sim/src/`) or by its backquoted file name; any other
/// file by its file name (`run.rs`). Python's files go by their path (`python/src/run.rs`).
#[test]
fn architecture_names_every_module_and_only_real_ones() {
    let map = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut problems = Vec::new();
    for path in source_files(&[]) {
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
    for path in rust_files(&root().join("python/src")) {
        let rel = relative(&path);
        if !map.contains(&rel) {
            problems.push(format!(
                "{rel} is not named in ARCHITECTURE.md (by its path)"
            ));
        }
    }
    let names: Vec<String> = source_files(&["tests", "benches", "examples", "python/src"])
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    for word in map.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '/')) {
        let file = word.rsplit('/').next().unwrap_or(word);
        // A bare `.rs` is a placeholder's tail (`<name>.rs`, a recipe's new file).
        if file.ends_with(".rs") && file != ".rs" && !names.iter().any(|n| n == file) {
            problems.push(format!(
                "ARCHITECTURE.md names {word}, which does not exist"
            ));
        }
    }
    check(problems, "ARCHITECTURE.md out of date");
}

// ---------------------------------------------------------------------------------------
// The module graph: one node per source file, one edge per path a file's code uses.
// ---------------------------------------------------------------------------------------

/// One source file as the import checks read it.
#[derive(Debug, Clone)]
struct SourceFile {
    /// Path relative to the repository (`crates/sim/src/sim/fast.rs`).
    path: String,
    /// Its module path inside its crate (`sim::fast`; `""` for the crate root).
    module: String,
    /// Its `use` declarations outside test code: whether public, and the use tree.
    uses: Vec<(bool, String)>,
    /// Its other code outside test code, comments dropped.
    body: String,
}

impl SourceFile {
    /// Reads `text`, the file `path` of the crate whose root file is `root`
    /// (`crates/sim/src/lib.rs`, `src/lib.rs`, `src/bin/freshgp/main.rs`): its module path
    /// is its path from the root file's directory (`crates/sim/src/sim/fast.rs` is
    /// `sim::fast`).
    fn new(path: &str, root: &str, text: &str) -> SourceFile {
        let rel = match root.rsplit_once('/') {
            Some((dir, _)) => path
                .strip_prefix(&format!("{dir}/"))
                .unwrap_or_else(|| panic!("{path} is not in its crate's directory {dir}/")),
            None => path,
        };
        let mut segments: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
        if path == root || segments.last() == Some(&"mod") {
            segments.pop();
        }
        let (mut uses, mut body) = (Vec::new(), String::new());
        let mut statement: Option<String> = None;
        for line in code_outside_tests(text) {
            let line = line.split("//").next().unwrap_or("").trim();
            if let Some(mut open) = statement.take() {
                open.push(' ');
                open.push_str(line);
                statement = Some(open);
            } else if let Some(tree) = line.strip_prefix("use ") {
                statement = Some(format!("priv {tree}"));
            } else if let Some(tree) = ["pub use ", "pub(crate) use ", "pub(super) use "]
                .iter()
                .find_map(|p| line.strip_prefix(p))
            {
                statement = Some(format!("pub {tree}"));
            } else {
                body.push_str(line);
                body.push('\n');
            }
            if statement.as_ref().is_some_and(|s| s.contains(';')) {
                let done = statement.take().unwrap();
                let (vis, tree) = done.split_once(' ').unwrap();
                let tree = tree.split(';').next().unwrap().to_string();
                uses.push((vis == "pub", tree));
            }
        }
        SourceFile {
            path: path.to_string(),
            module: segments.join("::"),
            uses,
            body,
        }
    }

    /// A facade (`mod.rs`, `lib.rs`): its `pub use` re-exports are not edges of its own.
    fn is_facade(&self) -> bool {
        self.path.ends_with("/mod.rs") || self.path.ends_with("lib.rs")
    }
}

/// The lines of `text` outside test code: comment lines and every item marked
/// `#[cfg(test)]` (a test module, a test-only method) are left out.
fn code_outside_tests(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        if code != "#[cfg(test)]" {
            out.push(line);
            continue;
        }
        // Skip the item the attribute marks: one line ending in `;`, or up to the brace
        // that closes it.
        let (mut depth, mut opened) = (0i64, false);
        for item in lines.by_ref() {
            let item = item.split("//").next().unwrap_or("");
            depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
            opened |= item.contains('{');
            if (!opened && item.trim_end().ends_with(';')) || (opened && depth <= 0) {
                break;
            }
        }
    }
    out
}

/// The tokens of a use tree: identifiers, `::`, braces, commas and `*`.
fn use_tokens(tree: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = tree.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(n);
                chars.next();
            }
            tokens.push(word);
        } else if c == ':' {
            if chars.next_if_eq(&':').is_some() {
                tokens.push("::".to_string());
            }
        } else if "{},*".contains(c) {
            tokens.push(c.to_string());
        }
    }
    tokens
}

/// The paths a use tree names, each with the name it binds: `a::{b, c::{self, d as e}}`
/// gives `a::b` (b), `a::c` (c) and `a::c::d` (e); a glob `a::*` gives `a`, binding `*`.
fn use_paths(tree: &str) -> Vec<(Vec<String>, String)> {
    fn walk(
        tokens: &[String],
        pos: &mut usize,
        prefix: &[String],
        out: &mut Vec<(Vec<String>, String)>,
    ) {
        let mut path = prefix.to_vec();
        while let Some(token) = tokens.get(*pos) {
            *pos += 1;
            match token.as_str() {
                "{" => {
                    while tokens.get(*pos).is_some_and(|t| t != "}") {
                        walk(tokens, pos, &path, out);
                        if tokens.get(*pos).is_some_and(|t| t == ",") {
                            *pos += 1;
                        }
                    }
                    *pos += 1;
                    return;
                }
                "*" => return out.push((path, "*".to_string())),
                "::" => {}
                "self" if !path.is_empty() && tokens.get(*pos).is_none_or(|t| t != "::") => {
                    let name = path.last().cloned().unwrap_or_default();
                    return out.push((path, name));
                }
                word => {
                    path.push(word.to_string());
                    match tokens.get(*pos).map(String::as_str) {
                        Some("::") => {}
                        Some("as") => {
                            let alias = tokens.get(*pos + 1).cloned().unwrap_or_default();
                            *pos += 2;
                            return out.push((path, alias));
                        }
                        _ => return out.push((path, word.to_string())),
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&use_tokens(tree), &mut 0, &[], &mut out);
    out
}

/// The paths written inline in `body`, each up to its last `::name`
/// (`crate::sim::Policy::parse(..)` gives `crate`, `sim`, `Policy`, `parse`); which of
/// them name this crate's modules is for [`Crate::absolute`] to say.
fn inline_paths(body: &str) -> Vec<Vec<String>> {
    // A visibility restriction (`pub(in crate::sim)`) names a module: it uses nothing.
    let mut body = body.to_string();
    while let Some(at) = body.find("pub(in ") {
        let end = body[at..].find(')').map_or(body.len(), |e| at + e + 1);
        body.replace_range(at..end, "pub");
    }
    body.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|run| run.contains("::") && !run.starts_with(':'))
        .map(|run| {
            run.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// One crate's files by module path, with what each module imports.
struct Crate {
    files: BTreeMap<String, SourceFile>,
    /// Per module: the name each of its `use` declarations binds → the absolute path
    /// (`None`: a name from another crate, `use freshgp_formula::formula`).
    imports: BTreeMap<String, BTreeMap<String, Option<Vec<String>>>>,
}

impl Crate {
    fn new(sources: Vec<SourceFile>) -> Crate {
        let mut files = BTreeMap::new();
        for file in sources {
            if let Some(other) = files.insert(file.module.clone(), file) {
                panic!(
                    "two files read as module `{}`: {}",
                    other.module, other.path
                );
            }
        }
        let mut krate = Crate {
            files,
            imports: BTreeMap::new(),
        };
        let mut imports = BTreeMap::new();
        for (module, file) in &krate.files {
            let mut names = BTreeMap::new();
            for (_, tree) in &file.uses {
                for (path, name) in use_paths(tree) {
                    // A name bound in this crate wins over one bound elsewhere (cfg twins).
                    let absolute = krate.absolute(module, &path);
                    if absolute.is_some() || !names.contains_key(&name) {
                        names.insert(name, absolute);
                    }
                }
            }
            imports.insert(module.clone(), names);
        }
        krate.imports = imports;
        krate
    }

    /// `path`, written in `module`, from the crate root (`None`: another crate's).
    fn absolute(&self, module: &str, path: &[String]) -> Option<Vec<String>> {
        let mut base: Vec<String> = module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let mut rest = path;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let child = join(&base, first);
                if !self.files.contains_key(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that defines what the absolute `path` names: the deepest module file on
    /// it, followed through the `use` declarations that bind the next name there (`None`:
    /// one of them binds another crate's item, which is no file of this crate).
    fn resolve(&self, path: &[String], depth: usize) -> Option<&SourceFile> {
        let mut module = String::new();
        for (i, segment) in path.iter().enumerate() {
            let child = if module.is_empty() {
                segment.clone()
            } else {
                format!("{module}::{segment}")
            };
            if self.files.contains_key(&child) {
                module = child;
                continue;
            }
            match self.imports.get(&module).and_then(|m| m.get(segment)) {
                Some(Some(target)) if depth < 16 => {
                    let mut full = target.clone();
                    full.extend(path[i + 1..].iter().cloned());
                    return self.resolve(&full, depth + 1);
                }
                Some(None) => return None,
                _ => {}
            }
            break;
        }
        self.files.get(&module)
    }

    /// Every edge `(from, to)` between distinct files: the paths each file's `use`
    /// declarations (but a facade's `pub use`) and its inline `crate::`/`super::` paths
    /// name, resolved to the files that define them.
    fn edges(&self) -> BTreeSet<(String, String)> {
        let mut edges = BTreeSet::new();
        for (module, file) in &self.files {
            let used = (file.uses.iter())
                .filter(|(public, _)| !(*public && file.is_facade()))
                .flat_map(|(_, tree)| use_paths(tree))
                .map(|(path, _)| path)
                .chain(inline_paths(&file.body));
            for path in used {
                let Some(absolute) = self.absolute(module, &path) else {
                    continue;
                };
                if let Some(target) = self.resolve(&absolute, 0) {
                    if target.path != file.path {
                        edges.insert((file.path.clone(), target.path.clone()));
                    }
                }
            }
        }
        edges
    }
}

fn join(base: &[String], name: &str) -> String {
    let mut all = base.to_vec();
    all.push(name.to_string());
    all.join("::")
}

/// A cycle of `edges`, as the files along it (the first repeated at the end), if any.
fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges {
        next.entry(from).or_default().push(to);
    }
    // Depth-first, without recursion: `state` 1 on the current path, 2 done.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for &start in next.keys() {
        if state.contains_key(start) {
            continue;
        }
        let mut path: Vec<(&str, usize)> = vec![(start, 0)];
        state.insert(start, 1);
        while let Some((node, i)) = path.last_mut() {
            let Some(&to) = next.get(node).and_then(|n| n.get(*i)) else {
                state.insert(node, 2);
                path.pop();
                continue;
            };
            *i += 1;
            match state.get(to) {
                Some(1) => {
                    let at = path.iter().position(|(n, _)| *n == to).unwrap();
                    let mut cycle: Vec<String> =
                        path[at..].iter().map(|(n, _)| n.to_string()).collect();
                    cycle.push(to.to_string());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    state.insert(to, 1);
                    path.push((to, 0));
                }
            }
        }
    }
    None
}

/// A test file by its name: `tests.rs` or `*_tests.rs`.
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The crates of this repository: each library crate (`crates/*/src/lib.rs`,
/// `src/lib.rs`) and the command (`src/bin/freshgp/main.rs`), each read from its own
/// directory (a library's without its `bin/`), their test files left out.
fn repository_crates() -> Vec<Crate> {
    let libraries = source_dirs().into_iter().map(|dir| format!("{dir}/lib.rs"));
    let command = "src/bin/freshgp/main.rs".to_string();
    libraries
        .chain([command])
        .map(|crate_root| {
            let dir = crate_root.rsplit_once('/').unwrap().0;
            let binaries = format!("{dir}/bin/");
            let sources = rust_files(&root().join(dir))
                .iter()
                .map(|p| (relative(p), p))
                .filter(|(rel, _)| crate_root.ends_with("main.rs") || !rel.starts_with(&binaries))
                .filter(|(rel, _)| !is_test_file(rel))
                .map(|(rel, p)| SourceFile::new(&rel, &crate_root, &fs::read_to_string(p).unwrap()))
                .collect();
            Crate::new(sources)
        })
        .collect()
}

#[test]
fn no_module_import_cycle() {
    for krate in repository_crates() {
        if let Some(cycle) = find_cycle(&krate.edges()) {
            panic!(
                "an import cycle among source files (break it: move what both need below \
                 both, or keep a mod.rs to docs, declarations and re-exports):\n  {}",
                cycle.join("\n  → ")
            );
        }
    }
}

#[test]
fn files_stay_short() {
    let others = ["tests", "benches", "examples", "python/src"];
    let problems: Vec<String> = source_files(&others)
        .into_iter()
        .filter_map(|p| {
            let lines = fs::read_to_string(&p).unwrap().lines().count();
            (lines > MAX_FILE_LINES).then(|| format!("{} has {lines} lines", relative(&p)))
        })
        .collect();
    check(
        problems,
        &format!(
            "files longer than {MAX_FILE_LINES} lines (split them along a seam: a type and its \
             impls, a concern, the tests)"
        ),
    );
}

/// A crate from hand-written files (the path of each, then its text), its root file the
/// first.
fn hand_made(files: &[(&str, &str)]) -> Crate {
    let root = files[0].0;
    Crate::new(
        files
            .iter()
            .map(|(path, text)| SourceFile::new(path, root, text))
            .collect(),
    )
}

#[test]
fn use_trees_and_inline_paths_are_read_in_full() {
    let tree = "crate::{a::{self, X}, b::B as Bee, c::*}";
    let paths: Vec<(String, String)> = use_paths(tree)
        .into_iter()
        .map(|(p, name)| (p.join("::"), name))
        .collect();
    let want = [
        ("crate::a", "a"),
        ("crate::a::X", "X"),
        ("crate::b::B", "Bee"),
        ("crate::c", "*"),
    ];
    assert_eq!(paths, want.map(|(p, n)| (p.to_string(), n.to_string())));
    let inline = inline_paths("let x = crate::sim::Policy::parse(t); pub(in crate::a) y;");
    assert_eq!(
        inline,
        [["crate", "sim", "Policy", "parse"]
            .map(String::from)
            .to_vec()]
    );
}

#[test]
fn the_cycle_checker_finds_cycles_through_facades_and_defining_mod_files() {
    let lib = "pub mod a;\npub mod b;\n";
    let facade = "//! A facade.\nmod x;\nmod y;\npub use x::X;\npub use y::Y;\n";
    let x = "use super::Y;\npub struct X(Y);\n";
    // y.rs names X only inline, through the facade's re-export.
    let y = "pub struct Y;\nfn f() -> crate::a::X { g() }\n";
    let krate = hand_made(&[
        ("src/lib.rs", lib),
        ("src/a/mod.rs", facade),
        ("src/a/x.rs", x),
        ("src/a/y.rs", y),
    ]);
    let cycle = find_cycle(&krate.edges()).expect("x.rs and y.rs use each other");
    assert_eq!(cycle.first(), cycle.last());
    assert!(cycle.contains(&"src/a/x.rs".to_string()) && cycle.contains(&"src/a/y.rs".to_string()));
    assert!(!cycle.contains(&"src/a/mod.rs".to_string()), "{cycle:?}");
    // The same use in test code is no edge.
    let y_tested = "pub struct Y;\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n";
    let krate = hand_made(&[
        ("src/lib.rs", lib),
        ("src/a/mod.rs", facade),
        ("src/a/x.rs", x),
        ("src/a/y.rs", y_tested),
    ]);
    assert_eq!(find_cycle(&krate.edges()), None);
    // A mod.rs that defines what its child uses and calls the child is a cycle.
    let defining = "mod c;\npub struct B;\nfn g() { c::f() }\n";
    let child = "use super::B;\npub fn f() {}\n";
    let krate = hand_made(&[
        ("src/lib.rs", lib),
        ("src/b/mod.rs", defining),
        ("src/b/c.rs", child),
    ]);
    let cycle = find_cycle(&krate.edges()).expect("b/mod.rs and b/c.rs use each other");
    assert_eq!(cycle.len(), 3, "{cycle:?}");
}

#[test]
fn paths_into_other_crates_are_no_edges_and_a_cycle_inside_is_found() {
    // A crate under crates/ whose root brings in a lower crate's module: its files name it
    // `crate::formula::...` or `freshgp_formula::...`, neither an edge of this crate.
    let lib = "use freshgp_formula::{formula, hash};\npub mod sim;\n";
    let facade = "mod run;\npub use run::run;\npub struct Policy(crate::formula::Formula);\n";
    let run = "use crate::formula::Formula;\nuse crate::hash::{self, Fx};\nuse super::Policy;\n\
               pub fn run(f: freshgp_formula::formula::Formula) -> Policy { todo!() }\n";
    let files = [
        ("crates/sim/src/lib.rs", lib),
        ("crates/sim/src/sim/mod.rs", facade),
        ("crates/sim/src/sim/run.rs", run),
    ];
    let krate = hand_made(&files);
    let modules: Vec<&str> = krate.files.keys().map(String::as_str).collect();
    assert_eq!(modules, ["", "sim", "sim::run"]);
    let edges: Vec<(String, String)> = krate.edges().into_iter().collect();
    let want = ("crates/sim/src/sim/run.rs", "crates/sim/src/sim/mod.rs");
    assert_eq!(edges, [(want.0.to_string(), want.1.to_string())]);
    // The facade calling its child as well closes a cycle inside the crate.
    let calling = format!("{facade}fn go() {{ run::run(todo!()); }}\n");
    let krate = hand_made(&[files[0], (files[1].0, &calling), files[2]]);
    let cycle = find_cycle(&krate.edges()).expect("sim/mod.rs and sim/run.rs use each other");
    assert_eq!(cycle.len(), 3, "{cycle:?}");
}

// The layers are Cargo's: each crate depends only on the workspace members before it.

/// The sections of a Cargo.toml: each `[header]` (brackets dropped) with its lines,
/// comments dropped (this workspace's manifests put no `#` inside strings).
fn toml_sections(text: &str) -> Vec<(String, Vec<String>)> {
    let mut sections = vec![(String::new(), Vec::new())];
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') && !line.contains('=') {
            let header = line.trim_matches(|c| c == '[' || c == ']').trim();
            sections.push((header.to_string(), Vec::new()));
        } else if !line.is_empty() {
            sections.last_mut().unwrap().1.push(line.to_string());
        }
    }
    sections
}

/// The double-quoted strings of `text`, in order.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The value of `key` in section `header` of a Cargo.toml: to its line's end, or an
/// array's to its `]`.
fn toml_value(text: &str, header: &str, key: &str) -> Option<String> {
    let sections = toml_sections(text);
    let (_, lines) = sections.iter().find(|(h, _)| h == header)?;
    let at = lines
        .iter()
        .position(|l| l.split_once('=').is_some_and(|(k, _)| k.trim() == key))?;
    let rest = lines[at..].join("\n");
    let value = rest.split_once('=')?.1.trim();
    let end = value.find(if value.starts_with('[') { ']' } else { '\n' });
    Some(value[..end.unwrap_or(value.len())].to_string())
}

/// The packages a Cargo.toml depends on (`[dependencies]`, target-specific ones included;
/// not dev- or build-dependencies), by package name (a renamed one by its `package`).
fn toml_dependencies(text: &str) -> Vec<String> {
    let is_dependencies =
        |h: &str| h == "dependencies" || h.starts_with("target.") && h.ends_with(".dependencies");
    let package = |text: &str| {
        let (_, value) = text.split_once("package = ")?;
        quoted(value).into_iter().next()
    };
    let mut out = Vec::new();
    for (header, lines) in toml_sections(text) {
        if is_dependencies(&header) {
            for line in lines {
                let key = line.split(['.', '=', ' ']).next().unwrap_or("");
                out.push(package(&line).unwrap_or_else(|| key.to_string()));
            }
        } else if let Some((_, name)) = header.rsplit_once('.').filter(|(t, _)| is_dependencies(t))
        {
            out.push(package(&lines.join(" ")).unwrap_or_else(|| name.to_string()));
        }
    }
    out
}

/// The dependencies that do not go down: `crates` lists each crate, bottom first, with the
/// packages it depends on; a dependency on a crate of this workspace (`freshgp`,
/// `freshgp-*`) must be one listed before it.
fn upward_dependencies(crates: &[(String, Vec<String>)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (at, (name, dependencies)) in crates.iter().enumerate() {
        let ours = dependencies
            .iter()
            .filter(|d| *d == "freshgp" || d.starts_with("freshgp-"));
        for dependency in ours {
            match crates.iter().position(|(n, _)| n == dependency) {
                Some(below) if below < at => {}
                Some(_) => problems.push(format!("{name} depends on {dependency}, not below it")),
                None => problems.push(format!(
                    "{name} depends on {dependency}, which is no workspace member"
                )),
            }
        }
    }
    problems
}

#[test]
fn crates_depend_only_downward() {
    let manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = quoted(&toml_value(&manifest, "workspace", "members").unwrap_or_default());
    let mut problems = Vec::new();
    for dir in crate_dirs() {
        if !members.contains(&dir) {
            problems.push(format!("{dir} is not in the workspace's members"));
        }
    }
    // The members, bottom first, then the root crate on top of them all.
    let mut crates = Vec::new();
    for dir in members.iter().map(String::as_str).chain(["."]) {
        let text = fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
        let name = toml_value(&text, "package", "name").unwrap_or_default();
        let name = quoted(&name).first().cloned().unwrap_or(dir.to_string());
        crates.push((name, toml_dependencies(&text)));
    }
    problems.extend(upward_dependencies(&crates));
    check(
        problems,
        "crates depending on a crate not below them (the root Cargo.toml's [workspace] \
         members lists the layers bottom first; move what both need below both)",
    );
}

#[test]
fn the_dependency_checker_finds_an_upward_dependency() {
    let manifest = "[package]\nname = \"freshgp-mid\" # the middle\n\n[dependencies]\n\
                    freshgp-low.workspace = true\nfreshgp-top = { workspace = true }\n\
                    serde.workspace = true\nlow2 = { package = \"freshgp-gone\" }\n\
                    [target.'cfg(unix)'.dependencies]\nfreshgp-x.workspace = true\n\
                    [dev-dependencies]\nfreshgp-dev.workspace = true\n\
                    [workspace.dependencies]\nfreshgp-ws.workspace = true\n";
    let deps = toml_dependencies(manifest);
    let want = "freshgp-low freshgp-top serde freshgp-gone freshgp-x";
    assert_eq!(deps.join(" "), want);
    let crates = [
        ("freshgp-low".to_string(), vec!["serde".to_string()]),
        ("freshgp-mid".to_string(), deps[..3].to_vec()),
        ("freshgp-top".to_string(), vec!["freshgp-low".to_string()]),
    ];
    let found = upward_dependencies(&crates);
    assert_eq!(found, ["freshgp-mid depends on freshgp-top, not below it"]);
    let members = "[workspace]\nmembers = [\n  \"crates/a\", # bottom\n  \"crates/b\",\n]\n";
    let listed = quoted(&toml_value(members, "workspace", "members").unwrap());
    assert_eq!(listed, ["crates/a", "crates/b"]);
}
