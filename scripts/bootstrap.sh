#!/bin/sh
# bootstrap.sh — install tempo's build dependencies on a Debian machine.
# Quick when everything is present (one dpkg query). As root it installs what is
# missing with apt-get; otherwise it prints the exact command and exits 1.
set -eu

# build tools, test framework, checksum header, sanitizer/fuzzer runtime,
# SDL2 for the demo window.
PACKAGES="cmake make gcc g++ clang libclang-rt-dev pkg-config libcmocka-dev libxxhash-dev libsdl2-dev"

missing=""
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing="$missing $p"
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "bootstrap: missing build dependencies:$missing" >&2
    echo "bootstrap: run as root:  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

echo "bootstrap: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
