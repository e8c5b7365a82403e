#!/bin/sh
# SPDX-License-Identifier: MIT
# readme_quotes.sh README FILE — the README's integration section quotes
# FILE (examples/minimal/minimal_udp.c): every line of its first C block
# must be a line of FILE, so the README shows the program the tests run.
# Fails, naming the line, when one is not; fails when the block is gone.
readme=$1
file=$2
awk '/^## Integrating rollback/ { on = 1 }
     on && /^```c$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$readme" | {
    n=0
    bad=0
    while IFS= read -r line; do
        n=$((n + 1))
        if [ -n "$line" ] && ! grep -Fxq -- "$line" "$file"; then
            echo "readme_quotes: not in $file: $line"
            bad=1
        fi
    done
    if [ "$n" -eq 0 ]; then
        echo "readme_quotes: no C block under '## Integrating rollback' in $readme"
        exit 1
    fi
    [ "$bad" -eq 0 ] && echo "readme_quotes: $n lines, all in $file"
    exit $bad
}
