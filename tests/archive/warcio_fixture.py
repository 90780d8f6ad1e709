"""Writes the WARC fixture of tests/archive/main.rs with warcio, an independent WARC
writer, and indexes it with cdxj-indexer (pywb's indexer) as CDXJ and as CDX 11.

Usage: python3 warcio_fixture.py DIR

Writes DIR/crawl.warc.gz (a gzip member per record), DIR/crawl.warc (the same records,
plain), DIR/crawl.cdxj and DIR/crawl.cdx (sorted, as pywb writes them). The captures, by
UTC day from 2024-01-01 (day 1), and the history each page must give:

- http://www.example.com/a?b=2&a=1: day 1 "one", day 2 "two", day 3 a revisit,
  day 5 "three"                                      -> 0 1 0 ? 1
- http://other.org/: day 1 a 301, days 2 and 3 "x", day 5 a 404 "gone"
                                                     -> ? 0 0 ? ?   (default rules)
                                                     -> 0 1 0 ? 1   (redirects and
                                                        errors as content)
- http://third.net/p: resource records, day 2 "r1", day 4 "r2" -> ? 0 ? 1 ?

plus a warcinfo, a request and a metadata record, which are not captures.
"""

import base64
import hashlib
import subprocess
import sys
from io import BytesIO
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

A = "http://www.example.com/a?b=2&a=1"
B = "http://other.org/"
C = "http://third.net/p"


def date(day, hour=10):
    return f"2024-01-{day:02d}T{hour:02d}:00:00Z"


def records(writer):
    yield writer.create_warcinfo_record("crawl.warc", {"software": "warcio fixture"})

    def response(url, day, status, body, hour=10):
        http = StatusAndHeaders(status, [("Content-Type", "text/html")], protocol="HTTP/1.1")
        return writer.create_warc_record(url, "response", payload=BytesIO(body),
                                         http_headers=http,
                                         warc_headers_dict={"WARC-Date": date(day, hour)})

    yield response(A, 1, "200 OK", b"one")
    request = StatusAndHeaders("GET /a?b=2&a=1 HTTP/1.1", [("Host", "www.example.com")],
                               is_http_request=True)
    yield writer.create_warc_record(A, "request", payload=BytesIO(b""), http_headers=request,
                                    warc_headers_dict={"WARC-Date": date(1)})
    yield response(B, 1, "301 Moved Permanently", b"moved", hour=11)
    yield response(A, 2, "200 OK", b"two")
    yield response(B, 2, "200 OK", b"x")
    yield writer.create_warc_record(C, "resource", payload=BytesIO(b"r1"),
                                    warc_content_type="text/plain",
                                    warc_headers_dict={"WARC-Date": date(2)})
    revisit = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
    # An identical-payload revisit: the digest of day 2's payload.
    two = "sha1:" + base64.b32encode(hashlib.sha1(b"two").digest()).decode()
    yield writer.create_revisit_record(A, digest=two, refers_to_uri=A,
                                       refers_to_date=date(2), http_headers=revisit,
                                       warc_headers_dict={"WARC-Date": date(3)})
    yield response(B, 3, "200 OK", b"x")
    yield writer.create_warc_record(C, "metadata", payload=BytesIO(b"outlinks: none"),
                                    warc_content_type="application/warc-fields",
                                    warc_headers_dict={"WARC-Date": date(3)})
    yield writer.create_warc_record(C, "resource", payload=BytesIO(b"r2"),
                                    warc_content_type="text/plain",
                                    warc_headers_dict={"WARC-Date": date(4)})
    yield response(A, 5, "200 OK", b"three")
    yield response(B, 5, "404 Not Found", b"gone")


def write(path, gzip):
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=gzip)
        for record in records(writer):
            writer.write_record(record)


def main():
    out = Path(sys.argv[1])
    write(out / "crawl.warc.gz", True)
    write(out / "crawl.warc", False)
    for flags, name in [([], "crawl.cdxj"), (["--cdx11"], "crawl.cdx")]:
        subprocess.run(["cdxj-indexer", "--sort", *flags, "-o", str(out / name),
                        str(out / "crawl.warc.gz")], check=True)


main()
