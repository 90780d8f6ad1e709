#!/usr/bin/env bash
# Replaces each fuzz/corpus/<target>/ with its smallest subset that covers the same code
# (libFuzzer's -merge=1), the form the corpora are kept in the repository and replayed by
# tests/fuzz_corpora.rs. Run after fuzz/campaign.sh; takes the same --only list.
set -euo pipefail
cd "$(dirname "$0")"
targets=(formula dataset_text dataset_cache crawl_log observe_log weights experiment state model grammar preset cdx warc heritrix_log nutch_dump)
if [ "${1:-}" = --only ]; then IFS=, read -r -a targets <<<"$2"; fi
bin=${CARGO_TARGET_DIR:-target}/$(rustc -vV | sed -n 's/^host: //p')/release
for t in "${targets[@]}"; do
    [ -d "corpus/$t" ] || continue
    rm -rf "corpus/$t.min"
    mkdir "corpus/$t.min"
    "$bin/$t" -merge=1 -timeout=10 "corpus/$t.min" "corpus/$t" >"logs/$t.merge.log" 2>&1
    before=$(find "corpus/$t" -type f | wc -l)
    rm -rf "corpus/$t"
    mv "corpus/$t.min" "corpus/$t"
    printf '%-14s %6s inputs -> %5s (%s)\n' "$t" "$before" "$(find "corpus/$t" -type f | wc -l)" \
        "$(du -sh --apparent-size "corpus/$t" | cut -f1)"
done
