#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim's reports as a browser draws them: the default match's (what
# `make run` shows), a client-server match's and a lockstep match's.
# Headless Chromium lays each out at 1280 and 1920 px. At each width nothing
# is wider than the window (the page does not scroll sideways, and no table
# box needs its own scroll bar), every chart has room, and a screenshot of
# the full width is a real picture.
# usage: report_render.sh <tempo-sim> <work dir>
# Exit 77 (a skip for CTest) when no Chromium is installed.
set -u
sim=$1
dir=$2
fail() { echo "FAIL: $*"; exit 1; }

browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "skip: no chromium on PATH (apt-get install chromium)"; exit 77; }

rm -rf "$dir"
mkdir -p "$dir"

chrome() {
    # root may not use Chromium's sandbox; the profile is thrown away
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$dir/profile" "$@" 2>>"$dir/chromium.log"
}

# render NAME MIN-PNG-BYTES MIN-CHART-PX: the report $dir/NAME.html at both widths.
render() {
    name=$1 min_bytes=$2 min_chart=$3
    # The measurements go into an attribute the DOM dump carries: the page's
    # width against the window's, the widest overflow of any table box, and
    # the narrowest chart.
    sed 's|</body>|<script>(function(){var w=innerWidth,d=document.documentElement.scrollWidth,o=0,c=1e9;\
document.querySelectorAll(".wide").forEach(function(e){o=Math.max(o,e.scrollWidth-e.clientWidth);});\
document.querySelectorAll("svg.chart").forEach(function(e){var r=e.getBoundingClientRect();\
c=Math.min(c,r.width);if(r.right>w)o=Math.max(o,r.right-w);});\
document.body.setAttribute("data-fit",w+" "+d+" "+Math.ceil(o)+" "+Math.floor(c));})();</script></body>|' \
        "$dir/$name.html" > "$dir/$name-measure.html"
    for width in 1280 1920; do
        chrome --window-size=$width,1000 --dump-dom "file://$dir/$name-measure.html" > "$dir/$name-dom$width.html" ||
            fail "chromium could not load the $name report at $width px (see $dir/chromium.log)"
        fit=$(sed -n 's/.*data-fit="\([0-9 ]*\)".*/\1/p' "$dir/$name-dom$width.html")
        [ -n "$fit" ] || fail "no measurements of the $name report at $width px: did the page's script run?"
        set -- $fit
        echo "$name, $width px: window $1, page $2 wide, overflow $3 px, narrowest chart $4 px"
        [ "$1" -eq "$width" ] || fail "the window is $1 px, not $width"
        [ "$2" -le "$1" ] || fail "at $width px the $name report is $2 px wide: it scrolls sideways"
        [ "$3" -eq 0 ] || fail "at $width px a table or chart of the $name report runs $3 px past its box"
        [ "$4" -ge "$min_chart" ] || fail "at $width px a chart of the $name report is only $4 px wide"

        png="$dir/$name$width.png"
        chrome --window-size=$width,2400 --screenshot="$png" "file://$dir/$name.html" >/dev/null ||
            fail "no screenshot of the $name report at $width px"
        [ "$(head -c 4 "$png" | tail -c 3)" = PNG ] || fail "$png is not a PNG"
        # bytes 16..19 of a PNG: the width, big-endian
        png_w=$(od -An -tu1 -j16 -N4 "$png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
        [ "$png_w" -eq "$width" ] || fail "$png is $png_w px wide"
        # a blank page compresses to a few kB; charts and text take far more
        size=$(wc -c < "$png")
        [ "$size" -gt "$min_bytes" ] || fail "$png is only $size bytes: blank?"
    done
}

"$sim" --report "$dir/match.html" --quiet >/dev/null || fail "tempo-sim did not write the match report"
render match 100000 800
"$sim" --mode client-server --clients 8 --report "$dir/client-server.html" --quiet >/dev/null ||
    fail "tempo-sim did not write the client-server report"
render client-server 100000 800
# the lockstep report is a table and one small chart: it must fit, nothing more
"$sim" --lockstep-turns adaptive --players 4 --report "$dir/lockstep.html" --quiet >/dev/null ||
    fail "tempo-sim did not write the lockstep report"
render lockstep 20000 0
echo "report_render: the match, client-server and lockstep reports fit 1280 and 1920 px"
