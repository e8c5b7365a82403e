#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-arena-sdl without a display.
# usage: arena_sdl.sh <tempo-arena-sdl> <work dir> headless|window|p2p
#   headless: --headless --frames runs (rollback and synctest) exit 0 and write a
#     full-size BMP; the same seed draws the same picture (virtual time, seeded
#     bots and network), another seed a different one.
#   window: the real window loop (real clock, keyboard, SDL's renderer) under
#     SDL_VIDEODRIVER=offscreen, quitting by itself after 30 frames.
#   p2p: two processes play a 2 v 2 over UDP on 127.0.0.1 (5 s of real time),
#     with 50 ms added to every datagram: both finish, both compared
#     checksums with the other and found no desync, and they rolled back.
# Exit 77 means SDL found no usable video driver: CTest reports a skip.
set -u
exe=$1
dir=$2
mode=$3
rm -rf "$dir"
mkdir -p "$dir"
export SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=dummy
fail() { echo "FAIL: $*"; exit 1; }
run() {
    "$exe" "$@"
    rc=$?
    [ "$rc" -ne 77 ] || { echo "skip: no video driver"; exit 77; }
    [ "$rc" -eq 0 ] || fail "exit $rc from: $exe $*"
}
# 1312 x 652 pixels at 3 bytes, plus the header: a picture, not a stub.
is_picture() {
    [ -f "$1" ] || fail "$1 was not written"
    [ "$(head -c 2 "$1")" = BM ] || fail "$1 is not a BMP"
    [ "$(wc -c < "$1")" -gt 2000000 ] || fail "$1 is only $(wc -c < "$1") bytes"
}

case $mode in
headless)
    run --headless --frames 300 --screenshot "$dir/a.bmp"
    is_picture "$dir/a.bmp"
    run --headless --frames 300 --screenshot "$dir/b.bmp"
    cmp -s "$dir/a.bmp" "$dir/b.bmp" || fail "the same seed drew two different pictures"
    run --headless --frames 300 --seed 2 --screenshot "$dir/c.bmp"
    is_picture "$dir/c.bmp"
    cmp -s "$dir/a.bmp" "$dir/c.bmp" && fail "seeds 1 and 2 drew the same picture"
    run --synctest --headless --frames 300 --players 8 --screenshot "$dir/s.bmp"
    is_picture "$dir/s.bmp"
    # Drawing between frames at 144 Hz: 2.4 pictures a tick, each a step on
    # a copy that is then put back; the match must not notice.
    plain=$("$exe" --headless --frames 600) || fail "the plain run failed"
    between=$("$exe" --headless --frames 600 --render-hz 144) || fail "the 144 Hz run failed"
    echo "$between" | grep -q "drawn between frames: 14[0-9][0-9] pictures, the game changed by 0 of them" ||
        fail "144 Hz for 10 s: $between"
    [ "$(echo "$between" | grep -v 'drawn between')" = "$plain" ] ||
        fail "drawing between frames changed the match: '$plain' vs '$between'"
    # --record, then --replay: the window's replay ends on the recorded state
    # with every checksum equal; a file cut short is refused.
    rec=$("$exe" --headless --frames 600 --record "$dir/m.rep") || fail "the recorded run failed"
    want=$(echo "$rec" | sed -n 's/.*recorded frames 0\.\.\([0-9]*\) to .*, state \([0-9a-f]*\)/\1 \2/p')
    [ -n "$want" ] || fail "no recording line: $rec"
    set -- $want
    out=$("$exe" --replay "$dir/m.rep" --headless --frames 900 --screenshot "$dir/r.bmp") ||
        fail "the replay failed: $out"
    echo "$out" | grep -q "replay: frame $(($1 + 1)) of $(($1 + 1)), state $2, 0 checksums differed" ||
        fail "the replay did not end on the recorded state $2: $out"
    is_picture "$dir/r.bmp"
    head -c 300 "$dir/m.rep" > "$dir/cut.rep"
    "$exe" --replay "$dir/cut.rep" --headless --frames 10 > /dev/null 2>&1 && fail "a cut replay played"
    # Effects under rollback: a synctest resimulates every frame with the
    # same inputs, so no effect is stopped and each repeat is recognised;
    # behind 120 ms of delay, predictions fail and some effects are stopped.
    out=$("$exe" --synctest --headless --frames 600) || fail "the synctest run failed"
    fx=$(echo "$out" | sed -n 's/.*effects: \([0-9]*\) started, \([0-9]*\) stopped.*, \([0-9]*\) not doubled.*/\1 \2 \3/p')
    set -- $fx
    [ "${1:-0}" -gt 0 ] && [ "${2:-1}" -eq 0 ] && [ "${3:-0}" -gt "$1" ] ||
        fail "synctest effects: '$fx' (want some started, 0 stopped, more repeats than starts)"
    out=$("$exe" --headless --frames 1200 --delay 120) || fail "the delayed run failed"
    fx=$(echo "$out" | sed -n 's/.*effects: \([0-9]*\) started, \([0-9]*\) stopped.*, \([0-9]*\) not doubled.*/\1 \2 \3/p')
    set -- $fx
    [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] || fail "delayed effects: '$fx' (want some stopped and some repeats)"
    # Half a second each way against a 2-frame window: waits of 30 ticks,
    # and at tick 28 the spinner covers the middle of the board, which a
    # picture without it does not have.
    out=$("$exe" --headless --frames 28 --delay 500 --max-prediction 2 --input-delay 0 \
        --check-distance 1 --screenshot "$dir/spin.bmp") || fail "the waiting run failed"
    longest=$(echo "$out" | sed -n 's/.*longest wait \([0-9]*\),.*/\1/p')
    [ "${longest:-0}" -ge 20 ] || fail "no wait long enough for the spinner: $out"
    run --headless --frames 28 --delay 20 --max-prediction 2 --input-delay 0 --check-distance 1 \
        --screenshot "$dir/nospin.bmp"
    cmp -s "$dir/spin.bmp" "$dir/nospin.bmp" && fail "the spinner changed nothing"
    ;;
window)
    # The offscreen driver loads the system's EGL/Mesa libraries, which keep
    # some memory until exit and are unloaded by SDL_Quit, so LeakSanitizer
    # cannot even name them. Leaks of our own are checked by the headless mode.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    run --frames 30 --screenshot "$dir/w.bmp"
    is_picture "$dir/w.bmp"
    ;;
p2p)
    # Two machines on one host: players 0 and 2 on the first, 1 and 3 on the
    # second, sealed with a match key (one by --key, one by --key-file).
    # Ports of our own (tests/support/ports.sh); a port in use means another try.
    . "$(dirname "$0")/support/ports.sh"
    reserve_ports || exit 1
    key=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    printf '%s\n' "$key" > "$dir/match.key"
    msg=$("$exe" --key "$key" 2>&1); [ $? -eq 2 ] || fail "--key without --peer was accepted"
    echo "$msg" | grep -q "give --peer too" || fail "--key without --peer said: $msg"
    pair() {
        a=$1
        b=$(($1 + 1))
        common="--headless --frames 300 --players 4 --delay 50 --input-delay 0"
        # shellcheck disable=SC2086
        "$exe" $common --port $a --peer 1=127.0.0.1:$b --peer 3=127.0.0.1:$b --key "$key" \
            --screenshot "$dir/p0.bmp" > "$dir/p0.log" 2>&1 &
        pid=$!
        # shellcheck disable=SC2086
        "$exe" $common --port $b --player 1 --peer 0=127.0.0.1:$a --peer 2=127.0.0.1:$a \
            --key-file "$dir/match.key" --screenshot "$dir/p1.bmp" > "$dir/p1.log" 2>&1
        rc1=$?
        wait $pid
        rc0=$?
    }
    for try in 1 2 3; do
        pair $((ports + try * 2))
        grep -q "transport failed" "$dir/p0.log" "$dir/p1.log" || break
    done
    cat "$dir/p0.log" "$dir/p1.log"
    [ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] || fail "exit codes $rc0 and $rc1"
    rollbacks=0
    for log in "$dir/p0.log" "$dir/p1.log"; do
        set -- $(sed -n 's/.*desync checks \([0-9]*\), desyncs \([0-9]*\).*/\1 \2/p' "$log")
        [ "${1:-0}" -gt 0 ] || fail "$log: no checksum was compared with the peer"
        [ "${2:-1}" -eq 0 ] || fail "$log: desyncs"
        n=$(sed -n 's/^  rollbacks \([0-9]*\),.*/\1/p' "$log")
        rollbacks=$((rollbacks + ${n:-0}))
    done
    [ "$rollbacks" -gt 0 ] || fail "50 ms of delay and no rollback"
    is_picture "$dir/p0.bmp"
    is_picture "$dir/p1.bmp"
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
echo "ok: tempo-arena-sdl $mode"
