#!/usr/bin/env bash
# Fuzzes every reader with libFuzzer on the stable toolchain (cargo fuzz, --sanitizer none,
# with debug assertions, so an integer overflow is a crash rather than a silent wrap),
# one target after another, each until it has run RUNS inputs or SECONDS seconds, whichever
# comes first, growing fuzz/corpus/<target> from fuzz/seeds/<target>.
#
#   fuzz/campaign.sh                     # the recorded campaign: 10^7 inputs or 2 hours each
#   fuzz/campaign.sh --seconds 5         # CI's short run (about a minute in all)
#   fuzz/campaign.sh --only state,model  # some targets
#   fuzz/campaign.sh --seconds 5 --seed 1  # CI's brief run (.ci/run), libFuzzer's seed
#                                          # fixed so that a failure there reproduces
#   fuzz/campaign.sh --dev ...             # an unoptimized build: quicker to build, but
#                                          # too slow for some corpus inputs' time limit
#
# Prints one line a target (executions, seconds, outcome) and exits non-zero if any target
# found a crash, a hang or a memory blow-up; libFuzzer saves the input under
# fuzz/artifacts/<target>/. Logs: fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")"

runs=10000000
seconds=7200
only=""
profile=release
seed=()
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --dev) profile=dev; shift ;;
    --seed) seed=(-seed="$2"); shift 2 ;;
    *) echo "unknown argument $1 (--runs N, --seconds S, --only a,b, --dev, --seed N)" >&2; exit 2 ;;
    esac
done

targets=(formula dataset_text dataset_cache crawl_log observe_log weights experiment state model grammar preset cdx warc heritrix_log nutch_dump)
[ -z "$only" ] || IFS=, read -r -a targets <<<"$only"

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --version 0.13.2 --quiet
build=(cargo fuzz build --sanitizer none -a "--$profile")
"${build[@]}" >/dev/null 2>&1 || "${build[@]}"
folder=release
[ "$profile" = release ] || folder=debug
# cargo fuzz builds into $CARGO_TARGET_DIR when it is set.
bin=${CARGO_TARGET_DIR:-target}/$(rustc -vV | sed -n 's/^host: //p')/$folder

mkdir -p logs
failed=0
printf '%-14s %12s %8s  %s\n' target executions seconds outcome
for t in "${targets[@]}"; do
    [ -d "seeds/$t" ] || { echo "no target $t" >&2; exit 2; }
    [ -x "$bin/$t" ] || { echo "the build left no $bin/$t" >&2; exit 2; }
    mkdir -p "corpus/$t" "artifacts/$t"
    dict=()
    [ -f "dict/$t.dict" ] && dict=(-dict="dict/$t.dict")
    start=$(date +%s)
    status=0
    "$bin/$t" "corpus/$t" "seeds/$t" "${dict[@]}" "${seed[@]}" -runs="$runs" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1 || status=$?
    elapsed=$(($(date +%s) - start))
    done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "logs/$t.log" | tail -1)
    if [ "$status" -eq 0 ]; then
        outcome="no crash"
    else
        outcome="FAILED (status $status): $(grep -m1 -E 'panicked|ERROR: libFuzzer' "logs/$t.log" || true)"
        failed=1
    fi
    printf '%-14s %12s %8s  %s\n' "$t" "${done_runs:-?}" "$elapsed" "$outcome"
done
exit $failed
