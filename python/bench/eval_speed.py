"""Formula.eval over numpy columns against the Rust evaluator on the same data.

    python python/bench/eval_speed.py [PAGES]

Writes random columns (counts for the counting terminals, rates and weights for the rest)
of PAGES pages (default 10,000,000) to a temporary directory, times ``Formula.eval`` over
them (best of 5, one thread, the GIL released), runs ``cargo run --release --example
eval_speed`` over the same files, and prints both, their ratio and the two checksums,
which must be equal: the Python module runs the Rust evaluator in place on numpy's memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import freshgp

REPO = Path(__file__).resolve().parents[2]
# Formulas of real GP runs over the extended grammar (experiments/robust-commerce.ron,
# GP4C_Extended-WNDCG; benches/heterogeneous.rs), and the benches' 15-node extended one.
FORMULAS = [
    "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
    "(exp(MLE^0.5 * w) * tc)^0.1^tc * (w * (1 - exp(-MLE * t)))",
    "w * (log(t + X) + log(log(w + (t + X)) + t) * MLE)",
]


def columns(pages: int) -> dict:
    rng = np.random.default_rng(1)
    counts = {"t": 60, "n": 57, "X": 40, "n7": 7, "X7": 7, "n30": 30, "X30": 30, "tc": 60}
    out = {}
    for name in freshgp.terminals():
        if name in counts:
            out[name] = rng.integers(0, counts[name] + 1, pages).astype(np.float64)
        else:
            out[name] = rng.random(pages)
    return out


def main() -> None:
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    data = columns(pages)
    with tempfile.TemporaryDirectory() as folder:
        for name, values in data.items():
            values.astype("<f8").tofile(Path(folder) / f"{name}.f64")
        print(f"{pages:,} pages; best of 5, one thread")
        print(f"{'nodes':>5} {'python s':>9} {'rust s':>9} {'ratio':>6}  formula")
        for text in FORMULAS:
            f = freshgp.Formula(text)
            given = {t: data[t] for t in f.terminals}
            best = float("inf")
            for _ in range(5):
                start = time.perf_counter()
                scores = f.eval(**given)
                best = min(best, time.perf_counter() - start)
            rust = json.loads(subprocess.run(
                ["cargo", "run", "--quiet", "--release", "--example", "eval_speed", "--", folder, text],
                cwd=REPO, check=True, capture_output=True, text=True).stdout)
            # Python's sum adds left to right, as the example does.
            checksum = sum(scores.tolist())
            assert rust["checksum"] == checksum, (rust["checksum"], checksum)
            print(f"{len(f):>5} {best:>9.3f} {rust['seconds']:>9.3f} {best / rust['seconds']:>6.2f}  {text}")


if __name__ == "__main__":
    main()
