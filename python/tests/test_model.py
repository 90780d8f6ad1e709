"""Learned change models: trained as `freshgp model train` trains them (the same file),
read back, scoring rows, running as `model:` policies; the AUC table of `model eval`."""

import numpy as np
import pytest

import freshgp
from conftest import SCOOP


@pytest.fixture(scope="module")
def scoop():
    return freshgp.Dataset(str(SCOOP))


def test_training_writes_the_commands_model(cli, scoop, tmp_path):
    events = []
    model = freshgp.Model.train(scoop, progress=events.append)
    path = tmp_path / "py.json"
    model.save(str(path))
    cli.run("model", "train", "--data", SCOOP, "--out", tmp_path / "cli.json")
    assert path.read_text() == (tmp_path / "cli.json").read_text()
    assert [e["event"] for e in events].count("penalty") > 0
    trained = model.trained
    assert trained["examples"] > 0 and 0.5 < trained["validation_auc"] <= 1
    assert model.kind == "logistic" and model.horizon == 1
    again = freshgp.Model.load(str(path))
    assert again.to_json() == model.to_json() and again.trained is None
    # As a policy, it is what the command runs.
    want = cli.json("simulate", "--data", SCOOP, "--policy", f"model:{path}", "--period", "all", "--json")
    assert freshgp.simulate(scoop, f"model:{path}")["mean"] == want["mean"]
    with pytest.raises(freshgp.FreshgpError, match="exists; pass overwrite=True"):
        model.save(str(path))


def test_scores_rows_of_features(scoop):
    model = freshgp.Model.train(scoop, features=["freq1", "freq7"])
    assert model.features == ["freq1", "freq7"]
    scores = model.score(np.array([[0.0, 0.0], [1.0, 1.0]]))
    assert scores.shape == (2,) and scores[1] > scores[0]
    rows = np.random.default_rng(1).integers(0, 2, (50, 2))
    assert np.array_equal(model.score(np.asfortranarray(rows.astype(float))), model.score(rows))
    assert np.array_equal(model.score(rows.tolist()), model.score(rows))
    with pytest.raises(freshgp.FreshgpError, match="3 columns, but the model reads 2 features"):
        model.score(np.zeros((2, 3)))
    with pytest.raises(freshgp.FreshgpError, match="expected a 2-D array"):
        model.score(np.zeros(2))
    with pytest.raises(freshgp.FreshgpError, match=r"values\[1, 0\]: NaN is not a finite number"):
        model.score(np.array([[0.0, 1.0], [np.nan, 0.0]]))
    # An empty feature list is the default set, as the command's.
    assert freshgp.Model.train(scoop, features=[]).features == freshgp.Model.train(scoop).features


@pytest.mark.parametrize("partial", [None, ("nad", 0.2), ("uniform", 0.3)])
def test_the_auc_and_staleness_tables_are_the_commands(cli, scoop, tmp_path, partial):
    import json
    args = ["model", "eval", "--data", SCOOP, "--rotations", 1, "--json", tmp_path / "t.json"]
    if partial is None:
        got = freshgp.Model.eval(scoop, rotations=1, partial_policy=None)
        args += ["--partial-policy", "none"]
    elif partial[0] == "nad":
        got = freshgp.Model.eval(scoop, rotations=1)  # the command's default crawl
    else:
        got = freshgp.Model.eval(scoop, rotations=1, partial_policy=partial[0],
                                 partial_resources=partial[1])
        args += ["--partial-policy", partial[0], "--partial-resources", partial[1]]
    cli.run(*args)
    want = json.loads((tmp_path / "t.json").read_text())
    assert got == want
    # Every row of the AUC table is there; the staleness table exactly with a crawl.
    assert got["rows"] and ("stale" in got) == (partial is not None)
    if partial is not None:
        assert partial[0] in got["stale"]["crawl"].lower()


def test_bad_partial_crawls_are_errors(scoop):
    with pytest.raises(freshgp.FreshgpError, match="partial_resources 0"):
        freshgp.Model.eval(scoop, rotations=1, partial_resources=0)
    with pytest.raises(freshgp.FreshgpError, match="nosuchpolicy"):
        freshgp.Model.eval(scoop, rotations=1, partial_policy="nosuchpolicy")


@pytest.mark.parametrize("kwargs, message", [
    (dict(kind="forest"), "kind"),
    (dict(rotation=7), "rotation 7"),
    (dict(horizon=0), "horizon 0: the label horizon K must be at least 1"),
    (dict(features=["freq1", "colour"]), "features"),
    (dict(progress=3), "progress: expected a callable, got int"),
])
def test_bad_training_settings_are_errors(scoop, kwargs, message):
    with pytest.raises(freshgp.FreshgpError, match=message):
        freshgp.Model.train(scoop, **kwargs)


def test_bad_model_files_are_located_errors(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"format": "freshgp-model",\n "version": }')
    with pytest.raises(freshgp.FreshgpError, match=r"m.json:2"):
        freshgp.Model.load(str(path))
