#!/bin/sh
# SPDX-License-Identifier: MIT
# docs_check_selftest.sh DOCS-CHECK — proof that scripts/docs-check.sh
# bites: in a scratch tree, a figure equal to its command's output passes;
# one digit changed fails with a diff naming the file and line; a run of
# the output's lines passes, the same lines out of order fail; a skip block
# is not run; a tolerance block passes within its percentage only when
# timings are checked; a command line with no block under it fails; a file
# the command writes lands outside the tree.
set -u
check=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/docs-check-selftest.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$dir/docs"
# The scratch tree's "tool": prints a table and writes a file where it runs.
cat > "$dir/tool.sh" <<'TOOL'
echo "| what | n |"
echo "|---|---|"
echo "| apples | 12 |"
echo "| pears | 7.5 |"
echo "note" > made-by-tool.txt
TOOL
doc() { printf '%s\n' "$@" > "$dir/README.md"; }
run() { (cd "$dir" && sh "$check" . > "$dir/out.txt" 2>&1); }

doc "# t" "<!-- command: sh tool.sh -->" "| what | n |" "|---|---|" "| apples | 12 |" "| pears | 7.5 |"
run || fail "an equal table did not pass: $(cat "$dir/out.txt")"
[ ! -e "$dir/made-by-tool.txt" ] || fail "the command's file landed in the tree"

doc "# t" "<!-- command: sh tool.sh -->" "| what | n |" "|---|---|" "| apples | 13 |" "| pears | 7.5 |"
run && fail "a changed digit passed"
grep -q "README.md:3: the quoted figure differs" "$dir/out.txt" || fail "no file and line: $(cat "$dir/out.txt")"
grep -q "^-| apples | 13 |" "$dir/out.txt" && grep -q "^+| apples | 12 |" "$dir/out.txt" || fail "no diff"

doc "# t" "<!-- command: sh tool.sh -->" '```' "| apples | 12 |" "| pears | 7.5 |" '```'
run || fail "a fenced run of the output's lines did not pass: $(cat "$dir/out.txt")"
doc "# t" "<!-- command: sh tool.sh -->" '```' "| pears | 7.5 |" "| apples | 12 |" '```'
run && fail "lines out of order passed"

doc "# t" "<!-- command: sh tool.sh -->" "<!-- check: skip it needs a real network -->" "| apples | 99 |"
run || fail "a skip block was checked"
doc "# t" "<!-- command: sh tool.sh -->" "<!-- check: tolerance 10% -->" "| what | n |" "|---|---|" "| apples | 13 |" "| pears | 7.5 |"
run || fail "a tolerance block ran without DOCS_CHECK_TIMINGS"
(cd "$dir" && DOCS_CHECK_TIMINGS=1 sh "$check" . > "$dir/out.txt" 2>&1) || fail "13 is not within 10% of 12"
doc "# t" "<!-- command: sh tool.sh -->" "<!-- check: tolerance 5% -->" "| what | n |" "|---|---|" "| apples | 13 |" "| pears | 7.5 |"
(cd "$dir" && DOCS_CHECK_TIMINGS=1 sh "$check" . > "$dir/out.txt" 2>&1) && fail "13 passed as within 5% of 12"

doc "# t" "<!-- command: sh tool.sh -->" "" "text, no figure"
run && fail "a command with no block under it passed"
grep -q "not followed by a table or a fenced block" "$dir/out.txt" || fail "no message for a lone command"
echo "docs_check_selftest: ok"
