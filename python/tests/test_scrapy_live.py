"""A real Scrapy crawl with the freshgp scheduler over a live local site whose pages change
day by day as a known history says, checked against the simulation of the same policy on
the same history: the same pages downloaded each cycle, and the same change rate and
freshness, exactly.

The site: four HTTP servers on 127.0.0.1-4 (four hosts, loopback only), serving page p at
day d as text naming its version, the number of changes of p up to d. Each cycle is one
``scrapy runspider`` run (bounded by CLOSESPIDER_TIMEOUT); the test moves the site's day
between runs. Cycle 0 is the discovery crawl (every page's baseline), cycles 1-2 the
warm-up, cycles 3.. the policy's batches under the host cap that Scrapy's politeness
settings give.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import freshgp

scrapy_module = pytest.importorskip("scrapy")
from freshgp.scrapy import content_hash  # noqa: E402

HOSTS = 4
PAGES = 120
CYCLES = 12
RESOURCES = 0.1
POLICY = "(1 - exp(-NAD * t)) * w + X / (n + 1)"
# Scrapy's politeness: one request per 0.01 s to a host, in a cycle of 0.04 s: a host
# serves at most floor(0.04 / 0.01) = 4 pages per cycle.
POLITENESS = {"DOWNLOAD_DELAY": "0.01", "FRESHGP_CYCLE_SECONDS": "0.04"}
HOST_CAP = 4


class Site:
    """The pages' versions by day, served over HTTP; counts the requests of each day."""

    def __init__(self, changes: np.ndarray):
        # versions[p, d]: changes of page p in days 1..d (day 0: none).
        self.versions = np.concatenate([np.zeros((changes.shape[0], 1), dtype=np.int64),
                                        np.cumsum(changes, axis=1)], axis=1)
        self.day = 0
        self.requested: list = []
        self.lock = threading.Lock()

    def body(self, p: int, day: int) -> bytes:
        return f"<html><body>page {p}, version {self.versions[p, day]}</body></html>".encode()


def serve(site: Site, address: str) -> ThreadingHTTPServer:
    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            try:
                p = int(self.path.rsplit("/", 1)[1])
                body = site.body(p, site.day)
            except (ValueError, IndexError):
                self.send_error(404)
                return
            with site.lock:
                site.requested.append(p)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((address, 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def crawl(tmp: Path, urls_file: Path, state: Path) -> list:
    """One cycle: a `scrapy runspider` run; returns its items (one a download)."""
    settings = {
        "SCHEDULER": "freshgp.scrapy.RecrawlScheduler",
        "FRESHGP_STATE": str(state),
        "FRESHGP_POLICY": POLICY,
        "FRESHGP_RESOURCES": str(RESOURCES),
        "LOG_LEVEL": "WARNING",
        "ROBOTSTXT_OBEY": "False",
        "TELNETCONSOLE_ENABLED": "False",
        "RETRY_ENABLED": "False",
        "CLOSESPIDER_TIMEOUT": "60",
        "FEEDS": json.dumps({"items.jsonl": {"format": "jsonlines", "overwrite": True}}),
        **POLITENESS,
    }
    command = [sys.executable, "-m", "scrapy", "runspider", str(Path(__file__).with_name("site_spider.py")),
               "-a", f"urls={urls_file}"]
    for key, value in settings.items():
        command += ["-s", f"{key}={value}"]
    done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    items = tmp / "items.jsonl"
    return [json.loads(line) for line in items.read_text().splitlines()] if items.exists() else []


def test_a_live_crawl_reaches_what_the_simulation_computes(tmp_path):
    history = freshgp.synth("brdc12", pages=PAGES, seed=5, cycles=CYCLES)
    changes = history.changes()
    site = Site(changes)
    servers = [serve(site, f"127.0.0.{h + 1}") for h in range(HOSTS)]
    try:
        urls = [f"http://127.0.0.{p % HOSTS + 1}:{servers[p % HOSTS].server_address[1]}/page/{p}"
                for p in range(PAGES)]
        # The same history as the site, with the site's hosts and the pages in URL order.
        dataset = freshgp.Dataset.from_arrays(changes, hosts=[f"127.0.0.{p % HOSTS + 1}" for p in range(PAGES)])
        urls_file = tmp_path / "urls.txt"
        urls_file.write_text("\n".join(urls) + "\n")
        state = tmp_path / "crawl.state"
        crawled, change_rate, freshness = [], [], []
        for day in range(CYCLES + 1):
            site.day = day
            site.requested = []
            before = _hashes(tmp_path)
            items = crawl(tmp_path, urls_file, state)
            after = _hashes(tmp_path)
            got = sorted(site.requested)
            assert len(got) == len(set(got)), f"day {day}: a page was downloaded twice"
            # The spider's own callback got every download.
            assert sorted(int(i["url"].rsplit("/", 1)[1]) for i in items if i["callback"] == "page") == got
            if day <= 2:
                assert got == list(range(PAGES)), f"day {day}: discovery and warm-up fetch every page"
                continue
            crawled.append(got)
            k = int(PAGES * RESOURCES)
            found = sum(after[urls[p]] != before[urls[p]] for p in got)
            change_rate.append(found / k)
            fresh = sum(after[urls[p]] == content_hash(site.body(p, day)) for p in range(PAGES))
            freshness.append(fresh / PAGES)
        # A spider that asks for none of the batch's URLs: they are requested when it goes
        # idle, with its default callback, and the cycle is recorded (the site as on the
        # last day).
        site.requested = []
        urls_file.write_text("")
        idle = crawl(tmp_path, urls_file, state)
        assert len(site.requested) == int(PAGES * RESOURCES)
        assert {i["callback"] for i in idle} == {"parse"} and len(idle) == len(site.requested)
    finally:
        for server in servers:
            server.shutdown()
    sim = freshgp.simulate(dataset, POLICY, resources=RESOURCES, host_cap=HOST_CAP)
    assert sim["k"] == int(PAGES * RESOURCES)
    cycles = freshgp.columns(sim["cycles"])
    assert np.array_equal(cycles["cycle"], np.arange(3, CYCLES + 1))
    assert change_rate == list(cycles["change_rate"])
    assert freshness == list(cycles["freshness"])
    # The host cap held, and it binds: without it the policy would crawl other pages.
    per_host = [max(np.bincount([p % HOSTS for p in got], minlength=HOSTS)) for got in crawled]
    assert max(per_host) == HOST_CAP
    uncapped = freshgp.simulate(dataset, POLICY, resources=RESOURCES)
    assert [c["change_rate"] for c in uncapped["cycles"]] != change_rate
    with freshgp.Scheduler(str(state)) as s:
        assert s.latest_cycle == CYCLES + 1 and len(s) == PAGES


def _hashes(folder: Path) -> dict:
    path = folder / "crawl.state.hashes.json"
    return json.loads(path.read_text())["hashes"] if path.exists() else {}
