"""Histories from a crawler's files: the package reads CDX, CDXJ, WARC and Heritrix logs as
the command does (the same histories, bit for bit), and refuses bad settings by name."""

import pytest

import freshgp
from conftest import REPO

ARCHIVE = REPO / "examples" / "archive"


@pytest.mark.parametrize("reader, files, flags", [
    (freshgp.from_cdx, ["crawl.cdx"], {}),
    (freshgp.from_cdx, ["crawl.cdxj"], {"sorted": False}),
    (freshgp.from_cdx, ["wayback.txt"], {"cycle": "12h"}),
    (freshgp.from_warc, ["crawl.warc.gz"], {"redirects": "content", "errors": "content",
                                             "hosts": "domain"}),
    (freshgp.from_crawl_log, ["crawl.log"], {}),
    (freshgp.from_nutch, ["crawldb-1.txt", "crawldb-2.txt"], {"errors": "content"}),
])
def test_each_reader_gives_the_commands_history(cli, tmp_path, reader, files, flags):
    paths = [ARCHIVE / f for f in files]
    dataset, report = reader(paths if len(paths) > 1 else paths[0], unknown="keep", **flags)
    command = {"from_cdx": "from-cdx", "from_warc": "from-warc",
               "from_crawl_log": "from-crawl-log", "from_nutch": "from-nutch"}[reader.__name__]
    out = tmp_path / "h.tsv"
    args = []
    for key, value in flags.items():
        if key == "sorted":
            args.append("--unsorted")
        else:
            args += [f"--{key}", value]
    cli.run("dataset", command, *paths, "--out", out, *args)
    assert dataset.fingerprint == freshgp.Dataset(str(out), unknown="keep").fingerprint
    assert report["captures"] > 0 and report["skipped"] == 0 and report["errors"] == []
    assert report["unit"] == ("record" if command == "from-warc" else "line")


def test_the_report_counts_what_the_command_prints(tmp_path):
    bad = tmp_path / "bad.cdx"
    bad.write_text(" CDX N b a m s k\n"
                   "com,a)/ 20240101000000 http://a.com/ text/html 200 XYZ\n"
                   "com,a)/ 20240102000000 http://a.com/ text/html 404 -\n")
    dataset, report = freshgp.from_cdx(bad, unknown="keep")
    assert (dataset.pages, dataset.cycles) == (1, 1)
    assert report["read"] == 3 and report["captures"] == 1 and report["error_responses"] == 1
    assert report["skipped"] == 1
    assert report["errors"] == [f"{bad}:2:52: digest `XYZ`: 3 characters is no digest "
                                "(base32 of 32, 52 or 103 characters or hex of 32, 40, 64 or 128)"]
    with pytest.raises(freshgp.FreshgpError, match=r"bad.cdx:2:52: digest `XYZ`"):
        freshgp.from_cdx(bad, on_error="stop")


@pytest.mark.parametrize("settings, message", [
    ({"redirects": "maybe"}, "redirects: `maybe`: expected one of unknown, content"),
    ({"hosts": "site"}, "hosts: `site`: expected one of name, domain"),
    ({"on_error": "ignore"}, "on_error: `ignore`: expected skip or stop"),
    ({"cycle": "3y"}, "cycle length `3y`: unit must be s, m, h, d or w"),
    ({"fields": "a k"}, "fields: CDX fields `a k` name no URL key"),
])
def test_bad_settings_are_refused_by_name(settings, message):
    with pytest.raises(freshgp.FreshgpError, match=message.replace("(", r"\(")):
        freshgp.from_cdx(ARCHIVE / "crawl.cdx", **settings)


def test_a_missing_file_is_named():
    with pytest.raises(freshgp.FreshgpError, match="nowhere.cdx: cannot open"):
        freshgp.from_cdx("nowhere.cdx")
