"""Checks and converts the numpy arrays users hand to freshgp, before the native module
reads them: a wrong dtype, shape or value is a ``FreshgpError`` naming the array and the
place, never a crash or a silent cast."""

from __future__ import annotations

import numpy as np

from ._native import FreshgpError


def _kind(a: np.ndarray) -> str:
    return f"{a.ndim}-D array of dtype {a.dtype}"


def _floats(name: str, value, ndim: int, shape: str) -> np.ndarray:
    """`value` as a C-ordered float64 array of `ndim` dimensions (`shape` says which)."""
    if np.ma.isMaskedArray(value):
        raise FreshgpError(f"{name}: a masked array; give every cell a value")
    a = np.asarray(value)
    if a.dtype.kind not in "biuf":
        raise FreshgpError(f"{name}: expected numbers, got a {_kind(a)}")
    if a.ndim != ndim:
        raise FreshgpError(f"{name}: expected a {ndim}-D array ({shape}), got a {_kind(a)}")
    return np.ascontiguousarray(a, dtype=np.float64)


def float_column(name: str, value) -> np.ndarray:
    """A terminal's values as a contiguous 1-D float64 array."""
    return _floats(name, value, 1, "one value per page")


def _strings(name: str, values, pages: int, allow_none: bool) -> list:
    if values is None:
        return None
    if isinstance(values, str):
        raise FreshgpError(f"{name}: expected one value per page, got one string")
    values = list(values)
    if len(values) != pages:
        raise FreshgpError(f"{name}: holds {len(values)} values, not {pages} (one per page)")
    for i, v in enumerate(values):
        if v is None and allow_none:
            continue
        if not isinstance(v, str):
            raise FreshgpError(f"{name}[{i}]: expected a string, got {type(v).__name__} {v!r}")
    return values


def dataset_columns(changes, weights, hosts, ids, attributes):
    """The arrays of ``Dataset.from_arrays``, checked, in the native module's types."""
    mask = np.ma.getmaskarray(changes) if np.ma.isMaskedArray(changes) else None
    data = np.asarray(np.ma.getdata(changes))
    if data.ndim != 2:
        raise FreshgpError(f"changes: expected a 2-D array (pages × cycles), got a {_kind(data)}")
    if data.dtype.kind not in "biuf":
        raise FreshgpError(f"changes: expected 0/1 (bool or integers), got a {_kind(data)}")
    known = ~mask if mask is not None else np.ones(data.shape, dtype=bool)
    if data.dtype.kind == "f" and np.isnan(data[known]).any():
        p, c = np.argwhere(np.isnan(data) & known)[0]
        raise FreshgpError(
            f"changes[{p}, {c}]: NaN is not a change bit (0 or 1); mark unknown cycles with a masked array"
        )
    bad = (data != 0) & (data != 1) & known
    if bad.any():
        p, c = np.argwhere(bad)[0]
        raise FreshgpError(f"changes[{p}, {c}]: {data[p, c]} is not a change bit (0 or 1)")
    changed = np.ascontiguousarray(np.where(known, data, 0), dtype=np.uint8)
    pages = data.shape[0]
    if weights is not None:
        w = np.asarray(weights)
        if w.dtype.kind not in "biuf" or w.ndim != 1:
            raise FreshgpError(f"weights: expected a 1-D array of numbers, got a {_kind(w)}")
        weights = np.ascontiguousarray(w, dtype=np.float64)
    hosts = _strings("hosts", hosts, pages, allow_none=True)
    if hosts is not None:
        hosts = ["" if h is None else h for h in hosts]
    ids = _strings("ids", ids, pages, allow_none=False)
    if attributes is not None and not isinstance(attributes, dict):
        raise FreshgpError("attributes: expected a dict of key → one value (or None) per page")
    columns = []
    for key, values in (attributes or {}).items():
        if not isinstance(key, str):
            raise FreshgpError(f"attributes: the key {key!r} is not a string")
        columns.append((key, _strings(f"attributes[{key!r}]", values, pages, allow_none=True)))
    mask = None if mask is None or not mask.any() else np.ascontiguousarray(mask, dtype=bool)
    return changed, mask, ids, hosts, weights, columns


def float_rows(name: str, value) -> np.ndarray:
    """Rows of numbers as a C-ordered 2-D float64 array (rows × columns)."""
    return _floats(name, value, 2, "rows × features")
