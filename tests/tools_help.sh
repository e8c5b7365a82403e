#!/bin/sh
# SPDX-License-Identifier: MIT
# Every program speaks the one vocabulary of docs/TOOLS.md: each --help
# exits 0 and lists --version; --version prints "NAME (tempo X.Y.Z)"; an
# unknown option exits 2 with one line naming it and a hint to run --help;
# every row of the vocabulary table is in the --help of each program it
# names, with that value; every option two programs share is a row; the
# old spellings are out of --help and still read as the new ones.
# usage: tools_help.sh <docs/TOOLS.md> <include/tempo/base.h> NAME=PATH...
set -u
doc=$1
base=$2
shift 2
work=${TMPDIR:-/tmp}/tools_help.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

version=$(sed -n 's/^#define TEMPO_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$base" | paste -sd.)
names=""
for pair in "$@"; do
    name=${pair%%=*}
    path=${pair#*=}
    names="$names $name"
    echo "$path" > "$work/$name.path"
    # the option lines of --help: "  --name [VALUE]" then two spaces or the end
    "$path" --help > "$work/$name.help" 2> "$work/$name.err" || fail "$name --help exited $?"
    sed -n 's/^  \(--[a-z0-9-]*\)\( [^ ][^ ]*\)\{0,1\}\(  .*\)\{0,1\}$/\1\2/p' "$work/$name.help" |
        sort -u > "$work/$name.opts"
    grep -qx -- "--version" "$work/$name.opts" || fail "$name --help lists no --version"
    out=$("$path" --version 2>&1)
    [ "$out" = "$name (tempo $version)" ] || fail "$name --version printed '$out'"
    "$path" --no-such-option 1 > /dev/null 2> "$work/$name.bad"
    rc=$?
    [ $rc -eq 2 ] || fail "$name --no-such-option exited $rc, not 2"
    head -n 1 "$work/$name.bad" | grep -q "^$name: unknown option --no-such-option" ||
        fail "$name: an unknown option said '$(head -n 1 "$work/$name.bad")'"
    sed -n 2p "$work/$name.bad" | grep -qx "run '$name --help' for the options" ||
        fail "$name: no hint to run --help after an unknown option"
done
echo "programs:$names"

# The vocabulary table: | `--opt VALUE` | means | programs |
sed -n '/^## One vocabulary/,/^## /p' "$doc" | grep '^| `--' |
    sed 's/\\|/|/g; s/^| `\([^`]*\)` | .* | \([^|]*\) |$/\1	\2/' > "$work/rows"
[ -s "$work/rows" ] || fail "no vocabulary rows in $doc"
rows=0
while IFS='	' read -r opt programs; do
    rows=$((rows + 1))
    [ "$programs" = "every program" ] && programs=$(echo $names | tr ' ' ',')
    for p in $(echo "$programs" | tr ',' ' '); do
        [ -f "$work/$p.opts" ] || continue # not built here (no SDL)
        grep -qxF -- "$opt" "$work/$p.opts" ||
            fail "$p --help has no '$opt' (TOOLS.md): $(grep -- "^${opt%% *}" "$work/$p.opts" | tr '\n' ' ')"
    done
done < "$work/rows"
echo "vocabulary: $rows rows checked"

# Every option two programs share is a row of the table.
for n in $names; do sed 's/ .*//' "$work/$n.opts" | sort -u; done | sort | uniq -d > "$work/shared"
cut -f1 "$work/rows" | sed 's/ .*//' | sort -u > "$work/documented"
for opt in $(comm -23 "$work/shared" "$work/documented"); do
    fail "$opt is in several programs' --help but not in TOOLS.md's vocabulary"
done
echo "shared options: $(wc -l < "$work/shared"), all in the table"

# Old spellings: not in --help, and still read (given before --help, an
# unknown one would stop the parse with exit 2).
sample() { # a value for a placeholder
    case $1 in
    HOST:PORT) echo 127.0.0.1:1 ;;
    S | N) echo 5 ;;
    "") echo "" ;;
    *) echo x ;;
    esac
}
sed -n '/^## Old spellings/,/^## /p' "$doc" | grep '^| `--' |
    sed 's/^| `\([^`]*\)` | `[^`]*` | \([^|]*\) |$/\1	\2/' > "$work/old"
[ -s "$work/old" ] || fail "no old spellings in $doc"
while IFS='	' read -r old programs; do
    name=${old%% *}
    value=$(sample "$(echo "$old" | sed -n 's/^[^ ]* //p')")
    for p in $(echo "$programs" | tr ',' ' '); do
        [ -f "$work/$p.path" ] || continue
        grep -q -- "^$name\( \|$\)" "$work/$p.opts" && fail "$p --help still shows the old $name"
        # shellcheck disable=SC2086
        "$(cat "$work/$p.path")" $name $value --help > /dev/null 2> "$work/old.err" ||
            fail "$p no longer reads the old $name: $(head -n 1 "$work/old.err")"
    done
done < "$work/old"
echo "old spellings: $(wc -l < "$work/old") checked"

[ "$fails" -eq 0 ] && echo "tools_help: ok"
exit "$fails"
