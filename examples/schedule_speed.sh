#!/bin/sh
# Times `freshgp schedule` on a crawler's state of ten million URLs: builds the state
# from a generated log (two cycles that download every page, three of half a million
# downloads each), then applies a log of a million downloads (990,000 known pages in
# random order, 10,000 new ones) and prints the next batch of 500,000 pages, then ranks
# the same state again with no log. Needs about 3 GB of disk and 6 GB of memory.
#
#   sh examples/schedule_speed.sh [DIR] [FRESHGP]
#
# DIR (default: a new temporary directory) keeps the files; FRESHGP is the command
# (default: target/release/freshgp, built first with `cargo build --release`).
set -eu
dir=${1:-$(mktemp -d)}
freshgp=${2:-target/release/freshgp}
mkdir -p "$dir"
awk 'BEGIN { srand(1); N = 10000000;
  for (p = 0; p < N; p++) { h = int(rand()^3 * 200000); host[p] = h;
    print "https://host" h ".example/page/" p "\t1\t" (rand() < 0.3) "\thost" h ".example" }
  for (p = 0; p < N; p++) print "https://host" host[p] ".example/page/" p "\t2\t" (rand() < 0.2)
  for (d = 3; d <= 5; d++) for (i = 0; i < 500000; i++) { p = int(rand() * N);
    print "https://host" host[p] ".example/page/" p "\t" d "\t" (rand() < 0.4) } }' > "$dir/base.log"
head -n 10000000 "$dir/base.log" | awk -F'\t' 'BEGIN { srand(2) }
  rand() < 0.099 { print $1 "\t6\t" (rand() < 0.3) }
  END { for (i = 0; i < 10000; i++) print "https://new.example/page/" (10000000 + i) "\t6\t0\tnew.example" }' \
  | shuf --random-source="$dir/base.log" > "$dir/day6.log"
rm -f "$dir/base.state"
"$freshgp" schedule --state "$dir/base.state" --formula "(t * X + CG) / (n + 1) - exp(-NAD * t)" \
  --observe "$dir/base.log" --k 10 > /dev/null
ls -l "$dir/base.state"
cp "$dir/base.state" "$dir/crawl.state"
echo "a million observations, then the batch:"
/usr/bin/time -f "%e s wall, %U s user, %S s system, %M KB" \
  "$freshgp" schedule --state "$dir/crawl.state" --observe "$dir/day6.log" --k 500000 > "$dir/batch.txt"
cp "$dir/base.state" "$dir/crawl.state"
echo "the batch alone:"
/usr/bin/time -f "%e s wall, %U s user, %S s system, %M KB" \
  "$freshgp" schedule --state "$dir/crawl.state" --k 500000 > /dev/null
