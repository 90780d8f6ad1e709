"""The Scrapy scheduler's settings and its recovery from a run killed between saving the
state and the hashes."""

import json

import pytest

import freshgp

pytest.importorskip("scrapy")
from scrapy.settings import Settings  # noqa: E402

from freshgp.scrapy import _Cycle, host_cap  # noqa: E402


@pytest.mark.parametrize("given, cap", [
    ({}, None),
    ({"FRESHGP_HOST_CAP": 3}, 3),
    ({"DOWNLOAD_DELAY": 0.5}, None),
    ({"FRESHGP_CYCLE_SECONDS": 60}, None),
    ({"FRESHGP_CYCLE_SECONDS": 60, "DOWNLOAD_DELAY": 0.5}, 8 * 120),
    ({"FRESHGP_CYCLE_SECONDS": 60, "DOWNLOAD_DELAY": 0.5, "CONCURRENT_REQUESTS_PER_DOMAIN": 1}, 120),
    ({"FRESHGP_CYCLE_SECONDS": 1, "DOWNLOAD_DELAY": 30, "CONCURRENT_REQUESTS_PER_DOMAIN": 1}, 1),
])
def test_the_host_cap_follows_the_politeness_settings(given, cap):
    assert host_cap(Settings(given)) == cap


def test_a_cap_below_one_is_refused():
    with pytest.raises(freshgp.FreshgpError, match="FRESHGP_HOST_CAP 0"):
        host_cap(Settings({"FRESHGP_HOST_CAP": 0}))


class Stats:
    def __init__(self):
        self.values = {}

    def set_value(self, key, value):
        self.values[key] = value


def cycle(tmp_path):
    return _Cycle(state=str(tmp_path / "s.state"), policy="NAD", grammar="every", tie_seed=None,
                  hashes=str(tmp_path / "h.json"), k=1, resources=None, host_cap=None, warmup=2,
                  wait=False, stats=Stats())


class Response:
    status = 200

    def __init__(self, body):
        self.body = body


class Request:
    meta: dict = {}

    def __init__(self, url):
        self.url = url


def crawl(tmp_path, pages: dict) -> _Cycle:
    c = cycle(tmp_path)
    c.open()
    for url in pages:
        c.admits(url)
        c.response_received(Response(pages[url]), Request(url), None)
    c.close("finished")
    return c


def test_a_run_killed_between_the_state_and_the_hashes_is_finished_or_dropped(tmp_path):
    crawl(tmp_path, {"http://a/1": b"x", "http://a/2": b"y"})  # discovery: baselines
    c = crawl(tmp_path, {"http://a/1": b"x2", "http://a/2": b"y"})  # cycle 1
    assert c.stats.values["freshgp/changed"] == 1
    saved = json.loads((tmp_path / "h.json").read_text())
    assert saved["cycle"] == 1
    # A `.next` for a cycle the state never saved is dropped...
    (tmp_path / "h.json.next").write_text(json.dumps({"cycle": 7, "hashes": {}}))
    c = cycle(tmp_path)
    c.open()
    assert c.hashes == saved["hashes"] and not (tmp_path / "h.json.next").exists()
    c.close("finished")
    # ...and one for the cycle the state did save replaces the old hashes.
    (tmp_path / "h.json.next").write_text(json.dumps({"cycle": 1, "hashes": {"http://a/1": "h"}}))
    c = cycle(tmp_path)
    c.open()
    assert c.hashes == {"http://a/1": "h"}
    c.close("finished")
