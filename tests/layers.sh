#!/bin/sh
# SPDX-License-Identifier: MIT
# layers.sh — the source tree's layering rule, checked.
#
# src/ has one folder per layer (docs/ARCHITECTURE.md). A file may include
# headers of its own folder and of folders below it, never above or across:
#
#   session 6 > cs, relay 5 > interp, replay 4 > rollback, timing 3 > net 2 > wire 1 > base 0
#
# Internal includes name their folder ("rollback/sync.h"). The session API
# (tempo/session.h, or the umbrella tempo/tempo.h) is for rollback and above:
# base, wire and net see only the transport-level public headers. No two
# headers may include each other, directly or through others.
#
# Usage: layers.sh [SOURCE_DIR]; prints every violation, exits 1 if any.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top/src" || exit 2

find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r f; do
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed "s|^\([0-9]*\):.*\"\(.*\)\".*|$f \1 \2|"
done | awk '
function rank(l) {
    if (l == "base") return 0
    if (l == "wire") return 1
    if (l == "net") return 2
    if (l == "rollback" || l == "timing") return 3
    if (l == "interp" || l == "replay") return 4
    if (l == "cs" || l == "relay") return 5
    if (l == "session") return 6
    if (l == "p2p" || l == "lockstep" || l == "member" || l == "playback") return 7
    return -1
}
function bad(msg) { print msg; errors++ }
{
    file = $1; line = $2; inc = $3
    split(file, fp, "/"); layer = fp[1]
    where = "src/" file ":" line
    if (rank(layer) < 0) { bad(where ": " layer "/ is not a layer folder"); next }
    n = split(inc, ip, "/")
    if (n != 2) { bad(where ": include \"" inc "\" must name its folder (layer/file.h or tempo/file.h)"); next }
    to = ip[1]
    if (to == "tempo") {
        if (rank(layer) < 3 && (ip[2] == "session.h" || ip[2] == "tempo.h"))
            bad(where ": " layer "/ is below the session API but includes " inc)
        next
    }
    if (rank(to) < 0) { bad(where ": \"" inc "\" is in no layer"); next }
    if (to != layer && rank(to) >= rank(layer))
        bad(where ": " layer "/ (layer " rank(layer) ") includes " inc " (layer " rank(to) "): up or across")
    if (file ~ /\.h$/) edges[file] = edges[file] " " inc
}
function visit(h,    i, k, list, m) {
    if (state[h] == 1) { bad("include cycle through src/" h); return }
    if (state[h] == 2) return
    state[h] = 1
    m = split(edges[h], list, " ")
    for (k = 1; k <= m; k++) visit(list[k])
    state[h] = 2
}
END {
    for (h in edges) visit(h)
    if (errors) { print errors " layering violation(s)"; exit 1 }
    print "layers: every include points down or within its layer; no cycles"
}'
