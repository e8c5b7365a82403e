#!/bin/sh
# SPDX-License-Identifier: MIT
# Install tempo to a temporary prefix given only at install time (configured
# without one), then build and run a tiny consumer with CMake's
# find_package(tempo) and with pkg-config.
# usage: install_consumer.sh <source dir> <work dir> <C compiler>
set -eu
src=$1
work=$2
cc=$3
rm -rf "$work"
mkdir -p "$work/consumer"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
    -DTEMPO_BUILD_TESTS=OFF -DTEMPO_BUILD_TOOLS=OFF -DTEMPO_BUILD_EXAMPLES=OFF \
    -DTEMPO_BUILD_BENCH=OFF -DTEMPO_BUILD_FUZZ=OFF >/dev/null
cmake --build "$work/build" -j 2 >/dev/null
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null

cat > "$work/consumer/main.c" <<'C'
#include <stdio.h>
#include <tempo/tempo.h>
int main(void)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 1;
    tempo_session *s;
    if (tempo_session_create_local(&cfg, &s) != TEMPO_OK) return 1;
    tempo_session_add_local_player(s, 0);
    unsigned char in[4] = {1, 2, 3, 4};
    tempo_session_add_local_input(s, 0, in, sizeof in);
    tempo_tick t;
    tempo_session_advance(s, &t);
    printf("tempo %s frame %d\n", tempo_version_string(), (int)t.frame);
    tempo_session_destroy(s);
    return t.frame == 1 ? 0 : 1;
}
C
cat > "$work/consumer/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(tempo REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE tempo::tempo)
add_executable(consumer_shared main.c)
target_link_libraries(consumer_shared PRIVATE tempo::tempo_shared)
C
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/consumer/build/consumer"
"$work/consumer/build/consumer_shared"

libdir=$(ls -d "$work/prefix"/lib* | head -n 1)
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --exists tempo
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs tempo)
# shellcheck disable=SC2086
"$cc" -std=c11 -o "$work/consumer/pc" "$work/consumer/main.c" $flags
LD_LIBRARY_PATH="$libdir" "$work/consumer/pc"
echo "install_consumer: ok"

# Embedded with add_subdirectory: only the library is built (no tests, tools,
# examples, benchmarks or fuzzers, so no cmocka or SDL2 needed), and a game
# links tempo::tempo.
mkdir -p "$work/embed"
cp "$work/consumer/main.c" "$work/embed/main.c"
cat > "$work/embed/CMakeLists.txt" <<C
cmake_minimum_required(VERSION 3.16)
project(game C)
add_subdirectory("$src" tempo)
add_executable(game main.c)
target_link_libraries(game PRIVATE tempo::tempo)
C
cmake -S "$work/embed" -B "$work/embed/build" -DCMAKE_C_COMPILER="$cc" >/dev/null
targets=$(cmake --build "$work/embed/build" --target help)
for t in test_sync tempo-sim tempo-arena bench_engine fuzz_codec_replay; do
    if printf '%s\n' "$targets" | grep -q "$t"; then
        echo "install_consumer: embedded build defines $t" >&2
        exit 1
    fi
done
cmake --build "$work/embed/build" >/dev/null
"$work/embed/build/game"
echo "install_consumer: embedded ok"

# The public headers compile as C++ (extern "C", no C-only constructs).
if command -v c++ >/dev/null 2>&1; then
    {
        for h in "$work/prefix"/include/tempo/*.h; do echo "#include <tempo/$(basename "$h")>"; done
        echo 'int main() { tempo_config c; tempo_config_default(&c); return c.num_players == 2 ? 0 : 1; }'
    } > "$work/consumer/headers.cpp"
    # the static library's own dependencies (libsodium) come from tempo.pc
    static_deps=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --static --libs-only-l tempo | sed 's/-ltempo//')
    # shellcheck disable=SC2086
    c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I"$work/prefix/include" -o "$work/consumer/cxx" \
        "$work/consumer/headers.cpp" "$work/build/src/libtempo.a" -L"$libdir" $static_deps
    "$work/consumer/cxx"
    echo "install_consumer: C++ headers ok"
fi
