#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim scenario files: every file in scenarios/ runs clean (exit 0,
# converged, soak checks passed); default.scenario gives exactly the built-in
# default run's results; bad files are refused with their line number (exit
# 2); a soak failure prints a scenario that --scenario reproduces exactly.
# usage: sim_scenario.sh <tempo-sim> <scenarios dir> <work dir>
set -u
sim=$1
scenarios=$2
dir=$3
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
value() { sed -n "s/^ *\"$1\": \\(.*\\),\\{0,1\\}$/\\1/p" "$2" | sed 's/,$//'; }

# 1. Every shipped scenario runs clean.
n=0
for f in "$scenarios"/*.scenario; do
    name=$(basename "$f" .scenario)
    "$sim" --scenario "$f" --quiet --json "$dir/$name.json"
    [ $? -eq 0 ] || fail "$name did not exit 0"
    [ "$(value converged "$dir/$name.json")" = true ] || fail "$name did not converge"
    [ "$(value soak_check "$dir/$name.json")" = null ] || fail "$name failed a soak check"
    n=$((n + 1))
done
[ $n -ge 7 ] || fail "only $n scenarios in $scenarios"

# 1b. Behind NATs: the one pair with no direct path plays relayed, and
# its round trip is the detour's longer than the direct pairs'.
"$sim" --scenario "$scenarios/home-nats.scenario" --frames 900 > "$dir/nats.txt" 2>&1 || fail "home-nats did not run"
grep -q "peer 0 (prc) - peer 2 (sym): relayed" "$dir/nats.txt" || fail "home-nats: 0-2 is not relayed: $(grep peer "$dir/nats.txt")"
[ "$(grep -c ": direct " "$dir/nats.txt")" = 2 ] || fail "home-nats: not two direct pairs"
awk '/: direct / { d = $NF + 0; if ($(NF-1) + 0 > d) d = $(NF-1) + 0; if ($(NF-1) + 0 > dmax) dmax = $(NF-1) + 0 }
     /: relayed / { r = $(NF-1) + 0 }
     END { exit !(r > dmax + 20) }' "$dir/nats.txt" ||
    fail "home-nats: the relayed pair's RTT is not 20 ms above the direct ones': $(grep 'RTT' "$dir/nats.txt" | tail -n 3)"

# 2. The default scenario as a file is the built-in default, number for number.
(cd "$dir" && "$sim" --quiet --json builtin.json) || fail "the built-in default did not exit 0"
grep -v wall_seconds "$dir/builtin.json" >"$dir/a.txt"
grep -v wall_seconds "$dir/default.json" >"$dir/b.txt"
cmp -s "$dir/a.txt" "$dir/b.txt" || fail "scenarios/default.scenario differs from the built-in default"

# 3. What the scenarios say shows in the results: couch + online hosts 3 + 1
# players; rage-quit drops a peer; the spectator file has two spectators.
[ "$(grep -c '"players": 3,' "$dir/couch-online.json")" -eq 1 ] || fail "couch-online: no peer hosts 3 players"
[ "$(value local_per_peer "$dir/couch-online.json")" = null ] || fail "couch-online: local_per_peer not null"
[ "$(grep -c '"dropped": true,' "$dir/rage-quit.json")" -eq 1 ] || fail "rage-quit: no dropped peer"
[ "$(grep -c '"spectator": true,' "$dir/spectator-bad-link.json")" -eq 2 ] || fail "spectator-bad-link: not 2 spectators"
# Command-line options override the file.
"$sim" --scenario "$scenarios/cross-ocean-duel.scenario" --frames 300 --seed 9 --quiet --json "$dir/over.json"
[ "$(value frames "$dir/over.json")" = 300 ] && [ "$(value seed "$dir/over.json")" = 9 ] ||
    fail "--frames/--seed do not override the file"

# 4. Bad files: exit 2, "FILE:LINE: message" naming the line at fault.
bad() { # bad <expected line> <file text>
    printf "$2" >"$dir/bad.scenario"
    "$sim" --scenario "$dir/bad.scenario" --quiet >/dev/null 2>"$dir/err.txt"
    [ $? -eq 2 ] || fail "bad file '$2' did not exit 2"
    grep -q "bad.scenario:$1: " "$dir/err.txt" || fail "bad file '$2': no error at line $1: $(cat "$dir/err.txt")"
}
bad 3 'seed 1\nplayers 2\nwobble 3\n'
bad 2 '# comment\nplayers 9\n'
bad 2 'players 2\nlink 0-1 latency_ms=abc\n'
bad 3 'players 2\n\nlink 0-1 loss=1.5\n'
bad 2 'players 2\nlink 0-5 lan\n'
bad 2 'players 2\nlink 0-1 nosuch\n'
bad 2 'players 2\nblackout 0-1 from 10s to 5s\n'
bad 2 'players 2\nhiccup 1 at 60 for 300\n'
bad 2 'players 2\ndrop 3 at 60\n'
bad 2 'players 2\nclock-jump 1 at 60 by 10\n'
bad 2 'players 2\nclock-jump 1 at 60 for 10s\n'
bad 3 'players 2\n\nclock-jump 2 at 60 by -1s\n'
bad 3 'players 2\nseed 1\nseed 2\n'
bad 2 'players 2\ninput-delay 9\nmax-prediction 8\n'
bad 1 'players 3\npeer 0 players 0\npeer 1 players 1\n'
bad 2 'peer 0 players 0\npeer 2 players 1\n'
bad 2 'players 2\nspectator watches 4\n'
bad 1 'players 1\n'
"$sim" --scenario "$dir/no-such-file" --quiet 2>/dev/null
[ $? -eq 2 ] || fail "a missing scenario file did not exit 2"

# 5. A planted desync in every soak scenario: the soak fails, prints each
# scenario, and the first one, run as a file, fails the same way.
"$sim" --soak 2 --seed 40 --soak-frames 600 --desync-at 300 --quiet >"$dir/soak.txt"
[ $? -eq 3 ] || fail "a soak with a planted desync did not exit 3"
grep -q "2 failures" "$dir/soak.txt" || fail "the soak did not count 2 failures"
sed -n '/^----- 8< -----/,/^----- >8 -----/p' "$dir/soak.txt" | sed '/^-----/d' | sed -n '1,/^desync-at/p' \
    >"$dir/repro.scenario"
grep -q '^seed 40$' "$dir/repro.scenario" || fail "the printed scenario is not seed 40's"
reason=$(sed -n 's/^soak: FAILED scenario seed 40: //p' "$dir/soak.txt")
"$sim" --scenario "$dir/repro.scenario" --json "$dir/repro.json" >"$dir/repro.txt" 2>/dev/null
[ $? -eq 3 ] || fail "the printed scenario did not fail again"
grep -q "^soak checks: FAILED - $reason\$" "$dir/repro.txt" || fail "the repro failed otherwise than '$reason'"
# A partition raises no false DESYNC (several seeds).
for seed in 1 2 3 4 5; do
    "$sim" --scenario "$(dirname "$0")/scenarios/partition-no-false-desync.scenario" --seed $seed \
        --quiet --json "$dir/partition.json"
    [ $? -eq 0 ] || fail "partition scenario, seed $seed: exit $? (a false DESYNC?)"
done
# A machine's clock leaps forward (10 s; 60 s and a step back with three
# peers) while the network carries on: every peer ends together, no desync.
# A silence the others really saw past the timeout (a blackout, a freeze)
# still drops that machine: it ends cut off, and the others together. Two
# machines accusing each other cut off one of the two, never a bystander.
here=$(dirname "$0")/scenarios
for name in clock-jump-10s clock-jump-60s blackout-drops-peer freeze-drops-peer mutual-drop-keeps-bystanders; do
    "$sim" --scenario "$here/$name.scenario" --quiet --json "$dir/$name.json"
    [ $? -eq 0 ] || fail "$name did not exit 0"
    [ "$(value converged "$dir/$name.json")" = true ] || fail "$name did not converge"
    [ "$(value soak_check "$dir/$name.json")" = null ] || fail "$name failed a soak check"
    [ "$(grep -c '"desyncs": 0' "$dir/$name.json")" -eq "$(grep -c '"desyncs":' "$dir/$name.json")" ] ||
        fail "$name raised a DESYNC"
    cut=$(grep -c '"cut_off": true,' "$dir/$name.json")
    case $name in
    clock-jump-*) [ "$cut" -eq 0 ] && ! grep -q '"dropped": true,' "$dir/$name.json" ||
        fail "$name: a peer was dropped" ;;
    *) [ "$cut" -eq 1 ] || fail "$name: $cut peers cut off, expected 1" ;;
    esac
done
# Matches the soak once failed, each kept as a scenario: every one now
# passes every soak check (exit 0).
for name in spectator-freeze-catches-up pauses-overlap-silent-peer-dropped spectator-host-handshake-lost; do
    "$sim" --scenario "$here/$name.scenario" --quiet --json "$dir/$name.json"
    [ $? -eq 0 ] || fail "$name did not exit 0: $(value soak_check "$dir/$name.json")"
    [ "$(value converged "$dir/$name.json")" = true ] || fail "$name did not converge"
done
cut=$(sed -n '/^      "peer": /h; /^      "cut_off": true,/{x;p;}' "$dir/mutual-drop-keeps-bystanders.json" |
    sed 's/[^0-9]//g')
case $cut in 0 | 4) ;; *) fail "mutual-drop-keeps-bystanders: bystander peer $cut cut off" ;; esac
# Two machines paused together past the timeout, beside three that go on:
# the pair is the one cut off (dropped, ended), never a match of its own.
name=pauses-together-pair-dropped
"$sim" --scenario "$here/$name.scenario" --quiet --json "$dir/$name.json"
[ $? -eq 0 ] || fail "$name did not exit 0: $(value soak_check "$dir/$name.json")"
cut=$(sed -n '/^      "peer": /h; /^      "cut_off": true,/{x;p;}' "$dir/$name.json" | sed 's/[^0-9]//g' | tr '\n' ' ')
[ "$cut" = "1 2 " ] || fail "$name: peers cut off: '$cut', expected '1 2 '"

# Hostile actors (tests/scenarios/hostile-*.scenario) at a sealed match:
# every hostile datagram is read and refused (0 accepted), the match is not
# disturbed (no desync, no honest drop, converged), and the counts add up:
# sent = read + unread, read = the five drops + ignored + accepted, and the
# sessions' drop counters = the drops charged to hostile and honest
# datagrams + those between reads. Without libsodium the run says unsealed.
# block <json> <key> <indent>: the lines of an object from "key": { to its }.
block() { sed -n "/^$3\"$2\": {/,/^$3}/p" "$1"; }
num() { sed -n "s/^ *\"$1\": \([0-9]*\),\{0,1\}$/\1/p" | head -n 1; }
counts_add_up() { # counts_add_up <label> <block text>
    sent=$(echo "$2" | num sent); read=$(echo "$2" | num read); unread=$(echo "$2" | num unread)
    refused=0
    for k in forged replay malformed unknown session ignored accepted; do
        refused=$((refused + $(echo "$2" | num $k)))
    done
    [ "$sent" -eq $((read + unread)) ] || fail "$1: sent $sent != read $read + unread $unread"
    [ "$read" -eq "$refused" ] || fail "$1: read $read != the drops + ignored + accepted ($refused)"
}
drops_of() { echo "$1" | num forged; echo "$1" | num replay; echo "$1" | num malformed; echo "$1" | num unknown;
    echo "$1" | num session; }
hostile() { # hostile <name> <hostile datagrams sent, or - if it depends on the traffic>
    j="$dir/$1.json"
    "$sim" --scenario "$here/$1.scenario" --quiet --json "$j"
    [ $? -eq 0 ] || fail "$1 did not exit 0"
    [ "$(value converged "$j")" = true ] || fail "$1 did not converge"
    [ "$(value soak_check "$j")" = null ] || fail "$1 failed a check: $(value soak_check "$j")"
    h=$(block "$j" hostile "  ")
    for kv in '"passed": true' '"accepted": 0' '"desyncs": 0' '"honest_drops": 0' '"disturbed": false' \
              '"sums_add_up": true'; do
        echo "$h" | grep -q "^    $kv,\{0,1\}$" || fail "$1: not $kv"
    done
    # every actor and every kind: nothing accepted
    [ "$(echo "$h" | sed '/^    "honest": {/,/^    }/d' | grep -c '"accepted": [1-9]')" -eq 0 ] || fail "$1: a kind of hostile datagram was accepted"
    all=$(block "$j" all "    ")
    honest=$(block "$j" honest "    ")
    counts_add_up "$1 (hostile)" "$all"
    counts_add_up "$1 (honest)" "$honest"
    [ "$2" = - ] || [ "$(echo "$all" | num sent)" -eq "$2" ] || fail "$1: $(echo "$all" | num sent) sent, not $2"
    [ "$(echo "$all" | num sent)" -gt 0 ] || fail "$1: nothing hostile was sent"
    seal=$(block "$j" seal "  ")
    [ "$(echo "$seal" | num sealed_datagrams)" -eq "$(echo "$seal" | num datagrams)" ] || fail "$1: not every datagram sealed"
    [ "$(echo "$seal" | num overhead_bytes)" -eq $((16 * $(echo "$seal" | num datagrams))) ] ||
        fail "$1: the tags are not 16 bytes a datagram"
    total=$(echo "$h" | num dropped_between_reads)
    for v in $(drops_of "$all") $(drops_of "$honest"); do total=$((total + v)); done
    [ "$total" -eq "$(echo "$h" | num drop_counters)" ] || fail "$1: drop counters $(echo "$h" | num drop_counters) != $total"
}
if [ "$(value sealed "$dir/default.json")" = true ]; then
    hostile hostile-spoofer 4000
    for k in random disconnect far_ack mutated replayed; do
        grep -q "^          \"$k\": {" "$dir/hostile-spoofer.json" || fail "hostile-spoofer: no $k datagrams"
    done
    # the network's duplicates are honest datagrams dropped as copies, not accepted forgeries
    [ "$(block "$dir/hostile-spoofer.json" honest "    " | num replay)" -gt 0 ] ||
        fail "hostile-spoofer: no honest copy dropped (the link duplicates)"
    hostile hostile-onpath -
    for k in rewritten replay duplicate; do
        grep -q "^          \"$k\": {" "$dir/hostile-onpath.json" || fail "hostile-onpath: nothing $k"
    done
    grep -q '"withheld": [1-9]' "$dir/hostile-onpath.json" && grep -q '"reordered": [1-9]' "$dir/hostile-onpath.json" ||
        fail "hostile-onpath: nothing withheld or reordered"
    hostile hostile-handshake-flood 10000
    [ "$(block "$dir/hostile-handshake-flood.json" all "    " | num unknown)" -eq 10000 ] ||
        fail "hostile-handshake-flood: not every request dropped as from a stranger"
    # The same spoofer at a match with sealing off gets in: the check can fail.
    "$sim" --scenario "$here/hostile-spoofer.scenario" --seal off --quiet --json "$dir/unsealed.json"
    [ $? -eq 3 ] || fail "the spoofer at an unsealed match did not fail (exit 3)"
    grep -q '^    "passed": false,$' "$dir/unsealed.json" || fail "the unsealed match's hostile verdict passed"
    [ "$(block "$dir/unsealed.json" all "    " | num accepted)" -gt 0 ] || fail "nothing got into the unsealed match"
else
    grep -q '"unavailable": true' "$dir/default.json" || fail "unsealed, but the run does not say sealing is unavailable"
    echo "sim_scenario: no libsodium in this build: hostile scenarios not judged"
fi

echo "sim_scenario: ok ($n scenarios)"
