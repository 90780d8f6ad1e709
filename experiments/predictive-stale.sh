#!/bin/sh
# The stale model study (docs/src/results/predictive.md#the-stale-model): does a model of
# the crawl's own question — is the page stale now, t cycles after the last visit, from
# what the crawl itself saw — save more crawls than NAD, CG, the crawl value, the change
# models (the predictive-crawling paper's) and an evolved formula over its prediction?
# On two histories of 10,000 product offers: the `commerce` preset, whose attributes
# carry little signal, and experiments/commerce-informative.ron, whose categories and
# brands drive change rates strongly. For each:
#   1. the history (seed 1: the study) and another draw of it (seed 2: where the formula
#      over P evolves, so that it never saw the study's pages);
#   2. the AUC table and the staleness table of `model eval` (calibration: Brier score,
#      reliability) at the visits of NAD at resources 0.2;
#   3. a stale model with a prior of no groups on seed 2 (one a policy can run) and GP
#      over the grammar `predictive` with it as P, weighted freshness, on seed 2: once
#      seeded with the literature's formulas (the default) and once from random formulas
#      only; each run's best formula (its policy text names the model when it reads P);
#   4. the request-driven savings against the blind crawler on seen, unseen and cold-start
#      pages at R_b 0.2-0.8 with per-cycle 95% intervals: under the seed paper's protocol
#      (every request draws), and with each page crawled at most once per cycle (where the
#      stale model also crawls by its probability, p:hazard).
# Run from anywhere: sh experiments/predictive-stale.sh   (FRESHGP=path/to/freshgp to
# choose the binary; by default it is built). Outputs go to results/predictive-stale/.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${FRESHGP:-}" ]; then
    cargo build --release --quiet
    FRESHGP=target/release/freshgp
fi
OUT=results/predictive-stale
mkdir -p "$OUT"
for name in commerce informative; do
    case $name in
        commerce) preset=commerce ;;
        informative) preset=experiments/commerce-informative.ron ;;
    esac
    dir="$OUT/$name"
    mkdir -p "$dir"
    for seed in 1 2; do
        "$FRESHGP" dataset synth --preset "$preset" --pages 10000 --days 57 --seed "$seed" \
            --out "$dir/offers-$seed.fgpd" --force
    done
    "$FRESHGP" model eval --data "$dir/offers-1.fgpd" --json "$dir/eval.json" --force \
        > "$dir/eval.txt"
    cat "$dir/eval.txt"
    "$FRESHGP" model train --kind hazard --prior-group none --data "$dir/offers-2.fgpd" \
        --out "$dir/flat.model.json" --force > "$dir/flat.model.txt"
    cat "$dir/flat.model.txt"
    policies="NAD,CG,value"
    for seeding in seeded random; do
        extra=""
        [ "$seeding" = random ] && extra="--no-literature-seeds"
        # shellcheck disable=SC2086
        "$FRESHGP" evolve --data "$dir/offers-2.fgpd" --grammar predictive --group category \
            --model "$dir/flat.model.json" --fitness wfreshness --population 300 \
            --generations 30 --seeds 1 $extra --json > "$dir/evolved-$seeding.json"
        policy=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["policy"])' \
            "$dir/evolved-$seeding.json")
        echo "evolved on seed 2 ($seeding): $policy" | tee "$dir/evolved-$seeding.txt"
        policies="$policies,$policy"
    done
    for protocol in seed once; do
        # Crawling by the stale model's probability (p:hazard) never crawls a page twice in
        # a cycle: it runs under once-per-cycle only, beside the others.
        extra=""
        learned=combined,stale:combined,network,hazard
        [ "$protocol" = once ] && extra="--once-per-cycle" && learned="$learned,p:hazard"
        # shellcheck disable=SC2086
        "$FRESHGP" requests --data "$dir/offers-1.fgpd" --group category \
            --pages seen,unseen,cold --policies "$policies" \
            --learned "$learned" $extra \
            --json "$dir/savings-$protocol.json" --force > "$dir/savings-$protocol.txt"
        cat "$dir/savings-$protocol.txt"
    done
done
