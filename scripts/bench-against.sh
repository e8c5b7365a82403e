#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-against.sh COMMIT BENCH [ARGS...] — one benchmark figure of this
# tree against the same figure of an older commit, on one machine.
#
# BENCH is a bench/BENCH.c of this tree that uses the public API alone and,
# given ARGS, prints one number (bench_synctest does). The script builds
# COMMIT's library in build/against-COMMIT (from `git archive`, a Release
# build as `make release` makes it), compiles BENCH.c against it and against
# this tree's release build (build/release, which it builds), and runs the
# two alternately RUNS times (default 15), so both see the same load. It
# prints each pair, then the medians and their ratio (this tree / COMMIT).
#
#   scripts/bench-against.sh e43d062 bench_synctest 8
set -eu
[ $# -ge 2 ] || { echo "usage: $0 COMMIT BENCH [ARGS...]" >&2; exit 2; }
commit=$1 bench=$2
shift 2
runs=${RUNS:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
src=bench/$bench.c
[ -f "$src" ] || { echo "$0: no $src" >&2; exit 2; }
old=build/against-$commit
mkdir -p build "$old"
if [ ! -f "$old/src/libtempo.a" ]; then
    rm -rf "$old/tree" && mkdir -p "$old/tree"
    git archive "$commit" | tar -x -C "$old/tree"
    cmake -S "$old/tree" -B "$old" -Wno-dev --log-level=WARNING -DCMAKE_BUILD_TYPE=Release \
        -DTEMPO_BUILD_TESTS=OFF -DTEMPO_NDEBUG_ASSERT=ON >/dev/null
    cmake --build "$old" --target tempo_static -j2 >/dev/null
fi
cmake -S . -B build/release -Wno-dev --log-level=WARNING -DCMAKE_BUILD_TYPE=Release \
    -DTEMPO_BUILD_TESTS=OFF -DTEMPO_NDEBUG_ASSERT=ON >/dev/null
cmake --build build/release --target tempo_static -j2 >/dev/null
libs="-lsodium -lm"
cc=${CC:-cc}
$cc -O3 -DNDEBUG -D_POSIX_C_SOURCE=200809L -Ibench -I"$old/tree/include" "$src" \
    "$old/src/libtempo.a" $libs -o "$old/$bench"
$cc -O3 -DNDEBUG -D_POSIX_C_SOURCE=200809L -Ibench -Iinclude "$src" \
    build/release/src/libtempo.a $libs -o "build/release/$bench-against"
out=$old/$bench.pairs
: > "$out"
i=0
while [ $i -lt "$runs" ]; do
    a=$("$old/$bench" "$@")
    b=$("build/release/$bench-against" "$@")
    echo "$a $b" | tee -a "$out"
    i=$((i + 1))
done
sort -n -k1,1 "$out" | awk -v n="$runs" 'NR == int((n + 1) / 2) { print $1 }' > "$out.a"
sort -n -k2,2 "$out" | awk -v n="$runs" 'NR == int((n + 1) / 2) { print $2 }' > "$out.b"
awk -v c="$commit" -v n="$runs" -v a="$(cat "$out.a")" -v b="$(cat "$out.b")" \
    'BEGIN { printf "%s: %s, this tree: %s, ratio %.2fx (medians of %d alternating runs)\n", c, a, b, b / a, n }'
