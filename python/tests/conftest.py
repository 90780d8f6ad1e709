"""Shared fixtures: the repository's files and the ``freshgp`` command, which the tests
compare the package against (the same library, so the same answers, bit for bit)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "datasets" / "real"
SCOOP = REAL / "ScoopInstaller+Main.57.tsv"


def _binary() -> Path | None:
    given = os.environ.get("FRESHGP_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        candidate = target / profile / "freshgp"
        if candidate.exists():
            return candidate
    found = shutil.which("freshgp")
    return Path(found) if found else None


class Cli:
    """Runs the ``freshgp`` command."""

    def __init__(self, path: Path):
        self.path = path

    def run(self, *args, cwd=None, check=True) -> subprocess.CompletedProcess:
        done = subprocess.run([str(self.path), *map(str, args)], capture_output=True, text=True,
                              cwd=cwd, timeout=600)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    def json(self, *args, cwd=None):
        return json.loads(self.run(*args, cwd=cwd).stdout)


@pytest.fixture(scope="module")
def cli() -> Cli:
    path = _binary()
    if path is None or not path.exists():
        pytest.skip("the freshgp command is not built (cargo build --release, or set FRESHGP_BIN)")
    return Cli(path)


def _required() -> bool:
    """In CI every requirement is installed (.ci/test), so a skip is a failure there."""
    return os.environ.get("FRESHGP_REQUIRE_ENGINES") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _required():
        report.outcome = "failed"
        report.longrepr = f"skipped where nothing may be: {report.longrepr}"


def pytest_collectreport(report):
    if report.skipped and _required():
        report.outcome = "failed"
        report.longrepr = f"skipped where nothing may be: {report.longrepr}"
