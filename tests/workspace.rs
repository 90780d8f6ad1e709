//! The workspace as a crawler embeds it: the scheduler's crate and those below it build
//! without the heavy dependencies the command and the learning crates need (read off
//! `cargo tree`, so a new dependency that pulls one in fails here).

use std::process::Command;

/// What a crawler that scores and schedules must not have to compile.
const HEAVY: [&str; 10] = [
    "candle-core",
    "candle-nn",
    "linfa",
    "linfa-logistic",
    "plotters",
    "clap",
    "indicatif",
    "signal-hook",
    "rayon",
    "argmin",
];

/// The crates a crawler embeds for scoring and scheduling.
const EMBEDDED: [&str; 5] = [
    "freshgp-formula",
    "freshgp-data",
    "freshgp-policy",
    "freshgp-sim",
    "freshgp-schedule",
];

/// The packages in `package`'s normal dependency tree (no dev- or build-dependencies),
/// default features only, one name per package.
fn dependencies(package: &str, features: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--quiet", "-p", package, "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"]);
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    let out = command.output().expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_embedded_crates_need_no_heavy_dependency() {
    for package in EMBEDDED {
        let found = dependencies(package, &[]);
        assert!(found.iter().any(|n| n == package), "{package}: {found:?}");
        let heavy: Vec<&String> = found
            .iter()
            .filter(|n| HEAVY.contains(&n.as_str()))
            .collect();
        assert!(heavy.is_empty(), "{package} depends on {heavy:?}");
    }
}

#[test]
fn the_parallel_feature_brings_rayon_and_nothing_else_heavy() {
    let found = dependencies("freshgp-schedule", &["parallel"]);
    assert!(found.iter().any(|n| n == "rayon"), "{found:?}");
    let heavy: Vec<&String> = (found.iter())
        .filter(|n| HEAVY.contains(&n.as_str()) && *n != "rayon")
        .collect();
    assert!(
        heavy.is_empty(),
        "freshgp-schedule/parallel depends on {heavy:?}"
    );
}

#[test]
fn the_command_crate_has_them_all() {
    // The check above reads the names cargo prints: here it finds what it must not find
    // in the embedded crates, so a change of `cargo tree`'s output cannot pass it silently.
    let found = dependencies("freshgp", &[]);
    for heavy in [
        "candle-core",
        "linfa",
        "plotters",
        "clap",
        "indicatif",
        "rayon",
    ] {
        assert!(
            found.iter().any(|n| n == heavy),
            "freshgp lacks {heavy}: {found:?}"
        );
    }
}
