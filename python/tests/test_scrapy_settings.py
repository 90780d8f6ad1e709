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
    # One request per delay to a host, whatever the concurrency (Scrapy's downloader).
    ({"FRESHGP_CYCLE_SECONDS": 60, "DOWNLOAD_DELAY": 0.5}, 120),
    ({"FRESHGP_CYCLE_SECONDS": 60, "DOWNLOAD_DELAY": 0.5, "CONCURRENT_REQUESTS_PER_DOMAIN": 16}, 120),
    ({"FRESHGP_CYCLE_SECONDS": 1, "DOWNLOAD_DELAY": 30}, 1),
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


def crawl(tmp_path, pages: dict, reason: str = "finished") -> _Cycle:
    c = cycle(tmp_path)
    c.open()
    for url in pages:
        c.admits(url)
        c.response_received(Response(pages[url]), Request(url), None)
    c.close(reason)
    return c


def latest(tmp_path) -> int:
    with freshgp.Scheduler(str(tmp_path / "s.state")) as s:
        return s.latest_cycle


def test_a_crawl_that_did_not_finish_records_nothing(tmp_path):
    crawl(tmp_path, {"http://a/1": b"x"})
    for reason in ["shutdown", "closespider_timeout", "cancelled"]:
        c = crawl(tmp_path, {"http://a/1": b"x2"}, reason)
        assert c.stats.values["freshgp/recorded"] == 0 and latest(tmp_path) == 0
    c = crawl(tmp_path, {"http://a/1": b"x2"})
    assert c.stats.values["freshgp/changed"] == 1 and latest(tmp_path) == 1


def test_urls_are_admitted_once_and_known_ones_only_in_the_batch(tmp_path):
    crawl(tmp_path, {"http://a/1": b"x", "http://a/2": b"y", "file:///tmp/p": b"z"})
    c = cycle(tmp_path)
    c.open()
    assert sorted(c.batch) == ["file:///tmp/p", "http://a/1", "http://a/2"]  # warm-up: all
    assert c.admits("http://a/1") and not c.admits("http://a/1")
    assert c.admits("http://a/3") and not c.admits("http://a/3")
    assert sorted(c.unasked()) == ["file:///tmp/p", "http://a/2"] and c.unasked() == []
    c.close("shutdown")


@pytest.mark.parametrize("fails", ["_write_json", "save", "replace"])
def test_a_close_cut_short_at_any_step_is_recovered(tmp_path, monkeypatch, fails):
    """A kill at each step of saving: the next run finds the state and the hashes of the
    same cycle, either the old cycle's (the cycle repeats) or the new one's."""
    import freshgp.scrapy as module

    crawl(tmp_path, {"http://a/1": b"x", "http://a/2": b"y"})
    crawl(tmp_path, {"http://a/1": b"x2", "http://a/2": b"y"})  # cycle 1
    old = json.loads((tmp_path / "h.json").read_text())

    class Killed(Exception):
        pass

    def die(*args, **kwargs):
        raise Killed

    if fails == "_write_json":
        monkeypatch.setattr(module, "_write_json", die)
    elif fails == "replace":
        real, calls = module.os.replace, []

        def die_second(*args):
            # The first rename is _write_json's (the `.next` file); the second puts the
            # hashes in place, after the state was saved.
            calls.append(args)
            if len(calls) == 2:
                raise Killed
            return real(*args)

        monkeypatch.setattr(module.os, "replace", die_second)
    else:
        native = module.Scheduler

        class Dying:
            """The native scheduler, killed when it saves."""

            def __init__(self, *args, **kwargs):
                self.inner = native(*args, **kwargs)

            def __getattr__(self, name):
                return getattr(self.inner, name)

            def __len__(self):
                return len(self.inner)

            def __contains__(self, page):
                return page in self.inner

            def save(self):
                raise Killed

        monkeypatch.setattr(module, "Scheduler", Dying)
    with pytest.raises(Killed):
        crawl(tmp_path, {"http://a/1": b"x3", "http://a/2": b"y2"})  # cycle 2, cut short
    monkeypatch.undo()
    c = cycle(tmp_path)
    c.open()
    state_cycle = c.scheduler.latest_cycle
    if fails == "replace":
        assert state_cycle == 2 and c.hashes["http://a/1"] == module.content_hash(b"x3")
    else:
        assert state_cycle == 1 and c.hashes == old["hashes"]
    c.close("shutdown")


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
