#!/bin/sh
# SPDX-License-Identifier: MIT
# seed-ranges.sh — one table row per seed of a tempo-sim match: the range
# over the players' peers (spectators left out) of the true skew, the
# time-sync stalls per 60 frames, the share of frames spent waiting, the
# mean rollback depth, and the match's desync events. docs/TIMESYNC.md
# quotes its rows (docs-check re-makes them).
# usage: seed-ranges.sh LABEL "SEEDS" TEMPO-SIM [OPTIONS...]
#        seed-ranges.sh --header       (the table's two header lines)
set -u
if [ "${1:-}" = --header ]; then
    echo "| match | seed | true skew | stalls / 60 frames | waiting % | mean rollback depth | desyncs |"
    echo "|---|---|---|---|---|---|---|"
    exit 0
fi
label=$1
seeds=$2
sim=$3
shift 3
tmp=$(mktemp "${TMPDIR:-/tmp}/seed-ranges.XXXXXX") || exit 2
trap 'rm -f "$tmp"' EXIT INT TERM
for seed in $seeds; do
    "$sim" "$@" --seed "$seed" --quiet --json "$tmp" >/dev/null 2>&1 || { echo "seed-ranges: seed $seed failed"; exit 1; }
    awk -v label="$label" -v seed="$seed" '
        function val(s) { sub(/^[^:]*: */, "", s); sub(/,$/, "", s); return s + 0 }
        function keep(k, v) { if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
        /^  "frames":/ { frames = val($0) }
        /^  "desyncs":/ { desyncs = val($0) }
        /"spectator":/ { spec = $0 ~ /true/ }
        !spec && /"frame_skew_abs_mean":/ { keep("skew", val($0)) }
        !spec && /"timesync_stalls":/ { keep("stalls", val($0) * 60 / frames) }
        !spec && /"waiting_ticks":/ { keep("wait", val($0) * 100 / frames) }
        !spec && /"rollback_depth_mean":/ { keep("depth", val($0)) }
        END { printf "| %s | %s | %.2f-%.2f | %.2f-%.2f | %.2f-%.2f | %.2f-%.2f | %d |\n", label, seed,
                  lo["skew"], hi["skew"], lo["stalls"], hi["stalls"], lo["wait"], hi["wait"],
                  lo["depth"], hi["depth"], desyncs }' "$tmp"
done
