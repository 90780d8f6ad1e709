"""freshgp from Python: change histories, scoring formulas, crawl simulations, genetic
programming, learned change models and the live scheduler of the ``freshgp`` Rust crate.

Every function wraps the library call of the command of the same name (``freshgp
simulate``, ``freshgp evolve``, ...) and gives its answers and its errors: bad input
raises :class:`FreshgpError` (a ``ValueError``) with the command line's located message.
Long runs release the GIL, report progress to an optional callback and stop on Ctrl-C.

    >>> import freshgp
    >>> d = freshgp.synth("brdc12", pages=2000, seed=1)
    >>> out = freshgp.simulate(d, "1 - exp(-NAD * t)", resources=0.05)
    >>> round(float(out["mean"]["changerate"]), 4) > 0
    True
"""

from __future__ import annotations

import json
import os
from typing import Callable, Optional, Sequence

import numpy as np

from . import _native
from ._native import (
    Dataset,
    Formula,
    FreshgpError,
    Model,
    Scheduler,
    StateLockedError,
    named_policies,
    synth,
    terminals,
)

__all__ = [
    "Dataset",
    "Formula",
    "FreshgpError",
    "Model",
    "Scheduler",
    "StateLockedError",
    "baselines",
    "columns",
    "evolve",
    "experiment",
    "from_cdx",
    "from_crawl_log",
    "from_nutch",
    "from_warc",
    "named_policies",
    "simulate",
    "synth",
    "terminals",
    "METRICS",
    "MEANS",
]

#: The per-cycle figures of a simulation: the keys of each cycle of a run's ``cycles``.
METRICS = ("change_rate", "wchange_rate", "ndcg", "freshness", "wndcg", "wfreshness",
           "newly_visited", "stale", "visited")

#: The five metrics a run is judged by, by the names ``metric=`` and ``fitness=`` take.
MEANS = ("changerate", "ndcg", "freshness", "wfreshness", "wndcg")


def columns(cycles: list) -> dict:
    """Per-cycle metric dicts (a run's ``cycles``, one rotation of a baseline's
    ``rotations``) as one numpy array per metric of :data:`METRICS`, ``cycle`` included."""
    out = {"cycle": np.array([c["cycle"] for c in cycles], dtype=np.int64)}
    for m in METRICS:
        kind = np.int64 if m in ("stale", "visited") else np.float64
        out[m] = np.array([c[m] for c in cycles], dtype=kind)
    return out


def _read_archive(form: str, paths, **settings) -> tuple:
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    dataset, report = _native.read_archive(form, [os.fsdecode(p) for p in paths], **settings)
    return dataset, json.loads(report)


def from_cdx(paths, *, cycle: str = "1d", redirects: Optional[str] = None,
             errors: Optional[str] = None, hosts: Optional[str] = None, sorted: bool = True,
             fields: Optional[str] = None, on_error: str = "skip", unknown: str = "paper",
             group: Optional[str] = None) -> tuple:
    """Reads CDX or CDXJ indexes (a path or a list of paths, gzip'd or not) into a history,
    as ``freshgp dataset from-cdx`` does: one page per URL key. ``redirects`` and
    ``errors`` are ``"unknown"`` (a failed download, the default) or ``"content"``;
    ``hosts`` is ``"name"`` (default) or ``"domain"``; ``sorted=False`` is the command's
    ``--unsorted``; ``fields`` names the fields of headerless classic lines. The history's
    unknown cycles are resolved by ``unknown`` as :class:`Dataset` does. Returns the
    dataset and the read's report (a dict: lines read, captures, failed, skipped, the first
    errors, ...)."""
    return _read_archive("cdx", paths, cycle=cycle, redirects=redirects, errors=errors,
                         hosts=hosts, sorted=sorted, fields=fields, on_error=on_error,
                         unknown=unknown, group=group)


def from_warc(paths, *, cycle: str = "1d", redirects: Optional[str] = None,
              errors: Optional[str] = None, hosts: Optional[str] = None,
              on_error: str = "skip", unknown: str = "paper",
              group: Optional[str] = None) -> tuple:
    """Reads WARC files (``.warc`` or ``.warc.gz``) into a history, as ``freshgp dataset
    from-warc`` does; the settings are :func:`from_cdx`'s. Returns the dataset and the
    read's report."""
    return _read_archive("warc", paths, cycle=cycle, redirects=redirects, errors=errors,
                         hosts=hosts, on_error=on_error, unknown=unknown, group=group)


def from_crawl_log(paths, *, cycle: str = "1d", redirects: Optional[str] = None,
                   errors: Optional[str] = None, hosts: Optional[str] = None,
                   on_error: str = "skip", unknown: str = "paper",
                   group: Optional[str] = None) -> tuple:
    """Reads Heritrix ``crawl.log`` files into a history, as ``freshgp dataset
    from-crawl-log`` does; the settings are :func:`from_cdx`'s. Returns the dataset and the
    read's report."""
    return _read_archive("crawl-log", paths, cycle=cycle, redirects=redirects,
                         errors=errors, hosts=hosts, on_error=on_error, unknown=unknown,
                         group=group)


def from_nutch(paths, *, cycle: str = "1d", redirects: Optional[str] = None,
               errors: Optional[str] = None, hosts: Optional[str] = None,
               on_error: str = "skip", unknown: str = "paper",
               group: Optional[str] = None) -> tuple:
    """Reads Nutch CrawlDb dumps (``readdb -dump``, one a moment, given together) into a
    history, as ``freshgp dataset from-nutch`` does; the settings are :func:`from_cdx`'s.
    Returns the dataset and the read's report."""
    return _read_archive("nutch", paths, cycle=cycle, redirects=redirects, errors=errors,
                         hosts=hosts, on_error=on_error, unknown=unknown, group=group)


def simulate(dataset: Dataset, policy: str, *, resources: Optional[float] = None,
             host_cap: Optional[int] = None, decision: Optional[str] = None,
             runs: Optional[int] = None, warmup: Optional[int] = None, tie_seed: int = 0,
             period: str = "all", rotation: int = 0, metric: Optional[str] = None,
             grammar: str = "every") -> dict:
    """Simulates a daily crawl of ``dataset`` with ``policy`` (a policy name, a formula or
    ``model:FILE``), as ``freshgp simulate --period all`` does, and returns its JSON as a
    dict. Settings left None take the command's defaults (resources 0.05, decision top-k,
    warm-up 2, metric ndcg: the metric a bandit is rewarded by).

    One run: ``scorer`` (the label), ``policy`` (text that parses back), ``pages``, ``k``,
    ``cycles`` (one dict per scored cycle; :func:`columns` makes numpy arrays of them),
    ``mean`` (each of the five metrics' mean) and, for a bandit, ``bandit`` (its arms and
    draws). With ``runs=R``: the runs with seeds 1..R, ``levels[0]`` holding each metric's
    median, interval and mean over the runs (``metrics``) and each run's means (``runs``).
    """
    return json.loads(_native.simulate(
        dataset, policy, resources=resources, host_cap=host_cap, decision=decision, runs=runs,
        warmup=warmup, tie_seed=tie_seed, period=period, rotation=rotation, metric=metric,
        grammar=grammar))


def baselines(dataset: Dataset, policies: Optional[Sequence[str]] = None, *,
              resources: Optional[float] = None, host_cap: Optional[int] = None,
              decision: Optional[str] = None, warmup: Optional[int] = None, tie_seed: int = 0,
              test_horizon: Optional[str] = None, metric: Optional[str] = None) -> dict:
    """Each policy (default: :func:`named_policies`) over the test sets of the five
    rotations, as ``freshgp baselines --json`` runs them, and returns its JSON as a dict:
    ``baselines`` maps each policy's label to its figures (each metric's ``mean``, ``ci95``
    and ``n``; ``policy``, text that parses back; ``captured``; ``random``; ``rotations``,
    the per-cycle metrics of each rotation; ``arms`` for a bandit), ``policies`` lists the
    labels in the order given, and the run's settings follow. ``captured`` (when
    ``"oracle"`` is listed, on a history with latent change probabilities; else None, and
    None for the oracle) is the share of the headroom over the best other policy on
    ``"wndcg"`` and ``"wfreshness"`` (the oracle's metrics), ``{"share", "over"}`` or None
    where the oracle does not lead."""
    if isinstance(policies, str):
        raise FreshgpError("policies: expected a list of policies, got one string")
    return json.loads(_native.baselines(
        dataset, None if policies is None else list(policies), resources=resources,
        host_cap=host_cap, decision=decision, warmup=warmup, tie_seed=tie_seed,
        test_horizon=test_horizon, metric=metric))


def evolve(dataset: Dataset, *, grammar: Optional[str] = None, fitness: Optional[str] = None,
           rotation: int = 0, seeds: Optional[int] = None, first_seed: Optional[int] = None,
           population: Optional[int] = None, generations: Optional[int] = None,
           tournament: Optional[int] = None, seed_formulas: Sequence[str] = (),
           literature_seeds: bool = True, train_resources: Sequence[float] = (),
           train_sample: Optional[float] = None,
           resources: Optional[float] = None, host_cap: Optional[int] = None,
           model: Optional[str] = None, test_horizon: Optional[str] = None,
           also_metrics: Optional[Sequence[str]] = None, gp_config: Optional[str] = None,
           paper: bool = False,
           progress: Optional[Callable[[dict], None]] = None) -> dict:
    """Evolves scoring formulas on one rotation, as ``freshgp evolve --json`` does, and
    returns its JSON as a dict (the winner of each strategy, the run's settings and totals,
    every seed's run). Settings left None take the command's defaults (grammar all, fitness
    ndcg, 5 seeds from 1, resources 0.05, test horizon temporal, the fitness's companion
    metrics); the library checks them all before the run, as it does the command's flags.
    ``train_sample`` (a share in (0, 1)) searches on that share of the training pages,
    whole hosts at a time, and judges the kept formulas on every training page.
    ``also_metrics`` (a list; empty for none), ``gp_config`` (a RON file of GP settings)
    and ``paper`` (the GP4C paper's protocol) are the command's ``--also-metrics``,
    ``--gp-config`` and ``--paper``. ``progress`` is called with a dict after each
    generation; Ctrl-C stops the run."""
    if isinstance(seed_formulas, str):
        raise FreshgpError("seed_formulas: expected a list of formulas, got one string")
    if isinstance(also_metrics, str):
        raise FreshgpError("also_metrics: expected a list of metrics, got one string")
    return json.loads(_native.evolve(
        dataset, grammar=grammar, fitness=fitness, rotation=rotation, seeds=seeds,
        first_seed=first_seed, population=population, generations=generations,
        tournament=tournament, seed_formulas=list(seed_formulas),
        literature_seeds=literature_seeds, train_resources=list(train_resources),
        train_sample=train_sample, resources=resources, host_cap=host_cap, model=model,
        test_horizon=test_horizon,
        also_metrics=None if also_metrics is None else list(also_metrics),
        gp_config=gp_config, paper=paper, progress=progress))


def experiment(path, out=None, *, resume: bool = False,
               progress: Optional[Callable[[dict], None]] = None) -> list:
    """Runs the study of an experiment file into ``out`` (default ``results/<name>``), as
    ``freshgp experiment`` does; ``resume=True`` keeps the units already stored. Returns
    the report's files. ``progress`` gets each event (plan, start, generation, finished)
    as a dict; Ctrl-C stops the run, and ``resume=True`` later finishes it."""
    return _native.experiment(path, out, resume=resume, progress=progress)
