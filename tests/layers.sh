#!/bin/sh
# SPDX-License-Identifier: MIT
# layers.sh — the source tree's layering rule, checked.
#
# src/ has one folder per layer (docs/ARCHITECTURE.md). A file may include
# headers of its own folder and of folders below it, never above or across:
#
#   p2p, lockstep, member, playback 7 > session 6 > cs, relay 5 >
#   interp, replay 4 > rollback, timing 3 > net 2 > wire 1 > base 0
#
# Internal includes name their folder ("rollback/sync.h"). Each public
# header (include/tempo/) has a layer too, the lowest that needs it:
#
#   base, export, rng, transport 0 | secure 1 | udp, simnet 2 |
#   config, effects, subframe 3 | interp, replay 4 | server, client, relay 5 |
#   session 6 | lockstep 7 | tempo (the umbrella) 8
#
# A source file includes public headers of its layer or below; a public
# header includes only public headers, of its layer or below. A new public
# header must be given a layer here. No two headers (internal or public)
# may include each other, directly or through others.
#
# No folder of src/ holds more than a quarter of src/'s lines unless
# docs/ARCHITECTURE.md gives the reason on a line beginning
# "Over a quarter: FOLDER/".
#
# Usage: layers.sh [SOURCE_DIR]; prints every violation, exits 1 if any.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
[ -d src ] || { echo "layers.sh: no src/ in $top"; exit 2; }

# Each folder's share of src/'s lines.
sizes_ok=0
total=$(find src -name '*.[ch]' -exec cat {} + | wc -l)
for d in src/*/; do
    d=${d%/}; name=${d#src/}
    lines=$(find "$d" -name '*.[ch]' -exec cat {} + | wc -l)
    if [ $((lines * 4)) -gt "$total" ] &&
       ! grep -q "^Over a quarter: $name/" docs/ARCHITECTURE.md 2>/dev/null; then
        echo "src/$name/ holds $lines of src/'s $total lines, over a quarter, and docs/ARCHITECTURE.md gives no reason"
        sizes_ok=1
    fi
done

{
    (cd src && find . -name '*.[ch]') | sed 's|^\./||'
    [ -d include/tempo ] && (cd include && find tempo -name '*.h')
} | sort | while read -r f; do
    case $f in tempo/*) path=include/$f ;; *) path=src/$f ;; esac
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$path" |
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
function public_rank(h) {
    if (h == "base.h" || h == "export.h" || h == "rng.h" || h == "transport.h") return 0
    if (h == "secure.h") return 1
    if (h == "udp.h" || h == "simnet.h" || h == "traversal.h") return 2
    if (h == "config.h" || h == "effects.h" || h == "subframe.h") return 3
    if (h == "interp.h" || h == "replay.h") return 4
    if (h == "server.h" || h == "client.h" || h == "relay.h") return 5
    if (h == "session.h") return 6
    if (h == "lockstep.h") return 7
    if (h == "tempo.h") return 8
    return -1
}
function bad(msg) { print msg; errors++ }
{
    file = $1; line = $2; inc = $3
    split(file, fp, "/"); layer = fp[1]
    public = (layer == "tempo")
    where = (public ? "include/" : "src/") file ":" line
    if (public) {
        from = public_rank(fp[2])
        if (from < 0) { bad(where ": public header tempo/" fp[2] " has no layer in layers.sh"); next }
    } else {
        from = rank(layer)
        if (from < 0) { bad(where ": " layer "/ is not a layer folder"); next }
    }
    n = split(inc, ip, "/")
    if (n != 2) { bad(where ": include \"" inc "\" must name its folder (layer/file.h or tempo/file.h)"); next }
    to = ip[1]
    if (to == "tempo") {
        r = public_rank(ip[2])
        if (r < 0) { bad(where ": \"" inc "\" is a public header with no layer in layers.sh"); next }
        if (r > from)
            bad(where ": " (public ? file : layer "/") " (layer " from ") includes public " inc " (layer " r "): up")
        edges[file] = edges[file] " " inc
        next
    }
    if (public) { bad(where ": public header includes internal \"" inc "\""); next }
    if (rank(to) < 0) { bad(where ": \"" inc "\" is in no layer"); next }
    if (to != layer && rank(to) >= rank(layer))
        bad(where ": " layer "/ (layer " rank(layer) ") includes " inc " (layer " rank(to) "): up or across")
    if (file ~ /\.h$/) edges[file] = edges[file] " " inc
}
function visit(h,    i, k, list, m) {
    if (state[h] == 1) { bad("include cycle through " h); return }
    if (state[h] == 2) return
    state[h] = 1
    m = split(edges[h], list, " ")
    for (k = 1; k <= m; k++) visit(list[k])
    state[h] = 2
}
END {
    for (h in edges) if (h ~ /\.h$/) visit(h)
    if (errors) { print errors " layering violation(s)"; exit 1 }
    print "layers: every include, public headers too, points down or within its layer; no cycles"
}' || exit 1
[ $sizes_ok -eq 0 ] || exit 1
echo "layers: no folder holds over a quarter of src/ without a reason"
