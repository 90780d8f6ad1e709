"""The scheduler: the command's state files and lock, observations applied as the
command applies a log, batches ranked as the command ranks them."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import freshgp
from conftest import SCOOP

POLICY = "1 - exp(-NAD * t)"


def log_of(pages, cycles, changed, hosts):
    return "".join(f"{p}\t{c}\t{int(x)}\t{h}\n" for p, c, x, h in zip(pages, cycles, changed, hosts))


def history(cycles: int):
    d = freshgp.synth("brdc12", pages=600, seed=2)
    ids, hosts, bits = d.ids(), d.hosts(), d.changes()
    for c in range(cycles):
        yield c + 1, ids, bits[:, c] == 1, hosts


def test_observations_and_batches_are_the_commands(cli, tmp_path):
    mine, theirs = tmp_path / "py.state", tmp_path / "cli.state"
    with freshgp.Scheduler(str(mine), POLICY, tie_seed=3) as s:
        for cycle, ids, changed, hosts in history(6):
            summary = s.observe(ids, [cycle] * len(ids), list(changed), hosts=hosts)
            assert summary["observations"] == len(ids)
            log = tmp_path / f"day{cycle}.log"
            log.write_text(log_of(ids, [cycle] * len(ids), changed, hosts))
            args = ["schedule", "--state", theirs, "--observe", log, "--k", 25, "--host-cap", 5, "--json"]
            if cycle == 1:
                args += ["--policy", POLICY, "--tie-seed", 3]
            want = cli.json(*args)
            got = s.batch(k=25, host_cap=5)
            assert got == want["batch"]
            assert s.latest_cycle == cycle
        assert len(s) == len(ids) and ids[0] in s
    # The state the package saved is the command's, byte for byte.
    assert mine.read_bytes() == theirs.read_bytes()


def test_a_state_moves_between_the_package_and_the_command(cli, tmp_path):
    state = tmp_path / "crawl.state"
    log = tmp_path / "a.log"
    log.write_text("a\t1\t1\th1\nb\t1\t0\th1\nc\t1\t1\th2\n")
    cli.run("schedule", "--state", state, "--policy", "NAD", "--observe", log, "--k", 2)
    with freshgp.Scheduler(str(state)) as s:
        assert s.policy == "NAD" and len(s) == 3
        s.observe(["a", "d"], [2, 2], [False, True], weights=[None, 2.0])
        assert s.remove(["b", "zzz"]) == ["zzz"]
    out = cli.run("schedule", "--state", state, "--k", 5, "--json")
    picked = json.loads(out.stdout)["batch"]
    assert sorted(p["page"] for p in picked) == ["a", "c", "d"]
    assert [p["weight"] for p in picked if p["page"] == "d"] == [2.0]


def test_the_lock_is_the_commands(cli, tmp_path):
    state = tmp_path / "s.state"
    s = freshgp.Scheduler(str(state), "NAD")
    s.add(["a", "b"], hosts=["h", None])
    done = cli.run("schedule", "--state", state, "--k", 1, check=False)
    assert done.returncode != 0 and "in use by another scheduler run" in done.stderr
    with pytest.raises(freshgp.StateLockedError, match="wait=True"):
        freshgp.Scheduler(str(state))
    s.close()
    assert s.closed
    with pytest.raises(freshgp.FreshgpError, match="closed"):
        s.batch(k=1)
    s.close()  # twice: nothing
    assert cli.run("schedule", "--state", state, "--k", 2).stdout.split() == ["a", "b"]


def test_wait_takes_the_lock_when_it_is_released(tmp_path):
    state = tmp_path / "s.state"
    holder = freshgp.Scheduler(str(state), "NAD")
    holder.add(["a"])
    script = textwrap.dedent(f"""
        import freshgp
        with freshgp.Scheduler({str(state)!r}, wait=True) as s:
            print(len(s))
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(timeout=1.5)
    holder.close()
    out, _ = child.communicate(timeout=30)
    assert out.strip() == "1"


def test_an_exception_in_a_with_block_saves_nothing(tmp_path):
    state = tmp_path / "s.state"
    with freshgp.Scheduler(str(state), "NAD") as s:
        s.add(["a"])
    with pytest.raises(RuntimeError):
        with freshgp.Scheduler(str(state)) as s:
            s.add(["b"])
            raise RuntimeError("crash")
    with freshgp.Scheduler(str(state)) as s:
        assert len(s) == 1


@pytest.mark.parametrize("call, message", [
    (lambda s: s.observe(["a"], [1, 2], [True]), "cycles holds 2 values but pages holds 1"),
    (lambda s: s.observe(["a", "b\tc"], [1, 1], [True, True]), r"observations:2: page id `b\\tc` holds a TAB"),
    (lambda s: s.observe(["a"], [1], [True], hosts=["h\t0.5"]), r"observations:1: host `h\\t0.5` holds a TAB"),
    (lambda s: s.observe(["a"], [1], [True], attributes={"a=b": ["c"]}), r"observations:1: bad attribute key"),
    (lambda s: s.observe(["a"], [1], [True], attributes={"kind": ["x\ty=z"]}), r"observations:1: attribute kind `x\\ty=z` holds a TAB"),
    (lambda s: s.observe(["a"], [0], [True]), r"observations:1: cycle 0"),
    (lambda s: s.observe([""], [1], [True]), r"observations:1: empty page id"),
    (lambda s: s.observe("ab", [1, 1], [True, True]), r"pages: expected a list, got one string"),
    (lambda s: s.add([""]), r"pages\[0\]: page id `` must be non-empty"),
    (lambda s: s.observe(["a"], [100000], [True]), "more than max_jump=366.*pass max_jump=None"),
    (lambda s: s.add(["a"], weights=[float("nan")]), r"weights\[0\]: NaN is not a weight"),
    (lambda s: s.add(["a\nb"]), r"pages\[0\]: page id `a\\nb` must be non-empty, without TAB or line break"),
    (lambda s: s.batch(k=0), "k must be at least 1"),
    (lambda s: s.batch(), "give k or resources"),
    (lambda s: s.batch(resources=1.5), "resources 1.5"),
    (lambda s: s.batch(k=1, host_cap=0), "host_cap must be at least 1"),
    (lambda s: s.batch(k=1, host_cap=2, decision="sample"), "cannot take a host_cap"),
    (lambda s: s.batch(k=1, decision="best"), "decision"),
])
def test_bad_input_is_an_error_and_changes_nothing(tmp_path, call, message):
    with freshgp.Scheduler(str(tmp_path / "s.state"), "NAD") as s:
        with pytest.raises(freshgp.FreshgpError, match=message):
            call(s)
        assert len(s) == 0


def test_opening_checks_the_policy_and_the_seed(tmp_path):
    state = str(tmp_path / "s.state")
    with pytest.raises(freshgp.FreshgpError, match="does not exist: give a policy"):
        freshgp.Scheduler(state)
    with pytest.raises(freshgp.FreshgpError, match="nosuch"):
        freshgp.Scheduler(state, "nosuch")
    freshgp.Scheduler(state, "NAD", tie_seed=2).close()
    with pytest.raises(freshgp.FreshgpError, match="schedules with `NAD`, not `Age`"):
        freshgp.Scheduler(state, "Age")
    with pytest.raises(freshgp.FreshgpError, match="created with tie seed 2, not 5"):
        freshgp.Scheduler(state, tie_seed=5)
    damaged = tmp_path / "damaged.state"
    damaged.write_bytes(b"not a state")
    with pytest.raises(freshgp.FreshgpError, match="damaged.state"):
        freshgp.Scheduler(str(damaged))


def test_observations_take_attributes_and_odd_ids(cli, tmp_path):
    state = tmp_path / "s.state"
    with freshgp.Scheduler(str(state), "GR * t") as s:
        s.observe(["#c", "d", "e"], [1, 1, 1], [True, False, True], hosts=["h", "", None],
                  attributes={"kind": ["news", None, "shop"]})
        assert "#c" in s and len(s) == 3
    with pytest.raises(freshgp.FreshgpError, match="group color: no page has that attribute"):
        freshgp.Scheduler(str(state), group="color")
    with freshgp.Scheduler(str(state), group="kind") as s:
        assert len(s.batch(k=3)) == 3
    s = freshgp.Scheduler(str(state))
    s.close()
    with pytest.raises(freshgp.FreshgpError, match="closed"):
        with s:
            pass


def test_sampled_batches_carry_probabilities(tmp_path):
    with freshgp.Scheduler(str(tmp_path / "s.state"), "NAD") as s:
        s.observe([f"p{i}" for i in range(20)], [1] * 20, [i % 3 == 0 for i in range(20)])
        picks = s.batch(k=5, decision="sample")
        assert len(picks) == 5 and all(0 < p["probability"] <= 1 for p in picks)
