#!/bin/sh
# SPDX-License-Identifier: MIT
# docs-check.sh — every figure the documentation quotes, re-made by its
# command and compared.
#
# A figure block in README.md or docs/*.md (a markdown table or a fenced
# block quoted as a measurement) is preceded by one line
#     <!-- command: COMMAND -->
# naming the command, run from the repository root, that printed it, and
# optionally by a second line
#     <!-- check: exact | skip REASON | tolerance N% -->
# (exact is the default). This script runs the command of every exact
# block and fails, with a diff, unless the block's lines appear in its
# output as they are, one after the other (trailing blanks aside). Blocks
# marked tolerance (timings) are run only with DOCS_CHECK_TIMINGS=1 and
# then pass when every number is within N% of the new one; skip blocks are
# listed, never run. docs/ARCHITECTURE.md, "Figures in the docs", is the
# rule for writers.
#
# Commands run with sh in a scratch directory whose entries link to the
# repository's, so a file a command writes (tempo-report.html) lands there
# and not in the tree. Each distinct command runs once.
# usage: docs-check.sh [REPO_ROOT]   (DOCS_CHECK_ONLY=FILE checks one file)
set -u
root=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/docs-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/blocks" "$tmp/out" "$tmp/sandbox"
for e in "$root"/* "$root"/.[!.]*; do
    [ -e "$e" ] && ln -s "$e" "$tmp/sandbox/$(basename "$e")"
done

files="$root/README.md $root/docs/*.md"
[ -n "${DOCS_CHECK_ONLY:-}" ] && files="$root/${DOCS_CHECK_ONLY}"

# The blocks: manifest lines "N<TAB>FILE<TAB>LINE<TAB>MODE<TAB>COMMAND",
# block N's lines in blocks/N.
for f in $files; do
    [ -f "$f" ] || continue
    awk -v file="${f#"$root"/}" -v dir="$tmp/blocks" '
        function fail(msg) { printf "docs-check: %s:%d: %s\n", file, NR, msg > "/dev/stderr"; bad = 1 }
        function finish() { close(out); printf "%d\t%s\t%d\t%s\t%s\n", n, file, at, mode, cmd; state = 0 }
        state == 3 { if ($0 ~ /^```/) { finish(); next } print > out; next }
        state == 4 { if ($0 ~ /^\|/) { print > out; next } finish() }
        state == 2 {
            if ($0 ~ /^<!-- check: .* -->$/ && !checked) {
                mode = substr($0, 13, length($0) - 16); checked = 1; next
            }
            n = ++count; out = dir "/" file_id "_" n; at = NR
            if ($0 ~ /^```/) { state = 3; next }
            if ($0 ~ /^\|/) { state = 4; print > out; next }
            fail("a command line is not followed by a table or a fenced block"); state = 0
        }
        /^```/ { infence = !infence; next } # a fence that is no figure: its lines are not read
        infence { next }
        /^<!-- command: .* -->$/ {
            cmd = substr($0, 15, length($0) - 18); mode = "exact"; checked = 0; state = 2; next
        }
        /^<!-- (command|check):/ { fail("not one line <!-- command: ... --> / <!-- check: ... -->") }
        END { if (state == 3) fail("a fenced block never ends"); if (state == 4) finish(); exit bad }
        BEGIN { file_id = file; gsub(/[^A-Za-z0-9]/, "_", file_id) }
    ' "$f" | while IFS='	' read -r n file line mode cmd; do
        id=$(printf '%s' "$file" | tr -c 'A-Za-z0-9' '_')_$n
        printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$file" "$line" "$mode" "$cmd"
    done >> "$tmp/manifest" || { echo "docs-check: cannot read $f"; exit 1; }
done
[ -s "$tmp/manifest" ] || { echo "docs-check: no figure blocks found"; exit 1; }

# The output of a command, made once: prints the file holding it.
run_once() {
    key=$(printf '%s' "$1" | cksum | tr ' ' '_')
    if [ ! -f "$tmp/out/$key" ]; then
        (cd "$tmp/sandbox" && sh -c "$1") > "$tmp/out/$key" 2>/dev/null
        echo $? > "$tmp/out/$key.rc"
    fi
    echo "$tmp/out/$key"
}

# Does block file $1 appear in output $2 as consecutive lines? Trailing
# blanks are not compared.
appears() {
    awk 'NR == FNR { b[++nb] = $0; sub(/[ \t]+$/, "", b[nb]); next }
         { o[++no] = $0; sub(/[ \t]+$/, "", o[no]) }
         END { for (s = 1; s + nb - 1 <= no; s++) { k = 1; while (k <= nb && o[s + k - 1] == b[k]) k++;
                   if (k > nb) exit 0 }
               exit 1 }' "$1" "$2"
}

# Within tolerance: the block's lines, from the output line equal to its
# first, differ only in numbers, each within pct % of the new one.
within() {
    awk -v pct="$3" 'NR == FNR { b[++nb] = $0; next } { o[++no] = $0 }
        function num(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ }
        END { for (s = 1; s <= no && o[s] != b[1]; s++);
              if (s > no) exit 1
              for (k = 1; k <= nb; k++) {
                  n1 = split(b[k], x, /[ |\/]+/); n2 = split(o[s + k - 1], y, /[ |\/]+/)
                  if (n1 != n2) exit 1
                  for (i = 1; i <= n1; i++) {
                      if (x[i] == y[i]) continue
                      if (!num(x[i]) || !num(y[i])) exit 1
                      d = x[i] - y[i]; if (d < 0) d = -d; m = y[i] < 0 ? -y[i] : y[i]
                      if (d > m * pct / 100 + 1e-9) exit 1
                  } }
              exit 0 }' "$1" "$2"
}

# A diff of the block against the output from the line equal to its first
# (the whole output if there is none).
show_diff() {
    first=$(head -n 1 "$1")
    start=$(grep -n -F -x -- "$first" "$2" | head -n 1 | cut -d: -f1)
    if [ -n "$start" ]; then
        tail -n "+$start" "$2" | head -n "$(wc -l < "$1")" > "$tmp/near"
    else
        cp "$2" "$tmp/near"
    fi
    diff -u --label "$3 (quoted)" --label "$3 (made now)" "$1" "$tmp/near" | head -n 60
}

checked=0 failed=0 skipped=0 timed=0
while IFS='	' read -r id file line mode cmd; do
    where="$file:$line"
    case "$mode" in
    skip*)
        skipped=$((skipped + 1))
        continue
        ;;
    tolerance*)
        pct=$(printf '%s' "$mode" | sed -n 's/^tolerance \([0-9.]*\)%.*/\1/p')
        [ -n "$pct" ] || { echo "docs-check: $where: '$mode' is not 'tolerance N%'"; failed=$((failed + 1)); continue; }
        if [ "${DOCS_CHECK_TIMINGS:-0}" != 1 ]; then
            timed=$((timed + 1))
            continue
        fi
        out=$(run_once "$cmd")
        if within "$tmp/blocks/$id" "$out" "$pct"; then
            checked=$((checked + 1))
        else
            echo "docs-check: $where: not within $pct% of what '$cmd' prints now:"
            show_diff "$tmp/blocks/$id" "$out" "$where"
            failed=$((failed + 1))
        fi
        continue
        ;;
    exact) ;;
    *)
        echo "docs-check: $where: unknown check '$mode' (exact, skip REASON, tolerance N%)"
        failed=$((failed + 1))
        continue
        ;;
    esac
    out=$(run_once "$cmd")
    if [ ! -s "$out" ]; then
        echo "docs-check: $where: '$cmd' printed nothing (exit $(cat "$out.rc"))"
        failed=$((failed + 1))
    elif appears "$tmp/blocks/$id" "$out"; then
        checked=$((checked + 1))
    else
        echo "docs-check: $where: the quoted figure differs from what this prints now:"
        echo "  $cmd"
        show_diff "$tmp/blocks/$id" "$out" "$where"
        failed=$((failed + 1))
    fi
done < "$tmp/manifest"

# The README's pictures of the report (make docs-screenshots) show the
# report the current build makes of the default match, or they are stale.
if [ -z "${DOCS_CHECK_ONLY:-}" ] && [ -f "$root/docs/report-screenshots.sha256" ]; then
    mkdir -p "$tmp/report"
    if (cd "$tmp/report" && "$root/build/release/tools/tempo-sim/tempo-sim" >/dev/null 2>&1) &&
        [ "$(sha256sum "$tmp/report/tempo-report.html" | cut -d ' ' -f 1)" = \
          "$(cat "$root/docs/report-screenshots.sha256")" ]; then
        checked=$((checked + 1))
    else
        echo "docs-check: docs/report.png and docs/report-charts.png show another report than this build makes: run make docs-screenshots"
        failed=$((failed + 1))
    fi
fi

echo "docs-check: $checked figure blocks re-made and equal, $failed differ; $skipped marked skip;" \
    "$timed timing blocks not run (DOCS_CHECK_TIMINGS=1 runs them)"
[ "$failed" -eq 0 ]
