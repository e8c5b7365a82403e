#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim's settings table: the ranges are the documented ones; every
# setting is accepted at its lowest and highest value and refused just
# outside, from the command line and from a scenario file, with the same
# message; --help lists every setting and exits 0; a scenario with every
# file setting away from its default reads back and writes out unchanged.
# usage: sim_settings.sh <tempo-sim> <work dir>
set -u
sim=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
tab=$(printf '\t')

# 1. The table, as tempo-sim lists it, is the one documented (docs/TEMPO-SIM.md,
# docs/SCENARIOS.md): name, option, directive, kind, lowest and highest
# accepted value, a value just below and one just above.
"$sim" --list-settings >"$dir/list.txt" || fail "--list-settings did not exit 0"
tr ' ' "$tab" >"$dir/expected.txt" <<'TABLE'
seed --seed seed int 0 9223372036854775807 -1 9223372036854775808
frames --frames duration duration 1 100000000 0 100000001
mode --mode mode enum p2p client-server - no-such-mode
clients --clients clients int 1 64 0 65
game --game game enum auto walkers - no-such-game
reconcile --reconcile reconcile enum replay dumb - no-such-reconcile
players --players players int 1 8 0 9
local-per-peer --local-per-peer local-per-peer int 1 8 0 9
peer - peer structured - - - -
spectators --spectators spectators int 0 7 -1 8
spectator - spectator structured - - - -
profile --profile profile profile perfect terrible - no-such-profile
link --link link structured - - - -
nat - nat structured - - - -
clock-drift --clock-drift clock-drift structured - - - -
start-skew --start-skew start-skew structured - - - -
hiccup --hiccup hiccup structured - - - -
clock-jump - clock-jump structured - - - -
blackout - blackout structured - - - -
drop --drop-peer drop structured - - - -
spoofer - spoofer structured - - - -
onpath - onpath structured - - - -
handshake-flood - handshake-flood structured - - - -
input-delay --input-delay input-delay int 0 64 -1 65
timesync --timesync timesync enum inversus inversus-article - no-such-timesync
timesync-window --timesync-window timesync_window int 1 256 0 257
stall-threshold --stall-threshold timesync_threshold double 0.001 9.999 0 10
max-prediction --max-prediction max-prediction int 0 64 -1 65
save-policy --save-policy save-policy enum every sparse - no-such-save-policy
desync-interval --desync-interval desync-interval int 0 100000 -1 100001
desync-at --desync-at desync-at frame 0 2147483647 -1 2147483648
seal --seal seal enum on off - no-such-seal
topology --topology topology enum mesh relay - no-such-topology
lockstep-turns --lockstep-turns lockstep-turns int 10 2000 9 2001
compare --compare - enum timesync rtt - no-such-compare
check-distance --check-distance - int 1 64 0 65
nondeterministic-at --nondeterministic-at - int 0 2147483647 -1 2147483648
synctest --synctest - flag - - - -
scenario --scenario - path - - - -
soak --soak - int 1 100000000 0 100000001
soak-frames --soak-frames - int 60 1000000 59 1000001
soak-print --soak-print - flag - - - -
attack --attack - int 1 100000000 0 100000001
json --json - path - - - -
report --report - path - - - -
csv --csv - path - - - -
record --record - path - - - -
quiet --quiet - flag - - - -
print-scenario --print-scenario - flag - - - -
list-settings --list-settings - flag - - - -
help --help - flag - - - -
TABLE
sed "s/timesync_/timesync /" "$dir/expected.txt" >"$dir/expected2.txt"
cmp -s "$dir/expected2.txt" "$dir/list.txt" ||
    fail "the settings table differs from the documented one: $(diff "$dir/expected2.txt" "$dir/list.txt")"

# 2. Each value setting at its ends and just outside. From the command line
# --print-scenario reads the options and exits; in a file the value stands
# alone on its line (a keyword setting on its parent's line). A file value
# within range may still be refused by a whole-match check (local-per-peer 8
# with 4 players), but never with the range message.
cli_try() { # cli_try <option> <value>: exit code; stderr in cli.err
    "$sim" "$1" "$2" --print-scenario >/dev/null 2>"$dir/cli.err"
}
file_try() { # file_try <directive> <value>: exit code; stderr in file.err
    case $1 in
    *" "*) printf '%s inversus %s %s\n' "${1% *}" "${1#* }" "$2" ;;
    *) printf '%s %s\n' "$1" "$2" ;;
    esac >"$dir/one.scenario"
    "$sim" --scenario "$dir/one.scenario" --print-scenario >/dev/null 2>"$dir/file.err"
}
checked=0
while IFS="$tab" read -r name option directive kind lo hi below above; do
    case $kind in flag | path | structured) continue ;; esac
    for v in "$lo" "$hi"; do
        if [ "$option" != - ]; then
            cli_try "$option" "$v" || fail "$option $v refused: $(cat "$dir/cli.err")"
        fi
        if [ "$directive" != - ]; then
            file_try "$directive" "$v"
            code=$?
            [ $code -eq 0 ] || { [ $code -eq 2 ] && ! grep -q "bad value for" "$dir/file.err"; } ||
                fail "$directive $v refused: $(cat "$dir/file.err")"
        fi
        checked=$((checked + 1))
    done
    for v in "$below" "$above"; do
        [ "$v" = - ] && continue
        msg=
        if [ "$option" != - ]; then
            cli_try "$option" "$v"
            [ $? -eq 2 ] || fail "$option $v was not refused with exit 2"
            msg=$(sed -n '1s/^tempo-sim: //p' "$dir/cli.err")
            case $msg in "bad value for $option"*"'$v' ("*")") ;; *) fail "$option $v: message '$msg'" ;; esac
        fi
        if [ "$directive" != - ]; then
            file_try "$directive" "$v"
            [ $? -eq 2 ] || fail "'$directive $v' in a file was not refused with exit 2"
            fmsg=$(sed -n "1s|^$dir/one.scenario:1: ||p" "$dir/file.err")
            case $fmsg in "bad value for "*"$directive: '$v' ("*")") ;; *) fail "$directive $v: message '$fmsg'" ;; esac
            [ -z "$msg" ] || [ "$msg" = "$fmsg" ] ||
                fail "$name $v: the command line says '$msg', a file says '$fmsg'"
        fi
        checked=$((checked + 1))
    done
done <"$dir/list.txt"
[ $checked -ge 70 ] || fail "only $checked values checked"

# 3. --help exits 0 and lists every setting, by option (with its range) or
# by directive.
"$sim" --help >"$dir/help.txt" || fail "--help did not exit 0"
while IFS="$tab" read -r name option directive kind lo hi below above; do
    if [ "$option" != - ]; then
        line=$(grep -- "^  $option[ ]" "$dir/help.txt") || fail "--help does not list $option"
        case $kind in int | duration | frame)
            case $line in *"$lo..$hi"*) ;; *) fail "--help does not give $option's range $lo..$hi" ;; esac ;;
        esac
    else
        grep -q "^  $directive[ ].*scenario file only" "$dir/help.txt" || fail "--help does not list $directive"
    fi
done <"$dir/list.txt"

# 4. Round trip: scenarios written the way tempo-sim writes them, every file
# setting away from its default (the second file has the settings the
# first's peer and spectator lines replace, the third a client-server
# match's), read and written back: the
# same bytes, and every directive of the table used.
cat >"$dir/rt1.scenario" <<'SCENARIO'
seed 12
duration 2710 frames
players 5
peer 0 players 0 1
peer 1 players 2
peer 2 players 3 4
spectator watches 2
spectator watches 0
profile continental
link 2-* mobile
link 0-1 latency_ms=40 jitter_ms=6 loss=0.01
nat 1 sym
clock-drift 1 -0.8%
start-skew 2 150ms
hiccup 1 at 600 for 300ms
clock-jump 2 at 1500 by 10s
blackout 1-2 from 10s to 11500ms
drop 2 at 2100
onpath 0-1 rate 0.25 from 5s to 20s
spoofer rate 150.5 from 1500ms to 30s
handshake-flood rate 1000 from 10s to 12s
input-delay 3
timesync ggpo window 60 threshold 0.75
max-prediction 12
save-policy sparse
desync-interval 30
desync-at 900
seal off
topology relay
lockstep-turns 35
SCENARIO
cat >"$dir/rt2.scenario" <<'SCENARIO'
seed 9223372036854775807
duration 45s
players 4
local-per-peer 2
spectators 2
profile terrible
input-delay auto
timesync lead
max-prediction 0
save-policy every
desync-interval 0
seal on
lockstep-turns adaptive
SCENARIO
cat >"$dir/rt3.scenario" <<'SCENARIO'
seed 5
duration 10s
mode client-server
clients 64
game walkers
reconcile dumb
players 4
local-per-peer 1
profile mobile
input-delay 0
timesync inversus
max-prediction 16
save-policy every
desync-interval 60
seal on
SCENARIO
for rt in rt1 rt2 rt3; do
    "$sim" --scenario "$dir/$rt.scenario" --print-scenario >"$dir/$rt.out" || fail "$rt did not read"
    cmp -s "$dir/$rt.scenario" "$dir/$rt.out" ||
        fail "$rt did not round-trip: $(diff "$dir/$rt.scenario" "$dir/$rt.out")"
done
while IFS="$tab" read -r name option directive kind lo hi below above; do
    [ "$directive" = - ] && continue
    case $directive in
    *" "*) pattern="^${directive% *} .* ${directive#* } " ;;
    *) pattern="^$directive " ;;
    esac
    grep -q "$pattern" "$dir/rt1.scenario" "$dir/rt2.scenario" "$dir/rt3.scenario" || fail "no round trip covers $directive"
done <"$dir/list.txt"
# The command line gives the same settings as the file.
"$sim" --scenario "$dir/rt2.scenario" --print-scenario >"$dir/rt2.file"
"$sim" --seed 9223372036854775807 --frames 45s --players 4 --local-per-peer 2 --spectators 2 \
    --profile terrible --input-delay auto --timesync lead --max-prediction 0 --save-policy every \
    --desync-interval 0 --seal on --lockstep-turns adaptive --print-scenario >"$dir/rt2.cli" || fail "rt2's options did not read"
cmp -s "$dir/rt2.file" "$dir/rt2.cli" || fail "options and file differ: $(diff "$dir/rt2.file" "$dir/rt2.cli")"

echo "sim_settings: ok ($checked values checked)"
