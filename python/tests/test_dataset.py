"""Datasets: from files, from numpy arrays and from presets, equal to what the command
reads, writes and generates; bad arrays are errors that name the array and the place."""

import json

import numpy as np
import pytest

import freshgp
from conftest import SCOOP


def test_a_file_loads_as_the_command_reads_it(cli):
    d = freshgp.Dataset(str(SCOOP))
    assert (d.pages, d.cycles) == (len(d), 57)
    stats = cli.json("dataset", "stats", SCOOP, "--json", "--unknown", "paper")
    assert d.stats() == stats["stats"]
    assert d.fingerprint == freshgp.Dataset(str(SCOOP)).fingerprint


def test_arrays_make_the_history_the_text_format_holds(tmp_path):
    d = freshgp.Dataset(str(SCOOP), unknown="keep")
    changes = d.changes()
    masked = np.ma.masked_array(changes == 1, mask=changes == 2)
    ids, hosts = d.ids(), d.hosts()
    weights = d.weights() if d.stats()["weighted"] else None
    again = freshgp.Dataset.from_arrays(masked, weights=weights, hosts=hosts, ids=ids,
                                        attributes=dict(d.attributes()), unknown="keep")
    assert again.fingerprint == d.fingerprint
    assert np.array_equal(again.changes(), changes)
    path = tmp_path / "again.tsv"
    again.save(str(path))
    assert freshgp.Dataset(str(path), unknown="keep").fingerprint == d.fingerprint
    # The unknown-cycle policy applies as when a file is loaded.
    assert freshgp.Dataset.from_arrays(masked, ids=ids, hosts=hosts).pages == freshgp.Dataset(str(SCOOP)).pages


def test_attributes_hosts_and_weights_round_trip(tmp_path):
    changes = np.array([[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1]], dtype=np.int64)
    d = freshgp.Dataset.from_arrays(changes, weights=np.array([1, 2.5, 0]),
                                    hosts=["a.org", None, "a.org"], ids=["p", "q", "r"],
                                    attributes={"category": ["shoes", None, "hats"]},
                                    group="category")
    assert d.grouping == "category"
    assert d.hosts() == ["a.org", "", "a.org"]
    assert d.attributes() == [("category", ["shoes", None, "hats"])]
    path = tmp_path / "d.tsv"
    d.save(str(path))
    assert path.read_text().splitlines()[0] == "0110\tp\ta.org\tweight=1\tcategory=shoes"
    cache = tmp_path / "d.cache"
    d.save(str(cache), format="cache")
    assert freshgp.Dataset(str(cache), group="category").fingerprint == d.fingerprint
    assert freshgp.Dataset(str(path), group="category").fingerprint == d.fingerprint
    with pytest.raises(freshgp.FreshgpError, match="exists; pass overwrite=True"):
        d.save(str(path))
    d.save(str(path), overwrite=True)


def test_synth_is_the_commands_history(cli, tmp_path):
    out = tmp_path / "s.tsv"
    cli.run("dataset", "synth", "--preset", "commerce", "--pages", 300, "--seed", 4, "--out", out)
    mine = tmp_path / "mine.tsv"
    freshgp.synth("commerce", pages=300, seed=4).save(str(mine))
    assert mine.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("arrays, message", [
    (dict(changes=np.array([[0, 1], [2, 0]])), r"changes\[1, 0\]: 2 is not a change bit"),
    (dict(changes=np.array([[0, -1]])), r"changes\[0, 1\]: -1 is not a change bit"),
    (dict(changes=np.array([[0.0, np.nan]])), r"changes\[0, 1\]: NaN .* masked array"),
    (dict(changes=np.array(["0", "1"])), r"changes: expected a 2-D array"),
    (dict(changes=np.array([["0", "1"]])), r"changes: expected 0/1 \(bool or integers\), got a 2-D array of dtype <U1"),
    (dict(changes=np.zeros((0, 3))), r"changes: 0 pages × 3 cycles: a history has at least one page"),
    (dict(changes=np.zeros((3, 0))), r"changes: 3 pages × 0 cycles"),
    (dict(changes=np.ma.masked_array(np.zeros((2, 3)), mask=True)), r"every page was dropped by the unknown-cycle policy `paper`"),
    (dict(changes=np.zeros((2, 3)), hosts="ab"), r"hosts: expected one value per page, got one string"),
    (dict(changes=np.zeros((2, 3)), attributes=[("kind", ["a", "b"])]), r"attributes: expected a dict"),
    (dict(changes=np.zeros((2, 3)), attributes={"weight": ["1", "2"]}), r"reserved for the page's weight"),
    (dict(changes=np.zeros((2, 3)), weights=[1.0, np.nan]), r"weights\[1\]: NaN is not a weight"),
    (dict(changes=np.zeros((2, 3)), weights=[1.0, -2]), r"weights\[1\]: -2 is not a weight"),
    (dict(changes=np.zeros((2, 3)), weights=[1.0]), r"weights: holds 1 values, not 2"),
    (dict(changes=np.zeros((2, 3)), weights=[["a"], ["b"]]), r"weights: expected a 1-D array of numbers"),
    (dict(changes=np.zeros((2, 3)), ids=["a", 3]), r"ids\[1\]: expected a string, got int"),
    (dict(changes=np.zeros((2, 3)), ids=["a", "b\tc"]), r"ids\[1\]: `b\\tc` holds a TAB"),
    (dict(changes=np.zeros((2, 3)), hosts=["a"]), r"hosts: holds 1 values, not 2"),
    (dict(changes=np.zeros((2, 3)), attributes={"host": ["a", "b"]}), r"reserved for the host column"),
    (dict(changes=np.zeros((2, 3)), attributes={"kind": ["a", ""]}), r"attributes\[\"kind\"\]\[1\]: .*empty value"),
    (dict(changes=np.zeros((2, 3)), group="color"), r"group color"),
    (dict(changes=np.zeros((2, 3)), unknown="sometimes"), r"unknown: "),
])
def test_bad_arrays_are_located_errors(arrays, message):
    with pytest.raises(freshgp.FreshgpError, match=message):
        freshgp.Dataset.from_arrays(**arrays)


def test_empty_ids_and_hosts_are_none_as_in_the_text_format(tmp_path):
    d = freshgp.Dataset.from_arrays(np.eye(3, dtype=bool), hosts=[None, None, None], ids=["", "", ""])
    assert d.hosts() is None and d.ids() is None
    path = tmp_path / "d.tsv"
    d.save(str(path))
    assert freshgp.Dataset(str(path)).fingerprint == d.fingerprint


def test_bad_files_and_presets_are_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("0101\tp1\n01x1\tp2\n")
    with pytest.raises(freshgp.FreshgpError, match=r"bad.tsv:2:3"):
        freshgp.Dataset(str(bad))
    with pytest.raises(freshgp.FreshgpError, match="missing.tsv"):
        freshgp.Dataset(str(tmp_path / "missing.tsv"))
    with pytest.raises(freshgp.FreshgpError, match="nosuchpreset"):
        freshgp.synth("nosuchpreset")
    with pytest.raises(freshgp.FreshgpError, match="days: must be between 1 and 1,000,000"):
        freshgp.synth("brdc12", cycles=2**62)
    with pytest.raises(freshgp.FreshgpError, match="pages × days: must be at most 2"):
        freshgp.synth("brdc12", pages=2**31, cycles=1000)
    assert isinstance(freshgp.FreshgpError("x"), ValueError)
