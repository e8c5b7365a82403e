#!/bin/sh
# SPDX-License-Identifier: MIT
# The hitscan demo: a client-server shooter on a simulated transatlantic
# network. With lag compensation the server confirms nearly every hit its
# shooters saw; judged against the present it rejects most of them. The
# same seed prints the same table, and the window's headless mode draws a
# picture.
# usage: hitscan.sh <tempo-hitscan> <tempo-hitscan-sdl or ""> <work dir>
set -u
hs=$1
sdl=$2
dir=$3
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
col() { # file, row label, column -> value
    awk -F'|' -v row="$2" -v c="$3" '{ l = $2; gsub(/^ +| +$/, "", l); if (l == row) { v = $(c + 1); gsub(/ |%/, "", v); print v } }' "$1"
}
"$hs" --compare --seconds 60 --seed 3 > "$dir/a.txt" || fail "tempo-hitscan failed"
"$hs" --compare --seconds 60 --seed 3 > "$dir/b.txt" || fail "tempo-hitscan failed twice"
cmp -s "$dir/a.txt" "$dir/b.txt" || fail "the same seed printed two tables"
on=$(col "$dir/a.txt" rewound 7)
off=$(col "$dir/a.txt" present 7)
seen=$(col "$dir/a.txt" rewound 3)
[ "${seen:-0}" -ge 50 ] || fail "only ${seen:-0} hits seen: too few to judge"
awk -v a="$on" -v b="$off" 'BEGIN { exit !(a >= 97.0 && b < a - 30.0) }' ||
    fail "confirmed $on % rewound, $off % against the present"
echo "hitscan: $seen hits seen, $on % confirmed rewound, $off % against the present"
if [ -n "$sdl" ]; then
    export SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=dummy
    "$sdl" --headless --frames 600 --screenshot "$dir/shot.bmp" > "$dir/sdl.txt"; rc=$?
    [ $rc -eq 77 ] && { echo "skip: no video driver"; exit 0; }
    [ $rc -eq 0 ] || fail "tempo-hitscan-sdl exited $rc"
    [ "$(head -c 2 "$dir/shot.bmp")" = BM ] || fail "no BMP picture"
    [ "$(wc -c < "$dir/shot.bmp")" -gt 1000000 ] || fail "the picture is too small"
    grep -q "confirmed" "$dir/sdl.txt" || fail "no summary"
    echo "hitscan-sdl: $(cat "$dir/sdl.txt")"
fi
echo "hitscan: ok"
