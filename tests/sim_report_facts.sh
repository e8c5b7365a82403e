#!/bin/sh
# SPDX-License-Identifier: MIT
# The report says what the terminal says: the default match's report
# (`make run`, with one machine frozen for 400 ms so that it has an event)
# counts the desync checks the terminal counts, names its machines as
# players and a spectator in the title and the line under it, says what its
# events are and what a spectator's row means, and a verdict that weighs two
# rules says which one misses; a match with several kinds of events
# (scenarios/mobile-bursts.scenario) names each kind, and the kinds add up.
# usage: sim_report_facts.sh <tempo-sim> <work dir>
set -u
sim=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }

"$sim" --hiccup 2@1200:400 --report "$dir/r.html" > "$dir/out.txt" 2>&1 || fail "tempo-sim exited $?: $(tail -n 3 "$dir/out.txt")"
# the page's text, one element a line
sed 's/<[^>]*>/\n/g' "$dir/r.html" | sed 's/&#183;/·/g; s/&#8594;/→/g' | grep -v '^ *$' > "$dir/text.txt"

made=$(sed -n 's/^desync checks: .*; \([0-9]*\) made in all.*/\1/p' "$dir/out.txt")
[ -n "$made" ] || fail "the terminal printed no count of desync checks"
# the table's last column: passed / made of expected
passed=$(awk '/^(peer|spectator) [0-9]/ && $(NF-3) == "/" { s += $(NF-4) } END { print s + 0 }' "$dir/out.txt")
grep -q "· $made desync checks made, $passed passed" "$dir/text.txt" ||
    fail "the report does not say '$made desync checks made, $passed passed' as the terminal does: $(grep 'desync check' "$dir/text.txt" | head -n 2)"
echo "  desync checks: $made made, $passed passed, in both"

title=$(sed -n 's/.*<h1>\(.*\)<\/h1>.*/\1/p' "$dir/r.html" | head -n 1)
echo "$title" | grep -q "^4 players and a spectator, " || fail "the title says '$title'"
grep -q "^4 player machines and 1 spectator · " "$dir/text.txt" ||
    fail "the line under the title: $(grep 'match time' "$dir/text.txt" | head -n 1)"
grep -q "· 1 event (a machine froze or its clock jumped), marked on the charts" "$dir/text.txt" ||
    fail "the events are not named: $(grep -o '[0-9]* events[^·]*' "$dir/text.txt" | head -n 1)"
# events: a match that has some names each kind, and the kinds add up
# (a kind without a count happened once)
root=$(cd "$(dirname "$0")/.." && pwd)
"$sim" --scenario "$root/scenarios/mobile-bursts.scenario" --report "$dir/ev.html" > "$dir/ev.txt" 2>&1 ||
    fail "the mobile-bursts scenario exited $?"
events=$(sed 's/<[^>]*>/\n/g' "$dir/ev.html" | sed 's/&#183;/·/g' | grep -o '[0-9]* events ([^)]*), marked on the charts' | head -n 1)
[ -n "$events" ] || fail "the events are not named: $(sed 's/<[^>]*>/\n/g' "$dir/ev.html" | grep -o '[0-9]* events[^&]*' | head -n 1)"
n=${events%% *}
sum=$(echo "$events" | sed 's/^[0-9]* events (//; s/), marked on the charts$//' | tr ';' '\n' |
      awk '{ if (match($0, /[0-9]+ times?$/)) { split(substr($0, RSTART), a, " "); s += a[1] } else s += 1 } END { print s + 0 }')
[ "$n" -gt 0 ] && [ "$sum" = "$n" ] || fail "the named events add up to $sum, not $n: $events"
echo "  events: $events"
grep -q "a spectator plays only confirmed frames" "$dir/out.txt" || fail "the terminal does not explain the spectator's row"
grep -q "a spectator plays only confirmed frames" "$dir/text.txt" || fail "the report does not explain the spectator's row"
echo "  title: $title"

# the link verdict: loss misses, the RTT spread meets, and each part says so
links=$(grep -A1 "^This match misses: " "$dir/text.txt" | grep "loses the most" | head -n 1)
[ -n "$links" ] || links=$(grep "loses the most" "$dir/text.txt" | head -n 1)
echo "$links" | grep -q "loses the most: [0-9.]*% (good: at most 1%), misses; .*varies the most: .*, meets\." ||
    fail "the link verdict does not say which rule misses: $links"
echo "  links: $links"
echo "sim_report_facts: ok"
