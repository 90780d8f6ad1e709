#!/usr/bin/env bash
# Writes the seed corpora, fuzz/seeds/<target>/, from the repository's own files and from
# files the freshgp binary writes (datasets, caches, states of every policy kind, models of
# every kind). The binary files are stored without their 4-byte checksum: the targets
# append the right one (fuzz/src/lib.rs, `with_checksum`), so that mutations reach the
# sections behind it. Rerun after a format changes; the corpora the campaign grew are in
# fuzz/corpus/ and are replayed beside these.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/freshgp
out=$PWD/fuzz/seeds
rm -rf "$out"
mkdir -p "$out"/{formula,dataset_text,dataset_cache,crawl_log,observe_log,weights,experiment,state,model,grammar,preset,cdx,warc,heritrix_log,nutch_dump}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Formulas: the literature's and some the studies evolved, one a file.
i=0
while IFS= read -r f; do
    i=$((i + 1))
    printf '%s' "$f" >"$out/formula/$i"
done <<'EOF'
t * X
1 - exp(-NAD * t)
w * (1 - exp(-MLE * t)) + HR * X7 / tc
(n7 + 1) / (tc + 2) * log(1 + t) - 0.5 ^ d
max(GR, P) * sqrt(w) / (1 + abs(t - 3.25e-2))
if(n > 2, MLE * t, X * t)
((t + 1) * (X + w)) / -(HR - 1e-3)
w * P / 0.01 + log(MLE)
EOF

# Histories: the real files' first lines, the sample with hosts and weights, attributes
# and unknown cycles.
for f in datasets/real/*.tsv datasets/brdc12-sample.tsv; do
    head -n 8 "$f" >"$out/dataset_text/$(basename "$f")"
done
"$bin" dataset synth --preset commerce --pages 12 --days 9 --seed 3 --out "$work/commerce.tsv" >/dev/null
cp "$work/commerce.tsv" "$out/dataset_text/commerce.tsv"
printf '01?1\tp\th\tweight=0.5\tcolor=red\n1?00\tq\n' >"$out/dataset_text/unknown.tsv"

# Caches of those histories.
for f in "$out"/dataset_text/*; do
    name=$(basename "$f")
    "$bin" dataset convert "$f" --out "$work/$name.fgpd" >/dev/null
    head -c -4 "$work/$name.fgpd" >"$out/dataset_cache/$name"
done

# A crawl log (dataset from-log).
cp examples/crawl.log "$out/crawl_log/crawl.log"
printf 'http://a/\t1700000000\tx\t304\nhttp://a/\t1700090000\t\t500\nhttp://b/\t2024-01-01\ty\t200\t1.5\n' \
    >"$out/crawl_log/statuses.log"

# Archives: CDX 11 with its header, the Wayback CDX server's lines, CDXJ (gzip'd too), a
# WARC of a response, a request, a revisit and a resource (gzip'd too), Heritrix crawl.log
# lines.
cat >"$out/cdx/cdx11" <<'END'
 CDX N b a m s k r M S V g
com,example)/a?a=1&b=2 20240101100000 http://www.example.com/a?b=2&a=1 text/html 200 7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG - - 326 254 crawl.warc.gz
com,example)/a?a=1&b=2 20240103100000 http://www.example.com/a?b=2&a=1 warc/revisit 200 VV4C5TNMO4H4N242MLSE7EEHH64X7MTL - - 382 2104 crawl.warc.gz
net,third)/p 20240102100000 http://third.net/p text/plain - KVZ6HG3GABEW2QHUSPIA5R3FQR42DFQH - - 247 1857 crawl.warc.gz
org,other)/ 20240101110000 http://other.org/ text/html 301 LYKCUS3F5O5MPNAKMJ6KYFHU67YESNAM - - 323 900 crawl.warc.gz
END
cat >"$out/cdx/wayback" <<'END'
com,example)/ 20240101000510 http://example.com/ text/html 200 HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA 1792
com,example)/ 20240103235959 http://example.com:80/ text/html 302 - 412
com,example)/ 20240105000000 http://example.com/ text/html 200 sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ 1801
END
cat >"$out/cdx/cdxj" <<'END'
!meta 0 {"format": "cdxj"}
com,example)/ 20240101100000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG", "length": "326"}
com,example)/ 20240102100000 {"url": "http://example.com/", "mime": "warc/revisit", "status": 304, "digest": "sha1:7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG"}
org,other)/ 20240101110000 {"url": "http://other.org/", "status": "404", "digest": "fe05bcdcdc4928012781a5f1a2737cbb52988e42"}
END
gzip -c -n "$out/cdx/cdxj" >"$out/cdx/cdxj.gz"
record() { # type, date, URI, body: one WARC record
    printf 'WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\nContent-Length: %s\r\n\r\n%s\r\n\r\n' \
        "$1" "$2" "$2" "$3" "${#4}" "$4"
}
{
    record response 2024-01-01T10:00:00Z http://a.org/ $'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\none'
    record request 2024-01-01T10:00:00Z http://a.org/ $'GET / HTTP/1.1\r\nHost: a.org\r\n\r\n'
    record revisit 2024-01-02T10:00:00Z http://a.org/ $'HTTP/1.1 304 Not Modified\r\n\r\n'
    record resource 2024-01-03T10:00:00Z http://b.org/f 'a file'
} >"$out/warc/plain.warc"
gzip -c -n "$out/warc/plain.warc" >"$out/warc/plain.warc.gz"
cat >"$out/heritrix_log/crawl.log" <<'END'
2024-01-01T10:00:00.100Z     1         62 dns:a.org P http://a.org/ text/dns #042 20240101100000050+20 sha1:HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA - content-size:62
2024-01-01T10:00:01.500Z   200       1792 http://a.org/ - - text/html #042 20240101100001000+480 sha1:HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA - content-size:2031
2024-01-01T10:00:02.000Z -9998          - http://b.org/x L http://a.org/ unknown #017 - - - -
2024-01-02T00:00:00.700Z   304          0 http://a.org/ - - text/html #042 20240101235959900+700 - - -
END
printf '2024-01-03T09:00:00.000Z   200 1801 http://a.org/ - - text/html #003 - fe05bcdcdc4928012781a5f1a2737cbb52988e42 - duplicate:digest\n' \
    >"$out/heritrix_log/hex-digest.log"

# Nutch CrawlDb dumps: the guide's two.
cp examples/archive/crawldb-1.txt examples/archive/crawldb-2.txt "$out/nutch_dump/"

# Observation logs.
printf 'p0\t2\t1\th0\t2.5\tcolor=red\np9\t2\t0\nq\t3\t1\t\t\tcategory=x\n# note\n\np0\t2\t0\n' \
    >"$out/observe_log/log1"
printf 'p1\t1\t1\tx\np2\t4\t0\th2\t0\np1\t1\t0\n' >"$out/observe_log/log2"

# Weights files.
printf 'p0\t0.5\np2\t3\n# comment\n' >"$out/weights/w1"
printf 'p1\t1e-3\nunknown\t2\n' >"$out/weights/w2"

# Experiment files, grammars and presets as they are.
for f in experiments/quick.ron experiments/predictive.ron experiments/bandit.ron \
    experiments/robust-commerce-nsga2.ron experiments/policies-capped.ron; do
    cp "$f" "$out/experiment/"
done
cp grammars/*.ron "$out/grammar/"
cp datasets/presets/*.ron "$out/preset/"

# Scheduler states: a formula, a baseline, a bandit with a pending batch, a grouped state
# with attributes, and a state after removals.
cd "$work"
printf 'a\t1\t1\th1\t2\tcategory=x\nb\t1\t0\th1\nc\t1\t1\th2\t0.5\tcategory=y\n' >day1
printf 'a\t2\t0\nc\t2\t1\nd\t2\t1\th3\n' >day2
state() {
    local name=$1
    shift
    "$bin" schedule --state "$name.state" --k 2 --observe day1 "$@" >/dev/null
    "$bin" schedule --state "$name.state" --k 2 --observe day2 >/dev/null
    head -c -4 "$name.state" >"$out/state/$name"
}
state formula --formula "t * X + w * GR"
state nad --policy nad
state bandit --policy "exp3(arms: [nad, formula(\"t * X\")], reward: changerate)"
state grouped --formula "GR * t" --group category
printf 'b\n' >gone
"$bin" schedule --state removed.state --k 1 --observe day1 --formula "t" >/dev/null
"$bin" schedule --state removed.state --k 1 --remove gone >/dev/null
head -c -4 removed.state >"$out/state/removed"

# Models: logistic (the default features), one over group rates, and the stale model (a
# network's file, a megabyte of weights, is too large to fuzz well).
"$bin" dataset synth --preset commerce --pages 400 --days 30 --seed 5 --out m.tsv >/dev/null
"$bin" model train --data m.tsv --out logistic.json >/dev/null
"$bin" model train --data m.tsv --out groups.json --features freq7,since_change,group:category >/dev/null
"$bin" model train --data m.tsv --out hazard.json --kind hazard >/dev/null
cp logistic.json groups.json hazard.json "$out/model/"
echo "seeds written to $out"
