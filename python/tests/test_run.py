"""The runs: simulate, baselines, evolve and experiment give the command's JSON, report
progress to a callback, and stop on an exception or Ctrl-C."""

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import conftest
import freshgp
from conftest import SCOOP

POLICIES = ["NAD", "lambda", "(t * X + CG) / (n + 1) - exp(-NAD * t)", "kab3", "nutch"]


@pytest.fixture(scope="module")
def scoop():
    return freshgp.Dataset(str(SCOOP))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("host_cap", [None, 3])
def test_simulate_is_the_commands(cli, scoop, policy, host_cap):
    args = ["simulate", "--data", SCOOP, "--policy", policy, "--period", "all", "--resources", 0.1, "--json"]
    if host_cap:
        args += ["--host-cap", host_cap]
    want = cli.json(*args)
    got = freshgp.simulate(scoop, policy, resources=0.1, host_cap=host_cap)
    assert got == want
    assert got["k"] == int(0.1 * scoop.pages) and got["host_cap"] == host_cap
    assert ("bandit" in got) == (policy == "kab3")
    columns = freshgp.columns(got["cycles"])
    for i, cycle in enumerate(want["cycles"]):
        for metric in freshgp.METRICS:
            assert columns[metric][i] == cycle[metric], (metric, i)
    assert columns["change_rate"].dtype == np.float64
    assert columns["visited"].dtype == np.int64


def test_repeated_runs_and_sampling_are_the_commands(cli, scoop):
    want = cli.json("simulate", "--data", SCOOP, "--policy", "NAD", "--period", "all", "--decision", "sample",
                    "--runs", 4, "--json")
    got = freshgp.simulate(scoop, "NAD", decision="sample", runs=4)
    assert got == want
    assert got["seeds"] == [1, 2, 3, 4] and len(got["levels"]) == 1
    assert [r["seed"] for r in got["levels"][0]["runs"]] == [1, 2, 3, 4]


@pytest.mark.parametrize("period", ["train", "test"])
def test_a_rotations_set_is_the_commands(cli, scoop, period):
    want = cli.json("simulate", "--data", SCOOP, "--policy", "lambda", "--period", period,
                    "--rotation", 2, "--metric", "wndcg", "--json")
    assert freshgp.simulate(scoop, "lambda", period=period, rotation=2, metric="wndcg") == want


def test_baselines_are_the_commands(cli, scoop):
    want = cli.json("baselines", "--data", SCOOP, "--policies", "NAD,lambda,Age,kab2", "--json")
    got = freshgp.baselines(scoop, ["NAD", "lambda", "Age", "kab2"])
    assert got == want
    assert got["policies"] == ["NAD", "lambda", "Age", "kab2"]
    for name, row in got["baselines"].items():
        assert len(row["rotations"]) == 5
        assert sum(len(c) for c in row["rotations"]) == row["changerate"]["n"] == got["cycles"]
        assert ("arms" in row) == (name == "kab2")
    # The test horizon and the budget reach both alike.
    want = cli.json("baselines", "--data", SCOOP, "--policies", "NAD", "--test-horizon", "whole",
                    "--resources", 0.2, "--json")
    assert freshgp.baselines(scoop, ["NAD"], test_horizon="whole", resources=0.2) == want


def test_the_oracles_headroom_is_the_commands(cli):
    # The sample is synthetic and records each page's latent change probability.
    sample = conftest.REPO / "datasets" / "brdc12-sample.tsv"
    listed = ["oracle", "NAD", "w * (1 - exp(-MLE * t))", "value"]
    want = cli.json("baselines", "--data", sample, "--policies", ",".join(listed), "--json")
    whole = freshgp.baselines(freshgp.Dataset(str(sample)), listed)
    assert whole == want
    got = {policy: whole["baselines"][label] for policy, label in zip(listed, whole["policies"])}
    assert got["oracle"]["captured"] is None
    shares = 0
    for name in listed[1:]:
        assert sorted(got[name]["captured"]) == ["wfreshness", "wndcg"]
        for cell in got[name]["captured"].values():
            if cell is not None:
                shares += 1
                assert cell["over"] in [l for n, l in zip(listed, whole["policies"]) if n not in ("oracle", name)]
    assert shares > 0, "the oracle leads somewhere on the sample"
    # Without the oracle listed, nothing is shared; on data without q, the oracle is refused.
    assert freshgp.baselines(freshgp.Dataset(str(sample)), ["NAD"])["baselines"]["NAD"]["captured"] is None
    with pytest.raises(freshgp.FreshgpError, match="latent change probability"):
        freshgp.baselines(freshgp.Dataset(str(SCOOP)), ["oracle"])


@pytest.mark.parametrize("call, message", [
    (lambda d: freshgp.simulate(d, "nosuchpolicy"), "nosuchpolicy"),
    (lambda d: freshgp.simulate(d, "t * (X"), "cannot read formula"),
    (lambda d: freshgp.simulate(d, "NAD", resources=0), "resources 0"),
    (lambda d: freshgp.simulate(d, "NAD", resources=float("nan")), "resources"),
    (lambda d: freshgp.simulate(d, "NAD", host_cap=0), "host_cap"),
    (lambda d: freshgp.simulate(d, "NAD", decision="best"), "decision"),
    (lambda d: freshgp.simulate(d, "NAD", decision="sample", host_cap=2), "decision"),
    (lambda d: freshgp.simulate(d, "NAD", period="later"), "period `later`"),
    (lambda d: freshgp.simulate(d, "NAD", runs=0), "runs 0: expected 1 to 10000"),
    (lambda d: freshgp.simulate(d, "NAD", runs=10**15), "expected 1 to 10000"),
    (lambda d: freshgp.baselines(d, ["NAD", "lambda", "NAD"]), "`NAD` is listed twice"),
    (lambda d: freshgp.evolve(d, seed_formulas="NAD * t"), "one string"),
    (lambda d: freshgp.evolve(d, seeds=10**15), "seeds 1000000000000000: expected 1 to 10000"),
    (lambda d: freshgp.simulate(d, "model:/nonexistent/m.json"), "m.json"),
    (lambda d: freshgp.baselines(d, "NAD"), "one string"),
    (lambda d: freshgp.baselines(d, ["NAD"], test_horizon="all"), "test_horizon"),
    (lambda d: freshgp.evolve(d, seeds=0), "seeds 0: expected 1 to 10000"),
    (lambda d: freshgp.evolve(d, rotation=5), "rotation 5"),
    (lambda d: freshgp.evolve(d, grammar="predictive"), "model"),
    (lambda d: freshgp.evolve(d, seed_formulas=["w * t"], grammar="basic"), "cannot read formula"),
    (lambda d: freshgp.evolve(d, progress=3), "progress: expected a callable"),
])
def test_bad_settings_are_errors(scoop, call, message):
    with pytest.raises(freshgp.FreshgpError, match=message):
        call(scoop)


SMALL = dict(population=24, generations=3, seeds=2, resources=0.1)


def test_evolve_is_the_commands_with_progress(cli, scoop):
    want = cli.json("evolve", "--data", SCOOP, "--population", 24, "--generations", 3, "--seeds", 2,
                    "--resources", 0.1, "--json", "--quiet")
    events = []
    got = freshgp.evolve(scoop, progress=events.append, **SMALL)
    assert untimed(got) == untimed(want)
    assert got["evaluations"] > 0 and got["seconds"] > 0 and got["host_cap"] is None
    generations = [e for e in events if e["event"] == "generation"]
    assert len(generations) == 2 * 4 and generations[-1]["generation"] == 3
    assert [e["seed_index"] for e in events if e["event"] == "selecting"] == [0, 1]


def test_a_sampled_search_is_the_commands(cli, scoop):
    want = cli.json("evolve", "--data", SCOOP, "--population", 24, "--generations", 3, "--seeds", 2,
                    "--resources", 0.1, "--train-sample", 0.5, "--json", "--quiet")
    got = freshgp.evolve(scoop, train_sample=0.5, **SMALL)
    assert untimed(got) == untimed(want)
    assert got["train_sample"] == 0.5
    assert 0 < got["sample_pages"] < got["set_sizes"][0]
    for bad in [0, 1, 1.5, float("nan")]:
        with pytest.raises(freshgp.FreshgpError, match=r"train_sample: page sample .* in \(0, 1\)"):
            freshgp.evolve(scoop, train_sample=bad, **SMALL)


def test_the_paper_protocol_and_a_gp_file_are_the_commands(cli, scoop, tmp_path):
    gp = tmp_path / "gp.ron"
    gp.write_text("(population: 20, generations: 2, keep_best: 5)")
    want = cli.json("evolve", "--data", SCOOP, "--gp-config", gp, "--seeds", 1, "--also-metrics", "none",
                    "--fitness", "wndcg", "--json", "--quiet")
    got = freshgp.evolve(scoop, gp_config=str(gp), seeds=1, also_metrics=[], fitness="wndcg")
    assert untimed(got) == untimed(want)
    want = cli.json("evolve", "--data", SCOOP, "--paper", "--population", 20, "--generations", 2,
                    "--seeds", 1, "--json", "--quiet")
    got = freshgp.evolve(scoop, paper=True, population=20, generations=2, seeds=1)
    assert untimed(got) == untimed(want)
    assert got["seeds"][0]["best_seed"] is None  # the paper starts from random formulas only
    for kwargs, message in [
        (dict(paper=True, gp_config=str(gp)), "paper: it sets the GP settings"),
        (dict(gp_config=str(tmp_path / "missing.ron")), "gp_config .*missing.ron: cannot read"),
        (dict(also_metrics=["speed"]), "also_metrics"),
        (dict(also_metrics="wndcg"), "one string"),
        (dict(population=0), "the GP settings"),
    ]:
        with pytest.raises(freshgp.FreshgpError, match=message):
            freshgp.evolve(scoop, seeds=1, **kwargs)


def test_an_exception_in_the_callback_stops_the_run(scoop):
    seen = []

    def stop(event):
        seen.append(event)
        if len(seen) == 2:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        freshgp.evolve(scoop, progress=stop, **SMALL)
    assert len(seen) == 2
    # The library is fine afterwards.
    assert freshgp.simulate(scoop, "NAD")["pages"] == scoop.pages


def test_ctrl_c_interrupts_a_run():
    # Python's own Ctrl-C handler, as in a terminal: a process started in the background
    # by a non-interactive shell inherits SIGINT ignored, and Python then keeps it so.
    script = textwrap.dedent(f"""
        import signal, sys, freshgp
        signal.signal(signal.SIGINT, signal.default_int_handler)
        d = freshgp.synth("brdc12", pages=20000, seed=1)
        print("ready", flush=True)
        try:
            freshgp.evolve(d, population=200, generations=200, seeds=5)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(0)
        sys.exit(1)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    started = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0 and out.strip() == "interrupted"
    assert time.monotonic() - started < 30


STUDY = """(
    name: "tiny",
    description: "two small GP runs and the baselines",
    dataset: Path("{data}"),
    rotations: [0, 1],
    resources: 0.1,
    seeds: 1,
    gp: (population: 16, generations: 2, keep_best: 4),
    configurations: [(name: "All-ChangeRate", grammar: "all", fitness: changerate)],
    baselines: [NAD, Age],
    reports: (strategies: [best], plots: false, csv: true),
)
"""


def untimed(value):
    """`value` without its `seconds` fields, at any depth."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_experiment_writes_the_commands_results(cli, tmp_path):
    study = tmp_path / "tiny.ron"
    study.write_text(STUDY.format(data=SCOOP))
    events = []
    files = freshgp.experiment(str(study), str(tmp_path / "py"), progress=events.append)
    listed = cli.run("experiment", study, "--out", tmp_path / "cli", "--quiet").stdout.split()
    # The command lists the report's files as Python returns them.
    assert [Path(f).relative_to(tmp_path / "cli") for f in listed] == \
        [Path(f).relative_to(tmp_path / "py") for f in files]
    mine = sorted(p.relative_to(tmp_path / "py") for p in (tmp_path / "py").rglob("*") if p.is_file())
    theirs = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*") if p.is_file())
    assert mine == theirs and {Path(f).relative_to(tmp_path / "py") for f in files} <= set(mine)
    for name in mine:
        a, b = (tmp_path / "py" / name).read_bytes(), (tmp_path / "cli" / name).read_bytes()
        if name.parts[0] == "units":
            # A unit records its wall-clock time; everything else is the same.
            a, b = (json.dumps(untimed(json.loads(x)), sort_keys=True) for x in (a, b))
        assert a == b, name
    assert [e["event"] for e in events][0] == "plan" and events[-1]["event"] == "finished"
    # A second run refuses the directory, as the command does, unless it resumes.
    with pytest.raises(freshgp.FreshgpError, match="already holds"):
        freshgp.experiment(str(study), str(tmp_path / "py"))
    freshgp.experiment(str(study), str(tmp_path / "py"), resume=True)


def test_a_run_releases_the_gil():
    """While Rust works, Python runs on: a busy loop in the main thread counts about as
    far during the run as it does alone in the same time (with the GIL held it would
    hardly count at all)."""
    import threading

    d = freshgp.synth("brdc12", pages=20000, seed=1)

    def spin(seconds: float) -> int:
        count, end = 0, time.monotonic() + seconds
        while time.monotonic() < end:
            count += 1
        return count

    alone = spin(0.3) / 0.3
    span = {}

    def work():
        span["start"] = time.monotonic()
        freshgp.evolve(d, population=100, generations=6, seeds=1)
        span["end"] = time.monotonic()

    worker = threading.Thread(target=work)
    worker.start()
    count = 0
    while worker.is_alive():
        count += 1
    worker.join()
    seconds = span["end"] - span["start"]
    assert seconds > 0.05, "the run is too short to tell"
    assert count > 0.2 * alone * seconds, (count, alone, seconds)
