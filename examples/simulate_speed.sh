#!/bin/sh
# Times `freshgp simulate --period all` as a user runs it, on a weighted, hosted history
# of 417,048 pages × 57 cycles that is not the `brdc12` preset (the `commerce` preset at
# that size, its weights at full precision as real importance scores are, so that nearly
# every page weighs its own), for the policies the studies spend their time on: a
# baseline, a GP4C formula, extended formulas (three chosen by real GP runs; one of them
# alone, under a host cap of 2 and under sampled decisions), the rate policies and a
# bandit. Prints million page-cycles per
# CPU-second (user and system time), with the CPU of loading the history (`freshgp dataset
# stats`) subtracted.
#
#   sh examples/simulate_speed.sh [DIR] [FRESHGP]
#
# DIR (default: a new temporary directory, left in place) keeps the history (about
# 20 MB); FRESHGP is the command (default: target/release/freshgp, which
# `cargo build --release` builds). PRESET=brdc12 (or any preset of `freshgp dataset
# synth`) times another history, and PAGES=N another size (too small a one runs in less
# CPU time than the load: `-`), and WEIGHTS=4 the preset's weights rounded to 4
# significant digits (the built-in presets' default; `full` unless given). Each simulation runs five times (`--runs 5`) on one core
# (RAYON_NUM_THREADS=1); the whole script takes about a minute.
set -eu
dir=${1:-$(mktemp -d)}
freshgp=${2:-target/release/freshgp}
preset=${PRESET:-commerce}
pages=${PAGES:-417048}
weights=${WEIGHTS:-full}
days=57
runs=5
export RAYON_NUM_THREADS=1
mkdir -p "$dir"
history="$dir/$preset-$pages-$weights.fgpd"
if [ ! -f "$history" ]; then
  "$freshgp" dataset synth --preset "$preset" --pages "$pages" --days $days --seed 1 \
    --weight-digits "$weights" --to binary --out "$history.part"
  mv "$history.part" "$history"
fi

# CPU seconds (user and system) of a command, its output discarded (its errors shown, and
# the script stopped, when it fails): the shell's `times`, whose second line is what its
# children used.
cpu() {
  times > "$dir/before"
  if ! "$@" > /dev/null 2> "$dir/log"; then
    cat "$dir/log" >&2
    exit 1
  fi
  times > "$dir/after"
  awk 'FNR == 2 { split($0, f, /[ms ]+/); s = 60 * f[1] + f[2] + 60 * f[3] + f[4]
         if (FILENAME == ARGV[1]) a = s; else b = s }
       END { print b - a }' "$dir/before" "$dir/after"
}

load=$(cpu "$freshgp" dataset stats "$history")
echo "loading the history: $load CPU-s"
echo "million page-cycles per CPU-second, load subtracted:"
run() {
  name=$1
  shift
  total=$(cpu "$freshgp" simulate --data "$history" --period all --runs "$runs" "$@")
  awk -v name="$name" -v t="$total" -v l="$load" -v p="$pages" -v d="$days" -v r="$runs" \
    'BEGIN { if (t > l) printf "%8.1f", r * p * d / (t - l) / 1e6; else printf "%8s", "-"
             printf "  %s (%.1f CPU-s)\n", name, t }'
}
evolved='(exp(MLE^0.5 * w) * tc)^0.1^tc * (w * (1 - exp(-MLE * t)))'
run "NAD" --policy NAD
run "GP4C formula" --formula "(t * X + CG) / (n + 1) - exp(-NAD * t)"
run "extended-15" --formula "w * (1 - exp(-MLE * t)) + HR * X7 / tc"
run "evolved-22" --formula "$evolved"
run "evolved-22, host cap 2" --formula "$evolved" --host-cap 2
run "evolved-15" --formula "(1 - (1 - (MLE + GAD + GAD + GAD))^t) * w"
run "evolved-19" --formula "(0.9504776000976563 - (0.9551849365234375 - (X + tc * HR) / (n + tc + tc))^t) * w"
for policy in lambda lambda-harmonic value weight kab5; do
  run "$policy" --policy $policy
done
run "NAD, sampled" --policy NAD --decision sample
run "evolved-22, sampled" --formula "$evolved" --decision sample
