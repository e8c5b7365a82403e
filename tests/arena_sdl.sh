#!/bin/sh
# tempo-arena-sdl without a display.
# usage: arena_sdl.sh <tempo-arena-sdl> <work dir> headless|window
#   headless: --headless-frames runs (rollback and synctest) exit 0 and write a
#     full-size BMP; the same seed draws the same picture (virtual time, seeded
#     bots and network), another seed a different one.
#   window: the real window loop (real clock, keyboard, SDL's renderer) under
#     SDL_VIDEODRIVER=offscreen, quitting by itself after 30 frames.
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
    run --headless-frames 300 --screenshot "$dir/a.bmp"
    is_picture "$dir/a.bmp"
    run --headless-frames 300 --screenshot "$dir/b.bmp"
    cmp -s "$dir/a.bmp" "$dir/b.bmp" || fail "the same seed drew two different pictures"
    run --headless-frames 300 --seed 2 --screenshot "$dir/c.bmp"
    is_picture "$dir/c.bmp"
    cmp -s "$dir/a.bmp" "$dir/c.bmp" && fail "seeds 1 and 2 drew the same picture"
    run --synctest --headless-frames 300 --players 8 --screenshot "$dir/s.bmp"
    is_picture "$dir/s.bmp"
    ;;
window)
    # The offscreen driver loads the system's EGL/Mesa libraries, which keep
    # some memory until exit and are unloaded by SDL_Quit, so LeakSanitizer
    # cannot even name them. Leaks of our own are checked by the headless mode.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    run --frames 30 --screenshot "$dir/w.bmp"
    is_picture "$dir/w.bmp"
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
echo "ok: tempo-arena-sdl $mode"
