#!/bin/sh
# The predictive-crawling study (learned change models, docs/src/reference/models.md, and
# request-driven crawling, docs/src/reference/requests.md), every step in order, on 10,000
# offers of the commerce preset (the same history experiments/predictive.ron synthesizes):
#   1. the dataset and the model experiments/predictive.ron uses (page-level features);
#   2. the AUC table of the predictive-crawling paper's Tables 2 and 3 (every baseline and
#      model, the network included; seen and unseen pages; full, partial and cold-start
#      observability);
#   3. the request-driven savings against uniform (the paper's Figure 11: seen, unseen,
#      cold start), for the policies and the learned models;
#   4. the study: GP over the extended terminals, over them plus n30, X30 and GR (grouped
#      by category), and over those plus P.
# Run from anywhere: sh experiments/predictive.sh   (FRESHGP=path/to/freshgp to choose
# the binary; by default it is built). Inputs and outputs go to results/.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${FRESHGP:-}" ]; then
    cargo build --release --quiet
    FRESHGP=target/release/freshgp
fi
IN=results/predictive-inputs
mkdir -p "$IN"
"$FRESHGP" dataset synth --preset commerce --pages 10000 --days 57 --seed 1 \
    --out "$IN/offers.fgpd" --force
"$FRESHGP" model train --data "$IN/offers.fgpd" \
    --features freq1,freq7,freq30,since_change,group:host --out "$IN/page.model.json" --force
"$FRESHGP" model eval --network --data "$IN/offers.fgpd" --json "$IN/auc.json" --force \
    | tee "$IN/auc.txt"
"$FRESHGP" requests --data "$IN/offers.fgpd" --pages seen,unseen,cold \
    --policies NAD,CG,lambda,value --learned combined,groups,network,stale:combined \
    --json "$IN/savings.json" --plot "$IN/savings.svg" --force | tee "$IN/savings.txt"
"$FRESHGP" experiment experiments/predictive.ron --resume
