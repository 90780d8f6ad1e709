"""Formulas: parsed with the command's located errors, evaluated over numpy arrays by the
library's evaluator (checked against the formula's own exported Python), simplified,
printed and exported."""

import math

import numpy as np
import pytest

import freshgp

EVOLVED = "w * (1 - exp(-MLE * t)) + HR * X7 / tc"


def columns(pages: int, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    return {name: rng.integers(0, 9, pages).astype(np.float64) for name in freshgp.terminals()}


def exported(formula: freshgp.Formula):
    space: dict = {}
    exec(formula.export("python"), space)
    return space["score"]


@pytest.mark.parametrize("text", [EVOLVED, "(t * X + CG) / (n + 1) - exp(-NAD * t)",
                                  "log(X + 1) * pow(t, 2) / (n - X)", "1 - exp(-NAD * t)"])
def test_eval_is_the_exported_function(text):
    f = freshgp.Formula(text)
    data = columns(2000)
    got = f.eval(**data)
    score = exported(f)
    want = [score(**{t: data[t][i] for t in f.terminals}) for i in range(2000)]
    assert got.dtype == np.float64 and got.shape == (2000,)
    assert np.array_equal(got, np.array(want), equal_nan=True)


def test_eval_takes_numbers_ints_and_strided_arrays():
    f = freshgp.Formula("t * X + 1")
    t = np.arange(10)
    assert np.array_equal(f.eval(t=t, X=2), t * 2.0 + 1)
    strided = np.arange(20, dtype=np.float64)[::2]
    assert np.array_equal(f.eval(t=strided, X=1.0), strided + 1)
    assert np.array_equal(f.eval(t=5, X=2), [11.0])
    # Extra terminals are ignored, so one frame of every terminal serves every formula.
    assert f.eval(**columns(3)).shape == (3,)


@pytest.mark.parametrize("kwargs, message", [
    (dict(t=np.arange(3)), r"reads X: give each"),
    (dict(t=np.arange(3), X=np.arange(4)), r"X holds 4 values but t holds 3"),
    (dict(t=np.arange(3), X=np.array(["a", "b", "c"])), r"X: expected numbers, got a 1-D array of dtype <U1"),
    (dict(t=np.zeros((2, 2)), X=1), r"t: expected a 1-D array"),
    (dict(t=np.arange(3), X=1, tt=2), r"`tt` is not a terminal"),
    (dict(t=np.ma.masked_array([1.0, 2.0], mask=[0, 1]), X=1), r"t: a masked array"),
    (dict(t=np.array([1.0, np.nan]), X=1), r"t\[1\]: NaN is not a finite number"),
    (dict(t=np.array([1.0, 2.0]), X=float("inf")), r"X\[0\]: inf is not a finite number"),
])
def test_bad_columns_are_errors(kwargs, message):
    with pytest.raises(freshgp.FreshgpError, match=message):
        freshgp.Formula("t * X").eval(**kwargs)


def test_syntax_errors_quote_the_text_as_the_command_does(cli):
    with pytest.raises(freshgp.FreshgpError) as raised:
        freshgp.Formula("t * (X +")
    shown = cli.run("formula", "print", "t * (X +", "--grammar", "every", check=False).stderr
    assert str(raised.value) in shown
    assert "\n          ^\n" in str(raised.value)
    with pytest.raises(freshgp.FreshgpError, match="grammar `basic`"):
        freshgp.Formula("w * t", grammar="basic")
    with pytest.raises(freshgp.FreshgpError, match="grammar: "):
        freshgp.Formula("t", grammar="nosuchgrammar")


def test_simplify_latex_export_match_the_command(cli):
    text = "t * 1 + (X - X) + 2 * 3"
    f = freshgp.Formula(text, grammar="all")
    assert str(f.simplify()) == cli.run("formula", "print", text, "--grammar", "all", "--style", "simplified").stdout.strip()
    assert f.latex() == cli.run("formula", "print", text, "--grammar", "all", "--style", "latex").stdout.strip()
    for lang in ["python", "c", "java", "rust", "sql", "sql/duckdb", "sql/postgres", "sql/spark"]:
        args = ["formula", "export", text, "--grammar", "all", "--name", "rank"]
        args += ["--to", "sql", "--dialect", lang.split("/")[1]] if "/" in lang else ["--to", lang]
        assert f.export(lang, name="rank") == cli.run(*args).stdout
    with pytest.raises(freshgp.FreshgpError, match="cobol"):
        f.export("cobol")
    with pytest.raises(freshgp.FreshgpError, match="name"):
        f.export("c", name="int")


def test_a_formula_is_a_value():
    f = freshgp.Formula(EVOLVED)
    assert str(freshgp.Formula(str(f))) == str(f)
    assert freshgp.Formula(str(f)) == f and hash(freshgp.Formula(str(f))) == hash(f)
    assert len(f) == 15 and f.depth >= 4
    assert f.terminals == ["t", "w", "tc", "X7", "HR", "MLE"]
    assert repr(f) == f'Formula("{f}", grammar="every")'
    assert math.isclose(f.eval(**{t: 1.0 for t in f.terminals})[0], 1 - math.exp(-1) + 1)
