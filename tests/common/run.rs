//! Running the `freshgp` binary from an integration test: one helper, so that every test
//! reports a failed command the same way.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Runs `freshgp args` in `dir` and returns its standard output; a failure is a test
/// failure naming the command and showing its standard error.
pub fn run_in<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_freshgp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert!(
        out.status.success(),
        "freshgp {} failed:\n{}",
        shown.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
