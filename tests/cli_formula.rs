//! The `freshgp formula` subcommand, run as a user would.

use assert_cmd::Command;

fn freshgp() -> Command {
    Command::cargo_bin("freshgp").expect("the freshgp binary is built")
}

/// The stderr of a run that exits with status 2.
fn stderr_of_failure(args: &[&str]) -> String {
    let out = freshgp().args(args).assert().code(2);
    String::from_utf8(out.get_output().stderr.clone()).expect("UTF-8 output")
}

fn stdout_of(args: &[&str]) -> String {
    let out = freshgp().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8 output")
}

#[test]
fn print_styles() {
    let text = "(t * 1) + log(100) * 0 + (X / X)";
    assert_eq!(
        stdout_of(&["formula", "print", text]),
        "t * 1 + log(100) * 0 + X / X\n"
    );
    assert_eq!(
        stdout_of(&["formula", "print", text, "--style", "simplified"]),
        "t + X / X\n"
    );
    // Canonical form orders commutative operands: both spellings print the same.
    let canonical = stdout_of(&["formula", "print", text, "--style", "canonical"]);
    assert_eq!(
        stdout_of(&["formula", "print", "X / X + t", "--style", "canonical"]),
        canonical
    );
    assert_eq!(canonical, "t + X / X\n");
    assert_eq!(
        stdout_of(&["formula", "print", "1 - exp(-NAD * t)", "--style", "latex"]),
        "1 - e^{-\\mathit{NAD} \\cdot t}\n"
    );
}

#[test]
fn eval_one_page() {
    assert_eq!(
        stdout_of(&["formula", "eval", "t * X", "t=2", "X=3"]),
        "6\n"
    );
    // Missing terminals are 0, and the closure makes x / 0 = 0.
    assert_eq!(stdout_of(&["formula", "eval", "t / X", "t=2"]), "0\n");
    // The reference closure's division by (nearly) zero is 1e6.
    assert_eq!(
        stdout_of(&[
            "formula",
            "eval",
            "t / X",
            "t=2",
            "--grammar",
            "basic-reference"
        ]),
        "1000000\n"
    );
}

#[test]
fn unknown_terminal_for_the_grammar_exits_2_and_names_the_offset() {
    let out = freshgp()
        .args(["formula", "print", "t * CG", "--grammar", "basic"])
        .assert()
        .code(2);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("at byte 4"), "{stderr}");
    assert!(stderr.contains("`CG`"), "{stderr}");
    assert!(stderr.contains("grammar `basic`"), "{stderr}");
    // The caret stands under the offending terminal.
    assert!(stderr.contains("  t * CG\n      ^\n"), "{stderr}");
    assert!(out.get_output().stdout.is_empty());
}

#[test]
fn bad_values_exit_2() {
    for (values, says) in [
        (["t=2", "Q=3"], "`Q` is not a terminal"),
        (["t=2", "X=three"], "`three` is not a number"),
        (["t=2", "X=NaN"], "NaN is not a finite number"),
        (["t=2", "X3"], "expected NAME=VALUE"),
    ] {
        let out = freshgp()
            .args(["formula", "eval", "t * X"])
            .args(values)
            .assert()
            .code(2);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains(says), "{values:?}: {stderr}");
    }
}

#[test]
fn eval_refuses_values_it_would_misread() {
    for (values, says) in [
        (&["t=1", "t=2"][..], "`t=2`: t is given twice"),
        (&["w=2"][..], "`w=2`: the formula does not read w (it reads"),
        (&["t=1e400"][..], "`t=1e400`: inf is not a finite number"),
        (&["t=-inf"][..], "not a finite number"),
    ] {
        let args: Vec<&str> = ["formula", "eval", "X / n * t"]
            .iter()
            .chain(values)
            .copied()
            .collect();
        let err = stderr_of_failure(&args);
        assert!(err.contains(says), "{values:?}: {err}");
    }
}

#[test]
fn the_caret_lines_up_under_tabs() {
    let stderr = stderr_of_failure(&["formula", "print", "t *\tQ"]);
    assert!(stderr.contains("  t *\tQ\n     \t^\n"), "{stderr:?}");
    let help = stdout_of(&["formula", "--help"]);
    assert!(
        !help.contains("check") && !help.contains("simplify,"),
        "{help}"
    );
}

#[test]
fn export_names_that_clash_with_the_target_are_refused() {
    for (to, name) in [
        ("java", "Math"),
        ("c", "sin"),
        ("c", "sqrt"),
        ("python", "lambda"),
        ("sql", "SELECT"),
    ] {
        let stderr = stderr_of_failure(&["formula", "export", "t", "--to", to, "--name", name]);
        assert!(
            stderr.contains(&format!("function name `{name}`")) && stderr.contains("reserves it"),
            "{stderr}"
        );
    }
}
