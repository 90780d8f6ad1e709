#!/usr/bin/env python3
"""`freshgp schedule --emit-sql --dialect duckdb`, checked and timed in DuckDB.

Builds an observations table `visits(page, host, cycle, changed)` in DuckDB (synthetic
pages, or a log in freshgp's format `page<TAB>cycle<TAB>0|1[<TAB>host]`), runs the query
freshgp emits for it, runs `freshgp schedule` on the same observations, and checks that the
two batches agree apart from ties: the same scores best first (bit for bit) and, without a
host cap, the same pages above the batch's lowest score. Prints both timings.

    python3 examples/duckdb_schedule.py                      # 100,000 synthetic pages
    python3 examples/duckdb_schedule.py --pages 10000000 --k 500000   # 10 million pages
    python3 examples/duckdb_schedule.py --log crawl.tsv --policy "X / n * t" --k 500

The 10-million-page run is the measurement reported in
docs/src/results/performance.md#the-scheduler.

Installs DuckDB's Python package (`pip install duckdb`) if it is missing. Run it from the
repository (it builds freshgp with cargo unless --freshgp names a binary).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def duckdb_module():
    try:
        import duckdb
    except ImportError:
        print("installing DuckDB's Python package (pip install duckdb)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "duckdb"], check=True)
        import duckdb
    return duckdb


def freshgp_binary(given):
    if given:
        return given
    subprocess.run(["cargo", "build", "--release", "--quiet"], check=True)
    return os.path.join("target", "release", "freshgp")


def synthetic(con, pages, cycles, hosts, seed):
    """Pages visited with probability 40% each cycle; each page changes with its own
    probability; every tenth page has no host."""
    con.execute(f"""
        CREATE TABLE visits AS
        SELECT 'p' || CAST(p AS VARCHAR) AS page,
               CASE WHEN p % 10 = 0 THEN NULL ELSE 'h' || CAST(p % {hosts} AS VARCHAR) END AS host,
               CAST(c AS INTEGER) AS cycle,
               CAST(hash(p, c, {seed}) % 1000 < (hash(p, {seed} + 1) % 1000) * (hash(p, {seed} + 2) % 1000) / 1000
                    AS INTEGER) AS changed
        FROM range({pages}) t(p), range(1, {cycles} + 1) u(c)
        WHERE hash(p, c, {seed} + 3) % 100 < 40
    """)


def from_log(con, path):
    con.execute(f"""
        CREATE TABLE visits AS
        SELECT column0 AS page, CAST(column1 AS INTEGER) AS cycle, CAST(column2 AS INTEGER) AS changed,
               NULLIF(column3, '') AS host
        FROM read_csv('{path}', delim = '\t', header = false, all_varchar = true, null_padding = true)
    """)


def write_log(con, path):
    """The table as freshgp's log (host only where there is one)."""
    con.execute(f"""
        COPY (SELECT concat_ws(chr(9), page, CAST(cycle AS VARCHAR), CAST(changed AS VARCHAR), host)
              FROM visits ORDER BY cycle)
        TO '{path}' (HEADER false, DELIMITER '|', QUOTE '')
    """)


def timed(label, run):
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    print(f"{label}: {seconds:.2f} s", file=sys.stderr)
    return result, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--freshgp", help="the freshgp binary (default: cargo build --release)")
    ap.add_argument("--log", help="a log in freshgp's format instead of synthetic pages")
    ap.add_argument("--pages", type=int, default=100_000)
    ap.add_argument("--cycles", type=int, default=8)
    ap.add_argument("--hosts", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", default="X / n * t + CG")
    ap.add_argument("--k", type=int, default=10_000)
    ap.add_argument("--host-cap", type=int)
    ap.add_argument("--threads", type=int, help="DuckDB threads (default: all)")
    args = ap.parse_args()

    duckdb = duckdb_module()
    freshgp = freshgp_binary(args.freshgp)
    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.tsv")
        if args.log:
            from_log(con, args.log)
            log = args.log
        else:
            timed("synthetic observations", lambda: synthetic(con, args.pages, args.cycles, args.hosts, args.seed))
            write_log(con, log)
        rows, pages = con.execute("SELECT COUNT(*), COUNT(DISTINCT page) FROM visits").fetchone()
        print(f"{pages:,} pages, {rows:,} observations", file=sys.stderr)

        cap = ["--host-cap", str(args.host_cap)] if args.host_cap else []
        emit = [freshgp, "schedule", "--emit-sql", "--dialect", "duckdb", "--policy", args.policy,
                "--k", str(args.k)] + cap
        query = subprocess.run(emit, check=True, capture_output=True, text=True).stdout
        got, sql_seconds = timed("DuckDB, the emitted query", lambda: con.execute(query).fetchall())

        state = os.path.join(tmp, "state.fgs")
        run = [freshgp, "schedule", "--state", state, "--policy", args.policy, "--k", str(args.k),
               "--json", "--force-jump"] + cap
        out, fresh_seconds = timed("freshgp schedule, observations applied from the log",
                                   lambda: subprocess.run(run + ["--observe", log], check=True,
                                                          capture_output=True, text=True).stdout)
        _, saved_seconds = timed("freshgp schedule, from its saved state",
                                 lambda: subprocess.run(run, check=True, capture_output=True, text=True))

    want = json.loads(out)["batch"]
    score = lambda s: float(s) if not isinstance(s, str) else float(s.replace("inf", "Infinity"))
    got_scores = [g[2] for g in got]
    want_scores = [score(w["score"]) for w in want]
    problems = []
    if got_scores != want_scores:
        problems.append("the scores differ")
    if want_scores and not args.host_cap:
        lowest = want_scores[-1]
        above = lambda batch: sorted(p for p, s in batch if s > lowest)
        if above((g[0], g[2]) for g in got) != above((w["page"], score(w["score"])) for w in want):
            problems.append("the pages above the lowest score differ")
    print(json.dumps({"pages": pages, "observations": rows, "k": args.k, "host_cap": args.host_cap,
                      "policy": args.policy, "duckdb_seconds": round(sql_seconds, 3),
                      "freshgp_from_log_seconds": round(fresh_seconds, 3),
                      "freshgp_from_state_seconds": round(saved_seconds, 3),
                      "agree": not problems}))
    if problems:
        sys.exit("the batches disagree: " + "; ".join(problems))


if __name__ == "__main__":
    main()
