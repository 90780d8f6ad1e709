"""A Scrapy scheduler that recrawls with freshgp: each ``scrapy crawl`` is one cycle of the
crawl, and the pages it downloads are the batch a freshgp policy (a policy name or an
evolved formula) picks from the site's known URLs.

Enable it in the project's settings::

    SCHEDULER = "freshgp.scrapy.RecrawlScheduler"
    FRESHGP_STATE = "crawl.state"            # the scheduler state (created if missing)
    FRESHGP_POLICY = "1 - exp(-NAD * t)"     # for a new state: any policy or formula
    FRESHGP_RESOURCES = 0.05                 # or FRESHGP_K = 1000: the batch size

A run of the spider is then one cycle ``d`` (1 + the state's latest cycle):

- A URL the state does not know yet is downloaded once as its *baseline*: its content hash
  is kept and the page is added to the state (in the order the spider asked for the URLs,
  which fixes the tie order), with no observation, since nothing earlier can tell whether
  it changed.
- In the warm-up cycles (``FRESHGP_WARMUP``, default 2, as in the simulation) every known
  URL is downloaded; after them, the batch of the state's policy for cycle ``d``. The
  spider's own requests for the batch's URLs pass (with their callbacks), once each; its
  requests for other known URLs are dropped; new URLs pass, once each. The batch's URLs
  the spider did not ask for are requested when it goes idle, with its default callback
  (``parse``).
- Each downloaded page (status 200, keyed by the URL first requested) is an observation: it
  changed if its content hash differs from the one kept. The observations are recorded
  and the state and the hashes saved when the spider closes having finished (close
  reason ``finished``), all at once: a crawl killed, interrupted or closed early (a
  timeout, an item count) records nothing, and the next run repeats the cycle. The
  hashes are ``{"cycle": latest observed cycle, "hashes": {url: hash}}``.

Politeness: ``FRESHGP_HOST_CAP`` pages of one host per batch at most. Without it, the cap
follows Scrapy's own settings: with a ``DOWNLOAD_DELAY``, Scrapy's downloader sends a host
(a download slot) one request per delay whatever its ``CONCURRENT_REQUESTS_PER_DOMAIN``,
so a cycle of ``FRESHGP_CYCLE_SECONDS`` seconds fits ``floor(cycle / delay)`` of them;
without a cycle length or a delay, no cap. Give ``FRESHGP_HOST_CAP`` where the delay is not
one number for every host: AutoThrottle, or ``DOWNLOAD_SLOTS`` with delays of their own.

Other settings: ``FRESHGP_GRAMMAR`` (the policy's grammar, default ``every``),
``FRESHGP_TIE_SEED`` (fixed when the state is created), ``FRESHGP_HASHES`` (the content
hashes, default ``<state>.hashes.json``), ``FRESHGP_WAIT`` (wait for another run's lock
instead of failing). Stats: ``freshgp/cycle``, ``freshgp/batch``, ``freshgp/recorded`` (1
when the cycle was recorded), ``freshgp/observed``, ``freshgp/changed``, ``freshgp/added``,
``freshgp/dropped``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from typing import Optional
from urllib.parse import urlsplit

from scrapy import Request
from scrapy import signals
from scrapy.core.scheduler import Scheduler as _ScrapyScheduler
from scrapy.exceptions import DontCloseSpider, NotConfigured

from . import FreshgpError, Scheduler


#: The meta key of the batch's requests the scheduler makes itself (already admitted).
_BATCH = "freshgp_batch"


def content_hash(body: bytes) -> str:
    """The hash a page's content is compared by (SHA-256, hexadecimal)."""
    return hashlib.sha256(body).hexdigest()


def host_of(url: str) -> Optional[str]:
    """The host a URL's page belongs to for the host cap and the terminal HR (None for a
    URL without one, such as ``file:``)."""
    return urlsplit(url).hostname or None


def host_cap(settings) -> Optional[int]:
    """The per-host cap of a batch from the crawl's settings (see the module docs)."""
    explicit = settings.get("FRESHGP_HOST_CAP")
    if explicit is not None:
        cap = int(explicit)
        if cap < 1:
            raise FreshgpError(f"FRESHGP_HOST_CAP {explicit}: give at least 1, or leave it unset")
        return cap
    cycle = settings.getfloat("FRESHGP_CYCLE_SECONDS", 0.0)
    delay = settings.getfloat("DOWNLOAD_DELAY", 0.0)
    if cycle <= 0 or delay <= 0:
        return None
    return max(1, math.floor(cycle / delay))


def _write_json(path: str, value) -> None:
    """Writes `value` as JSON to `path` atomically (a temporary file renamed over it)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".freshgp-", dir=folder)
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(value, out, sort_keys=True)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


class RecrawlScheduler(_ScrapyScheduler):
    """Scrapy's scheduler, admitting this cycle's freshgp batch and recording what the
    crawl found (see the module docs)."""

    @classmethod
    def from_crawler(cls, crawler):
        scheduler = super().from_crawler(crawler)
        settings = crawler.settings
        state = settings.get("FRESHGP_STATE")
        if not state:
            raise NotConfigured("freshgp.scrapy.RecrawlScheduler needs FRESHGP_STATE (the state file)")
        k, resources = settings.get("FRESHGP_K"), settings.get("FRESHGP_RESOURCES")
        if (k is None) == (resources is None):
            raise FreshgpError("freshgp.scrapy: give one of FRESHGP_K and FRESHGP_RESOURCES")
        scheduler.freshgp = _Cycle(
            state=state,
            policy=settings.get("FRESHGP_POLICY"),
            grammar=settings.get("FRESHGP_GRAMMAR", "every"),
            tie_seed=settings.get("FRESHGP_TIE_SEED"),
            hashes=settings.get("FRESHGP_HASHES") or f"{state}.hashes.json",
            k=None if k is None else int(k),
            resources=None if resources is None else float(resources),
            host_cap=host_cap(settings),
            warmup=settings.getint("FRESHGP_WARMUP", 2),
            wait=settings.getbool("FRESHGP_WAIT", False),
            stats=crawler.stats,
        )
        crawler.signals.connect(scheduler.freshgp.response_received, signal=signals.response_received)
        crawler.signals.connect(scheduler.spider_idle, signal=signals.spider_idle)
        scheduler.freshgp_engine = lambda: crawler.engine
        return scheduler

    def open(self, spider):
        opened = super().open(spider)
        self.freshgp.open()
        return opened

    def spider_idle(self, spider):
        """Requests the batch's URLs the spider has not asked for, once."""
        pending = self.freshgp.unasked()
        if not pending:
            return
        engine = self.freshgp_engine()
        for url in pending:
            engine.crawl(Request(url, meta={_BATCH: True}))
        raise DontCloseSpider

    def enqueue_request(self, request):
        if not request.meta.get(_BATCH) and not self.freshgp.admits(request.url):
            self.stats.inc_value("freshgp/dropped")
            return False
        return super().enqueue_request(request)

    def close(self, reason):
        closed = super().close(reason)
        self.freshgp.close(reason)
        return closed


class _Cycle:
    """One cycle of a recrawl: the batch, the new URLs, the downloads seen."""

    def __init__(self, *, state, policy, grammar, tie_seed, hashes, k, resources, host_cap,
                 warmup, wait, stats):
        self.state_path, self.policy, self.grammar = state, policy, grammar
        self.tie_seed = None if tie_seed is None else int(tie_seed)
        self.hashes_path, self.k, self.resources = hashes, k, resources
        self.host_cap, self.warmup, self.wait, self.stats = host_cap, warmup, wait, stats
        self.scheduler: Optional[Scheduler] = None
        self.batch: list = []  # this cycle's URLs, best first
        self.asked: set = set()  # URLs admitted this cycle
        self.new: dict = {}  # URL -> None, in the order first asked for
        self.seen: dict = {}  # URL -> content hash of this cycle's download

    def open(self) -> None:
        """Opens the state (taking its lock) and picks this cycle's batch."""
        self.scheduler = Scheduler(self.state_path, self.policy, grammar=self.grammar,
                                   tie_seed=self.tie_seed, wait=self.wait)
        self.hashes = self._hashes(self.scheduler.latest_cycle)
        self.cycle = self.scheduler.latest_cycle + 1
        self.stats.set_value("freshgp/cycle", self.cycle)
        if len(self.scheduler) == 0:
            urls = []
        elif self.cycle <= self.warmup:
            urls = sorted(u for u in self.hashes if u in self.scheduler)
        else:
            picks = self.scheduler.batch(k=self.k, resources=self.resources,
                                         host_cap=self.host_cap, cycle=self.cycle)
            urls = [p["page"] for p in picks]
        self.batch = urls
        self.in_batch = set(urls)
        self.stats.set_value("freshgp/batch", len(urls))

    def _hashes(self, latest: int) -> dict:
        """The content hashes as of the state's latest cycle. A run saves the state, then
        moves ``<hashes>.next`` over the hashes: a ``.next`` left by a run killed between
        the two is finished here if the state was saved, else dropped."""
        following = self.hashes_path + ".next"
        if os.path.exists(following):
            with open(following) as f:
                saved = json.load(f)
            if saved["cycle"] == latest:
                os.replace(following, self.hashes_path)
            else:
                os.unlink(following)
        if not os.path.exists(self.hashes_path):
            return {}
        with open(self.hashes_path) as f:
            saved = json.load(f)
        return saved["hashes"]

    def admits(self, url: str) -> bool:
        """Whether a request the spider makes is crawled: this cycle's batch and new URLs,
        each once."""
        if url in self.asked:
            return False
        if url in self.in_batch or url not in self.scheduler:
            self.asked.add(url)
            if url not in self.in_batch:
                self.new.setdefault(url, None)
            return True
        return False

    def unasked(self) -> list:
        """The batch's URLs the spider has not asked for (then counted as asked)."""
        pending = [u for u in self.batch if u not in self.asked]
        self.asked.update(pending)
        return pending

    def response_received(self, response, request, spider):
        if response.status != 200:
            return
        url = request.meta.get("redirect_urls", [request.url])[0]
        self.seen[url] = content_hash(response.body)

    def close(self, reason: str) -> None:
        """Records the cycle's downloads, saves the hashes and the state, releases the lock;
        a crawl that did not finish records nothing."""
        scheduler, self.scheduler = self.scheduler, None
        if scheduler is None:
            return
        try:
            if reason != "finished":
                self.stats.set_value("freshgp/recorded", 0)
                return
            # A known page with a kept hash is observed; any other download is a baseline.
            observed = [u for u in self.seen if u in scheduler and u in self.hashes]
            changed = [self.seen[u] != self.hashes[u] for u in observed]
            added = [u for u in self.new if u in self.seen and u not in scheduler]
            scheduler.add(added, hosts=[host_of(u) for u in added])
            if observed:
                scheduler.observe(observed, [self.cycle] * len(observed), changed,
                                  hosts=[host_of(u) for u in observed])
            self.hashes.update(self.seen)
            # The hashes as `.next`, the state, then the hashes in place, under the lock.
            following = self.hashes_path + ".next"
            _write_json(following, {"cycle": scheduler.latest_cycle, "hashes": self.hashes})
            scheduler.save()
            os.replace(following, self.hashes_path)
            self.stats.set_value("freshgp/recorded", 1)
            self.stats.set_value("freshgp/observed", len(observed))
            self.stats.set_value("freshgp/changed", sum(changed))
            self.stats.set_value("freshgp/added", len(added))
        finally:
            scheduler.close(save=False)
