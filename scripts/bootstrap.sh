#!/bin/sh
# SPDX-License-Identifier: MIT
# bootstrap.sh — make sure tempo's build dependencies are present.
#
# It looks for what the build needs (tools on the PATH, libraries through
# pkg-config or a compile test), installs only what is missing with the
# machine's package manager (apt-get, dnf, pacman, apk or brew), and
# otherwise prints the exact list. Quick when everything is there. As root
# (or with brew) it installs; as another user it prints the command and
# exits 1. `make BOOTSTRAP=0 ...` skips it entirely.
#
# What each need is for: cmake, make and a C compiler build the library;
# pkg-config finds the rest; cmocka runs the tests; xxhash.h gives the
# checksum; libsodium seals datagrams and connect tokens; clang with its
# sanitizer runtime builds the ASan+UBSan test run and the fuzzers; SDL2
# builds the demo window (optional for the library); iproute2, nftables and
# conntrack build the emulated home routers of the NAT test; Chromium renders the
# simulator's report headless in a test (skipped without it); Python's
# jsonschema and yaml check deploy/'s manifests against Agones' schemas.
#
# `sh scripts/bootstrap.sh windows` checks instead what `make test-windows`
# needs on top of that: the mingw-w64 cross compiler and Wine (wine64). The
# default run never installs them: they are large and only that target uses
# them.
#
# `sh scripts/bootstrap.sh wasm` checks what `make wasm` and the browser test
# need: Emscripten (emcc, Debian's offline toolchain) and Chromium. The
# default run installs Chromium already; Emscripten only comes with this one.
# It also fetches Debian's libsodium source package into build/wasm/
# sodium-src (a deb-src entry for the system's suite is added when there is
# none), which scripts/build-wasm.sh compiles so the page seals its
# datagrams; without it (not root, no apt-get) the page builds unsealed.
set -eu
target=${1:-}

cc_ok() { # cc_ok COMPILER FLAGS...: can it compile and link a tiny program?
    c=$1; shift
    command -v "$c" >/dev/null 2>&1 || return 1
    tmp=$(mktemp -d) || return 1
    printf '%s\n' "$PROBE" > "$tmp/p.c"
    "$c" "$@" "$tmp/p.c" -o "$tmp/p" >/dev/null 2>&1
    rc=$?
    rm -rf "$tmp"
    return $rc
}
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }

missing=""
need() { missing="$missing $1"; }

if [ "$target" = windows ]; then
    command -v cmake >/dev/null 2>&1 || need cmake
    command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need mingw-w64
    command -v wine64 >/dev/null 2>&1 || [ -x /usr/lib/wine/wine64 ] || need wine64
    [ -f /usr/include/xxhash.h ] || need xxhash # the cross build copies it
fi

if [ "$target" = wasm ]; then
    command -v emcc >/dev/null 2>&1 || need emscripten
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
        command -v google-chrome >/dev/null 2>&1 || need chromium
fi

# Debian's libsodium source for the WebAssembly build (see the top).
fetch_sodium_source() {
    dest=$(cd "$(dirname "$0")/.." && pwd)/build/wasm/sodium-src
    [ -d "$dest/src/libsodium" ] && return 0
    if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
        echo "bootstrap: no libsodium source for the page (needs root and apt-get): it builds unsealed" >&2
        return 0
    fi
    if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
        suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
        [ -n "$suite" ] || { echo "bootstrap: unknown Debian suite: the page builds unsealed" >&2; return 0; }
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$suite" > /etc/apt/sources.list.d/tempo-deb-src.sources
        apt-get update -q >/dev/null || true
    fi
    tmp=$(mktemp -d)
    if (cd "$tmp" && apt-get source -q --download-only libsodium >/dev/null 2>&1) &&
        orig=$(ls "$tmp"/libsodium_*.orig.tar.* 2>/dev/null | head -n 1) && [ -n "$orig" ]; then
        mkdir -p "$dest"
        tar xf "$orig" -C "$dest" --strip-components=1
        echo "bootstrap: libsodium source ($(basename "$orig")) in $dest"
    else
        echo "bootstrap: could not fetch Debian's libsodium source: the page builds unsealed" >&2
    fi
    rm -rf "$tmp"
}

PROBE='int main(void){return 0;}'
[ "$target" = windows ] || [ "$target" = wasm ] || {
command -v cmake >/dev/null 2>&1 || need cmake
command -v make >/dev/null 2>&1 || need make
cc_ok cc || cc_ok gcc || need cc
command -v pkg-config >/dev/null 2>&1 || need pkg-config
have_pc cmocka || need cmocka
PROBE='#include <xxhash.h>
int main(void){return (int)XXH_versionNumber() < 0;}'
cc_ok cc -c || cc_ok gcc -c || need xxhash
have_pc libsodium || need sodium
PROBE='int main(void){return 0;}'
if command -v clang >/dev/null 2>&1; then
    cc_ok clang -fsanitize=address,undefined || need clang-rt
else
    need clang
    need clang-rt
fi
have_pc sdl2 || need sdl2
# a headless browser renders the simulator's report in a test
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
    command -v google-chrome >/dev/null 2>&1 || need chromium
# the NAT lab test (tests/nat_lab.sh) builds network namespaces with
# iproute2 and emulates home routers with nftables; conntrack flushes a
# router's table mid-match
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || need iproute2
command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || need nftables
command -v conntrack >/dev/null 2>&1 || [ -x /usr/sbin/conntrack ] || need conntrack
# deploy/'s Agones manifests are checked against Agones' schemas in a test
PY_CHECK='import jsonschema, yaml'
{ python3 -c "$PY_CHECK" 2>/dev/null || /usr/bin/python3 -c "$PY_CHECK" 2>/dev/null; } ||
    need jsonschema
}

if [ -z "$missing" ]; then
    [ "$target" = wasm ] && fetch_sodium_source
    exit 0
fi

# The package of each need, per package manager.
pkg() { # pkg MANAGER NEED
    case "$1:$2" in
    *:cmake) echo cmake ;;
    *:make) echo make ;;
    brew:cc) echo llvm ;;
    *:cc) echo gcc ;;
    apt:pkg-config|brew:pkg-config) echo pkg-config ;;
    dnf:pkg-config) echo pkgconf-pkg-config ;;
    *:pkg-config) echo pkgconf ;;
    apt:cmocka) echo libcmocka-dev ;;
    dnf:cmocka) echo libcmocka-devel ;;
    apk:cmocka) echo cmocka-dev ;;
    *:cmocka) echo cmocka ;;
    apt:xxhash) echo libxxhash-dev ;;
    dnf:xxhash) echo xxhash-devel ;;
    apk:xxhash) echo xxhash-dev ;;
    *:xxhash) echo xxhash ;;
    apt:sodium|apk:sodium) echo libsodium-dev ;;
    dnf:sodium) echo libsodium-devel ;;
    *:sodium) echo libsodium ;;
    brew:clang) echo llvm ;;
    *:clang) echo clang ;;
    apt:clang-rt) echo libclang-rt-dev ;;
    brew:clang-rt) echo llvm ;;
    *:clang-rt) echo compiler-rt ;;
    apt:sdl2) echo libsdl2-dev ;;
    dnf:sdl2) echo SDL2-devel ;;
    apk:sdl2) echo sdl2-dev ;;
    *:sdl2) echo sdl2 ;;
    brew:chromium) ;; # a cask, not a formula: the render test skips without it
    *:chromium) echo chromium ;;
    brew:iproute2|brew:nftables|brew:conntrack) ;; # Linux only: the NAT lab test skips
    *:iproute2) echo iproute2 ;;
    *:nftables) echo nftables ;;
    dnf:conntrack|pacman:conntrack) echo conntrack-tools ;;
    *:conntrack) echo conntrack ;;
    apt:jsonschema) echo "python3-jsonschema python3-yaml" ;;
    dnf:jsonschema) echo "python3-jsonschema python3-pyyaml" ;;
    pacman:jsonschema) echo "python-jsonschema python-yaml" ;;
    apk:jsonschema) echo "py3-jsonschema py3-yaml" ;;
    brew:jsonschema) ;; # pip's, not a formula: the manifest test skips without it
    apt:mingw-w64) echo "mingw-w64 gcc-mingw-w64-x86-64" ;;
    dnf:mingw-w64) echo mingw64-gcc ;;
    pacman:mingw-w64) echo mingw-w64-gcc ;;
    *:mingw-w64) echo mingw-w64 ;;
    apt:wine64) echo wine64 ;;
    brew:emscripten) echo emscripten ;;
    *:emscripten) echo emscripten ;;
    *:wine64) echo wine ;;
    esac
}

manager=""
for m in apt-get dnf pacman apk brew; do
    if command -v "$m" >/dev/null 2>&1; then manager=$m; break; fi
done
short=$manager
[ "$manager" = apt-get ] && short=apt
packages=""
if [ -n "$manager" ]; then
    for n in $missing; do
        p=$(pkg "$short" "$n")
        [ -n "$p" ] || continue
        case " $packages " in *" $p "*) ;; *) packages="$packages $p" ;; esac
    done
fi

case "$manager" in
apt-get) cmd="apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends$packages" ;;
dnf) cmd="dnf install -y$packages" ;;
pacman) cmd="pacman -S --needed --noconfirm$packages" ;;
apk) cmd="apk add$packages" ;;
brew) cmd="brew install$packages" ;;
*) cmd="" ;;
esac

if [ -z "$cmd" ]; then
    echo "bootstrap: missing:$missing" >&2
    echo "bootstrap: no known package manager here; install those, or run make with BOOTSTRAP=0" >&2
    exit 1
fi
if [ "$manager" != brew ] && [ "$(id -u)" -ne 0 ]; then
    echo "bootstrap: missing:$missing" >&2
    echo "bootstrap: as root, run:  $cmd" >&2
    echo "bootstrap: (or run make with BOOTSTRAP=0 to skip this check)" >&2
    exit 1
fi
echo "bootstrap: installing$packages"
sh -c "$cmd"
[ "$target" = wasm ] && fetch_sodium_source
exit 0
