//! Tidy checks: the conventions reviewers check, kept true mechanically (in the spirit of
//! rust-analyzer's tidy tests). Each check names the file and line that breaks it.
//!
//! - every source file opens with `//!` module docs (the fuzz targets' and the Python
//!   module's included);
//! - library code (src/, not the binary, not tests) calls `unwrap()` / `expect(...)` only
//!   where the line or one of the two lines above states the invariant it relies on (a
//!   comment or message containing "invariant");
//! - library code does not print (`println!`, `eprintln!`, `print!`, `dbg!`): long runs
//!   report through callbacks, the binary prints;
//! - no code in src/ but `src/atomic.rs` writes a file in place (`fs::write`,
//!   `File::create`): a user's file is replaced whole or not at all;
//! - no function in src/ or python/src/ is longer than [`MAX_FUNCTION_LINES`] lines, and
//!   no `.rs` file in src/, tests/, benches/, examples/ or python/src/ longer than
//!   [`MAX_FILE_LINES`];
//! - ARCHITECTURE.md names every source file of src/ (python/src/'s by path), and every
//!   `*.rs` it names exists;
//! - no import cycle among source files, and no module using a layer above its own
//!   ([`LAYERS`], which ARCHITECTURE.md's "Layers" lists in the same order).
//!
//! The import graph has one node per `.rs` file of a crate (the library, `src/lib.rs`;
//! the command, `src/bin/freshgp/main.rs`), `mod.rs` files included, test files
//! (`tests.rs`, `*_tests.rs`) and items marked `#[cfg(test)]` left out. Its edges are the
//! paths each file's code uses: the leaves of its `use` declarations and the paths written
//! inline (`crate::a::b`, `super::x`, `child::y`), each resolved to the file that defines
//! the item, following the `use` declarations that re-export it on the way (so
//! `crate::sim::Policy` leads to the file that defines `Policy`, not to `sim/mod.rs`).
//! The `pub use` re-exports of a facade (`mod.rs`, `lib.rs`) are not edges of their own,
//! and `mod` declarations never are: a facade that only declares and re-exports is in no
//! cycle, while one that defines an item its children use and uses them is.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest function body allowed in src/ (lines from `fn` to its closing brace).
const MAX_FUNCTION_LINES: usize = 100;

/// The longest `.rs` file allowed in src/, tests/, benches/ and examples/.
const MAX_FILE_LINES: usize = 1000;

/// The library's top-level modules by layer, the bottom one first: a module may use only
/// modules of the layers before its own (not those of its own layer). ARCHITECTURE.md's
/// "Layers" section lists the same modules in the same order.
const LAYERS: &[&[&str]] = &[
    &["hash", "stats", "metric", "place"],
    &["atomic", "formula"],
    &["eval", "export"],
    &["data"],
    &["model"],
    &["policy"],
    &["sim"],
    &["gp", "schedule", "predict"],
    &["experiment"],
    &["report", "output"],
];

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
    let dirs = [
        "src",
        "tests",
        "benches",
        "examples",
        "python/src",
        "fuzz/src",
    ];
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

#[test]
fn user_files_are_written_atomically() {
    let mut problems = Vec::new();
    for path in rust_files(&root().join("src")) {
        let rel = relative(&path);
        if rel == "src/atomic.rs" || rel.ends_with("tests.rs") {
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
         freshgp::atomic::write (or atomic::write_with)",
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
    let library = rust_files(&root().join("src"));
    for path in library
        .into_iter()
        .chain(rust_files(&root().join("python/src")))
    {
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
    for path in rust_files(&root().join("python/src")) {
        let rel = relative(&path);
        if !map.contains(&rel) {
            problems.push(format!(
                "{rel} is not named in ARCHITECTURE.md (by its path)"
            ));
        }
    }
    let names: Vec<String> = ["src", "tests", "benches", "examples", "python/src"]
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

// ---------------------------------------------------------------------------------------
// The module graph: one node per source file, one edge per path a file's code uses.
// ---------------------------------------------------------------------------------------

/// One source file as the import checks read it.
#[derive(Debug, Clone)]
struct SourceFile {
    /// Path relative to the repository (`src/sim/fast.rs`).
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
    /// (`src/lib.rs`, `src/bin/freshgp/main.rs`).
    fn new(path: &str, root: &str, text: &str) -> SourceFile {
        let dir = root.rsplit_once('/').map_or("", |(d, _)| d);
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .trim_start_matches('/');
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
    /// Per module: the name each of its `use` declarations binds → the absolute path.
    imports: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Crate {
    fn new(files: Vec<SourceFile>) -> Crate {
        let files: BTreeMap<String, SourceFile> =
            files.into_iter().map(|f| (f.module.clone(), f)).collect();
        let mut krate = Crate {
            files,
            imports: BTreeMap::new(),
        };
        let mut imports = BTreeMap::new();
        for (module, file) in &krate.files {
            let mut names = BTreeMap::new();
            for (_, tree) in &file.uses {
                for (path, name) in use_paths(tree) {
                    if let Some(absolute) = krate.absolute(module, &path) {
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
    /// it, followed through the `use` declarations that bind the next name there.
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
            if let Some(target) = self.imports.get(&module).and_then(|m| m.get(segment)) {
                if depth < 16 {
                    let mut full = target.clone();
                    full.extend(path[i + 1..].iter().cloned());
                    return self.resolve(&full, depth + 1);
                }
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

/// The crates of this repository: the library (`src/lib.rs`) and the command
/// (`src/bin/freshgp/main.rs`), their test files (`tests.rs`, `*_tests.rs`) left out.
fn repository_crates() -> Vec<Crate> {
    let files = rust_files(&root().join("src"));
    ["src/lib.rs", "src/bin/freshgp/main.rs"]
        .iter()
        .map(|crate_root| {
            let dir = crate_root.rsplit_once('/').unwrap().0;
            let sources = files
                .iter()
                .map(|p| (relative(p), p))
                .filter(|(rel, _)| rel.starts_with(&format!("{dir}/")))
                .filter(|(rel, _)| dir != "src" || !rel.starts_with("src/bin/"))
                .filter(|(rel, _)| !is_test_file(rel))
                .map(|(rel, p)| SourceFile::new(&rel, crate_root, &fs::read_to_string(p).unwrap()))
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
    let problems: Vec<String> = ["src", "tests", "benches", "examples", "python/src"]
        .iter()
        .flat_map(|d| rust_files(&root().join(d)))
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

/// The layer of top-level module `module` (its index in `layers`), if it has one.
fn layer_of(layers: &[&[&str]], module: &str) -> Option<usize> {
    layers.iter().position(|layer| layer.contains(&module))
}

/// The edges of `krate` that break the layers: a module using one of its own layer or of
/// a layer above, or a module in no layer (`layers` must name every top-level module).
fn layer_violations(krate: &Crate, layers: &[&[&str]]) -> Vec<String> {
    let top = |path: &str| {
        let module = &krate
            .files
            .values()
            .find(|f| f.path == path)
            .unwrap()
            .module;
        module.split("::").next().unwrap_or("").to_string()
    };
    let mut problems = Vec::new();
    for file in krate.files.values() {
        let module = top(&file.path);
        if !module.is_empty() && layer_of(layers, &module).is_none() {
            problems.push(format!("{}: module `{module}` is in no layer", file.path));
        }
    }
    for (from, to) in krate.edges() {
        let (a, b) = (top(&from), top(&to));
        if a == b || a.is_empty() || b.is_empty() {
            continue;
        }
        if let (Some(la), Some(lb)) = (layer_of(layers, &a), layer_of(layers, &b)) {
            if lb >= la {
                problems.push(format!(
                    "{from} (`{a}`, layer {la}) uses {to} (`{b}`, layer {lb}): not below it"
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

#[test]
fn modules_use_only_the_layers_below_their_own() {
    let crates = repository_crates();
    let library = &crates[0];
    check(
        layer_violations(library, LAYERS),
        "uses of a module of the same or a higher layer (move what both need below both; \
         a new top-level module needs its place in LAYERS and in ARCHITECTURE.md)",
    );
}

/// The layers ARCHITECTURE.md lists: each line of its "## Layers" section that starts
/// with a number, the backquoted module names before its ` — `.
fn architecture_layers(map: &str) -> Vec<Vec<String>> {
    let section = map.split("\n## Layers").nth(1).unwrap_or("");
    let section = section.split("\n## ").next().unwrap_or("");
    section
        .lines()
        .filter(|l| {
            l.split('.')
                .next()
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .map(|l| {
            let names = l.split(" — ").next().unwrap_or("");
            names
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

#[test]
fn architecture_lists_the_layers_in_their_order() {
    let map = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let listed = architecture_layers(&map);
    let want: Vec<Vec<String>> = LAYERS
        .iter()
        .map(|layer| layer.iter().map(|m| m.to_string()).collect())
        .collect();
    assert_eq!(
        listed, want,
        "ARCHITECTURE.md's Layers (left) and tests/tidy.rs's LAYERS (right) differ"
    );
}

/// A crate from hand-written files (the path of each, then its text).
fn hand_made(files: &[(&str, &str)]) -> Crate {
    Crate::new(
        files
            .iter()
            .map(|(path, text)| SourceFile::new(path, "src/lib.rs", text))
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
fn the_layer_checker_finds_a_use_of_a_higher_or_equal_layer() {
    let layers: &[&[&str]] = &[&["low"], &["mid", "side"], &["high"]];
    let lib = "pub mod low;\npub mod mid;\npub mod side;\npub mod high;\n";
    let krate = hand_made(&[
        ("src/lib.rs", lib),
        ("src/low.rs", "pub struct L;\n"),
        ("src/mid.rs", "use crate::low::L;\npub struct M(L);\n"),
        ("src/side.rs", "pub struct S(crate::mid::M);\n"),
        ("src/high.rs", "use crate::{low::L, mid::M};\n"),
    ]);
    let found = layer_violations(&krate, layers);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/side.rs (`side`, layer 1) uses src/mid.rs"),
        "{found:?}"
    );
    let upward = hand_made(&[
        ("src/lib.rs", lib),
        ("src/low.rs", "use crate::high::H;\n"),
        ("src/high.rs", "pub struct H;\n"),
        ("src/other.rs", "pub struct O;\n"),
    ]);
    let found = layer_violations(&upward, layers);
    assert!(
        found
            .iter()
            .any(|p| p.contains("src/low.rs (`low`, layer 0) uses src/high.rs")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.contains("module `other` is in no layer")),
        "{found:?}"
    );
}

#[test]
fn the_layers_are_read_off_the_architecture_map() {
    let map = "# A\n\n## Layers\n\nOne way:\n\n1. `a`, `b` — the base.\n2. `c` — uses `a`.\n\n## Next\n3. `d` — not a layer.\n";
    assert_eq!(
        architecture_layers(map),
        [
            vec!["a".to_string(), "b".to_string()],
            vec!["c".to_string()]
        ]
    );
}
