#!/bin/sh
# SPDX-License-Identifier: MIT
# build-wasm.sh — tempo, the arena and its page in WebAssembly (`make wasm`).
#
#   sh scripts/build-wasm.sh [OUT [JOBS]]      (default build/wasm, nproc)
#
# Compiles the library (src/, without the Windows socket file), with
# libsodium built from Debian's source package when the bootstrap fetched it
# into OUT/sodium-src (`sh scripts/bootstrap.sh wasm`; the page then joins
# sealed relays with a token), without it otherwise (docs/SECURITY.md), the
# arena's deterministic core and the page's C side (examples/arena/web/)
# with Emscripten's emcc, one object per source, rebuilt when its source or
# a header changed, and links OUT/page/arena.js with the WebAssembly inside
# it (SINGLE_FILE, so the page also opens from a file). OUT/page then holds
# everything to serve: index.html, arena_page.js, tempo_ws.js, arena.js.
#
# Needs emcc (Debian's emscripten package: `sh scripts/bootstrap.sh wasm`).
# Where node is not Debian's, emcc needs Debian's node modules:
# NODE_PATH=/usr/share/nodejs is set here when that folder exists.
set -eu
out=${1:-build/wasm}
jobs=${2:-$(nproc 2>/dev/null || echo 2)}
root=$(cd "$(dirname "$0")/.." && pwd)
command -v emcc >/dev/null 2>&1 || {
    echo "build-wasm: no emcc (sh scripts/bootstrap.sh wasm installs Emscripten)" >&2
    exit 1
}
[ -d /usr/share/nodejs ] && export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p "$out/obj" "$out/inc" "$out/page"
# xxhash.h is header-only: a copy, so emcc sees no other host header
for h in /usr/include/xxhash.h /usr/local/include/xxhash.h; do
    [ -f "$h" ] && { cp "$h" "$out/inc/xxhash.h"; break; }
done
[ -f "$out/inc/xxhash.h" ] || { echo "build-wasm: no xxhash.h (sh scripts/bootstrap.sh)" >&2; exit 1; }

cd "$root"
case $out in /*) ;; *) out=$root/$out ;; esac
sodium=""
sodium_flags=""
if [ -d "$out/sodium-src/src/libsodium" ]; then
    # Debian's libsodium source, as its MSVC build compiles it: every .c with
    # the portable code paths, the version header the tarball ships for it
    s=$out/sodium-src
    mkdir -p "$out/sodium-obj"
    cp "$s/builds/msvc/version.h" "$s/src/libsodium/include/sodium/version.h"
    if [ ! -f "$out/sodium-obj/libsodium.a" ]; then
        echo "  emcc: libsodium from $s"
        find "$s/src/libsodium" -name '*.c' | xargs -P "$jobs" -I{} sh -c \
            'o="$1/sodium-obj/$(basename "$(dirname "$3")")_$(basename "$3").o"; [ -f "$o" ] ||
             emcc -O2 -DSODIUM_STATIC -DNATIVE_LITTLE_ENDIAN -DCONFIGURED=1 \
                 -I"$2/src/libsodium/include" -I"$2/src/libsodium/include/sodium" \
                 -c "$3" -o "$o"' sh "$out" "$s" {}
        emar rcs "$out/sodium-obj/libsodium.a" "$out"/sodium-obj/*.o
    fi
    sodium="$out/sodium-obj/libsodium.a"
    sodium_flags="-DTEMPO_HAVE_SODIUM=1 -DSODIUM_STATIC -I$s/src/libsodium/include"
fi
srcs=$(find src -name '*.c' ! -name udp_win32.c | sort)
srcs="$srcs examples/arena/arena.c examples/arena/arena_describe.c examples/arena/bot.c"
srcs="$srcs examples/arena/web/arena_web.c examples/arena/web/tempo_ws.c"
flags="-O2 -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
       -DTEMPO_BUILDING -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -I$out/inc
       -Iexamples/arena -Iexamples/arena/web $sodium_flags"
# a build with and one without libsodium do not mix their objects
echo "$sodium_flags" > "$out/obj.flags.new"
cmp -s "$out/obj.flags.new" "$out/obj/flags" 2>/dev/null || rm -f "$out"/obj/*.o
mv "$out/obj.flags.new" "$out/obj/flags"
# a header changed since the last build: every object again
stamp=$out/headers.stamp
if [ ! -f "$stamp" ] || [ -n "$(find include src examples/arena -name '*.h' -newer "$stamp" | head -n 1)" ]; then
    rm -f "$out"/obj/*.o
fi
touch "$stamp"
# one object per source, named by its path; only the stale ones compile
objs=""
stale=""
for s in $srcs; do
    o="$out/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')"
    objs="$objs $o"
    if [ ! -f "$o" ] || [ "$s" -nt "$o" ]; then stale="$stale $s"; fi
done
if [ -n "$stale" ]; then
    echo "  emcc: $(echo $stale | wc -w) sources, $jobs at a time"
    # shellcheck disable=SC2086
    printf '%s\n' $stale | xargs -P "$jobs" -I{} sh -c \
        'o="$1/obj/$(echo "$2" | tr / _ | sed "s/\.c\$/.o/")"; emcc $3 -c "$2" -o "$o"' \
        sh "$out" {} "$flags"
fi
exports=_web_start,_web_tick,_web_keys,_web_view,_web_final,_web_why,_web_cost_us,_malloc,_free
# shellcheck disable=SC2086
emcc -O2 $objs $sodium -o "$out/page/arena.js" -sEXPORTED_FUNCTIONS=$exports \
    -sEXPORTED_RUNTIME_METHODS=cwrap -sENVIRONMENT=web -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
cp examples/arena/web/index.html examples/arena/web/arena_page.js examples/arena/web/tempo_ws.js \
    "$out/page/"
echo "sealing $([ -n "$sodium" ] && echo on || echo off)" > "$out/page/build.txt"
echo "  sealing: $([ -n "$sodium" ] && echo "on (libsodium)" || echo "off (no libsodium source: sh scripts/bootstrap.sh wasm)")"
echo "  page: $out/page/ (index.html; serve it with tempo-relay --ws-port P --serve-page $out/page)"
