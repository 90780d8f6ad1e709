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
    assert got["mean"] == want["mean"]
    assert got["pages"] == want["pages"]
    for i, cycle in enumerate(want["cycles"]):
        for metric in freshgp.METRICS:
            assert got["cycles"][metric][i] == cycle[metric], (metric, i)
    assert got["cycles"]["change_rate"].dtype == np.float64
    assert got["cycles"]["visited"].dtype == np.int64


def test_repeated_runs_and_sampling_are_the_commands(cli, scoop):
    want = cli.json("simulate", "--data", SCOOP, "--policy", "NAD", "--period", "all", "--decision", "sample",
                    "--runs", 4, "--json")
    got = freshgp.simulate(scoop, "NAD", decision="sample", runs=4)
    assert got["seeds"] == want["seeds"] == [1, 2, 3, 4]
    runs = want["levels"][0]["runs"]
    for name in freshgp.MEANS:
        assert list(got["runs"][name]) == [r["means"][name] for r in runs]
        assert got["median"][name] == want["levels"][0]["metrics"][name]["median"]


def test_baselines_are_the_commands(cli, scoop):
    want = cli.json("baselines", "--data", SCOOP, "--policies", "NAD,lambda,Age", "--json")
    got = freshgp.baselines(scoop, ["NAD", "lambda", "Age"])
    assert list(got) == ["NAD", "lambda", "Age"]
    for name, row in want["baselines"].items():
        mine = got[name]["metrics"]
        for metric in freshgp.MEANS:
            assert mine[metric]["mean"] == row[metric]["mean"], (name, metric)
            assert mine[metric]["ci95"] == row[metric]["ci95"], (name, metric)
        assert len(got[name]["cycles"]) == 5
        assert sum(len(c["cycle"]) for c in got[name]["cycles"]) == mine["changerate"]["n"]


def test_the_oracles_headroom_is_the_commands(cli):
    # The sample is synthetic and records each page's latent change probability.
    sample = conftest.REPO / "datasets" / "brdc12-sample.tsv"
    listed = ["oracle", "NAD", "w * (1 - exp(-MLE * t))", "value"]
    want = cli.json("baselines", "--data", sample, "--policies", ",".join(listed), "--json")["baselines"]
    got = freshgp.baselines(freshgp.Dataset(str(sample)), listed)
    assert got["oracle"]["captured"] is None
    shares = 0
    for name in listed[1:]:
        label = got[name]["label"]
        assert got[name]["captured"] == want[label]["captured"], name
        assert sorted(got[name]["captured"]) == ["wfreshness", "wndcg"]
        for cell in got[name]["captured"].values():
            if cell is not None:
                shares += 1
                assert cell["over"] in [got[n]["label"] for n in listed[1:] if n != name]
    assert shares > 0, "the oracle leads somewhere on the sample"
    # Without the oracle listed, nothing is shared; on data without q, the oracle is refused.
    assert freshgp.baselines(freshgp.Dataset(str(sample)), ["NAD"])["NAD"]["captured"] is None
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
    for strategy in ["best", "sum_sigma", "avg_sigma"]:
        assert got[strategy] == want[strategy]
    assert untimed(got["seeds"]) == untimed(want["seeds"])
    generations = [e for e in events if e["event"] == "generation"]
    assert len(generations) == 2 * 4 and generations[-1]["generation"] == 3
    assert [e["seed_index"] for e in events if e["event"] == "selecting"] == [0, 1]


def test_a_sampled_search_is_the_commands(cli, scoop):
    want = cli.json("evolve", "--data", SCOOP, "--population", 24, "--generations", 3, "--seeds", 2,
                    "--resources", 0.1, "--train-sample", 0.5, "--json", "--quiet")
    got = freshgp.evolve(scoop, train_sample=0.5, **SMALL)
    assert got["train_sample"] == want["train_sample"] == 0.5
    assert 0 < got["sample_pages"] == want["sample_pages"] < got["set_sizes"][0]
    for strategy in ["best", "sum_sigma", "avg_sigma"]:
        assert got[strategy] == want[strategy]
    assert untimed(got["seeds"]) == untimed(want["seeds"])
    for bad in [0, 1, 1.5, float("nan")]:
        with pytest.raises(freshgp.FreshgpError, match=r"train_sample: page sample .* in \(0, 1\)"):
            freshgp.evolve(scoop, train_sample=bad, **SMALL)


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
    cli.run("experiment", study, "--out", tmp_path / "cli", "--quiet")
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
