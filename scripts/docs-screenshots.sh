#!/bin/sh
# SPDX-License-Identifier: MIT
# docs-screenshots.sh — the README's two pictures of the simulator's
# report, from the current build: the default match (`make run`) rendered
# by headless Chromium at 1280 px.
#   report.png         the header, the per-peer table, the skew and input
#                      delay charts (everything before the rollback depth)
#   report-charts.png  the rollback depth and the rollbacks and stalls charts
#   report-screenshots.sha256  the SHA-256 of the report they were cut from,
#                      which docs-check compares with the current build's
# Each is cut by hiding the rest of the page and measuring what is left,
# so a picture holds its sections whatever their height.
# usage: docs-screenshots.sh <tempo-sim> <output dir>
# Exit 77 when no Chromium is installed (scripts/bootstrap.sh installs it).
set -u
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
fail() { echo "docs-screenshots: $*"; exit 1; }

browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "docs-screenshots: no chromium on PATH (apt-get install chromium)"; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/docs-screenshots.XXXXXX") || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$dir"' EXIT INT TERM
# as `make run` makes it: no options, the report's command reads "tempo-sim"
(cd "$dir" && "$sim" >/dev/null 2>"$dir/sim.log") || fail "tempo-sim did not run the default match"
mv "$dir/tempo-report.html" "$dir/source.html" || fail "tempo-sim did not write the report"

chrome() {
    # root may not use Chromium's sandbox; the profile is thrown away
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$dir/profile" "$@" 2>>"$dir/chromium.log"
}

# shot NAME FIRST LAST: keep the chart sections from the one holding #FIRST
# to the one holding #LAST (FIRST "top": everything before LAST's
# successor, the page's head included), hide the rest, measure, shoot.
shot() {
    name=$1 first=$2 last=$3
    cat > "$dir/$name.js" <<EOF
<script>(function () {
  var secs = Array.prototype.slice.call(document.querySelectorAll('section.chart'));
  function sec(id) {
    var e = document.getElementById(id);
    while (e && !(e.matches && e.matches('section.chart'))) e = e.parentNode;
    return e;
  }
  var a = '$first' === 'top' ? null : sec('$first'), b = sec('$last');
  var keep = secs.filter(function (s) {
    var i = secs.indexOf(s);
    return i <= secs.indexOf(b) && (!a || i >= secs.indexOf(a));
  });
  function prune(n) {
    Array.prototype.slice.call(n.children).forEach(function (c) {
      if (c.tagName === 'SCRIPT' || keep.indexOf(c) >= 0) return;
      if (keep.some(function (k) { return c.contains(k); })) { prune(c); return; }
      var before = keep.length && (c.compareDocumentPosition(keep[0]) & Node.DOCUMENT_POSITION_FOLLOWING);
      if (!a && before) return;
      c.style.display = 'none';
    });
  }
  prune(document.body);
  document.body.setAttribute('data-height', Math.ceil(document.documentElement.scrollHeight));
})();</script>
EOF
    awk -v js="$dir/$name.js" '/<\/body>/ { while ((getline l < js) > 0) print l } { print }' \
        "$dir/source.html" > "$dir/$name.html"
    chrome --window-size=1280,1000 --dump-dom "file://$dir/$name.html" > "$dir/$name.dom" ||
        fail "chromium could not load the report (see $dir/chromium.log)"
    h=$(sed -n 's/.*data-height="\([0-9]*\)".*/\1/p' "$dir/$name.dom")
    [ -n "$h" ] && [ "$h" -gt 200 ] || fail "$name: the page measured '${h:-nothing}' px high"
    chrome --window-size=1280,"$h" --screenshot="$dir/$name.png" "file://$dir/$name.html" >/dev/null ||
        fail "no screenshot for $name"
    [ "$(head -c 4 "$dir/$name.png" | tail -c 3)" = PNG ] || fail "$name.png is not a PNG"
    cp "$dir/$name.png" "$out/$name.png"
    echo "docs-screenshots: $out/$name.png, 1280 x $h"
}

shot report top chart-delay
shot report-charts chart-depth chart-rate
# what they show: docs-check makes the report again and compares
sha256sum "$dir/source.html" | cut -d ' ' -f 1 > "$out/report-screenshots.sha256" ||
    fail "could not record the report's hash"
echo "docs-screenshots: $out/report-screenshots.sha256 names the report they show"
