# SPDX-License-Identifier: MIT
# Loopback ports for one run of a test script. ctest runs tests in parallel,
# so ports derived from the process id alone can collide. A block of 64 ports
# is reserved by creating a directory (atomic) that names the owning shell;
# a block whose owner is gone is taken over by renaming it away first, so two
# scripts cannot both take it over. The blocks lie in 20000..32767, below
# the kernel's ephemeral range, where outgoing sockets get their ports.
#
# reserve_ports: sets $ports to the first port of a block this process holds
# until it exits; returns 1 (with a message) when every block is held.
reserve_ports() {
    _root=${TMPDIR:-/tmp}/tempo-test-ports
    mkdir -p "$_root" || return 1
    _blocks=199
    _i=$(($$ % _blocks))
    _tried=0
    while [ "$_tried" -lt "$_blocks" ]; do
        _lock=$_root/$_i
        if mkdir "$_lock" 2>/dev/null; then
            echo $$ > "$_lock/pid"
            ports=$((20000 + _i * 64))
            return 0
        fi
        _owner=$(cat "$_lock/pid" 2>/dev/null)
        # no pid yet: its owner is writing it
        if [ -n "$_owner" ] && ! kill -0 "$_owner" 2>/dev/null &&
            mv "$_lock" "$_lock.gone.$$" 2>/dev/null; then
            rm -rf "$_lock.gone.$$"
            continue
        fi
        _i=$(((_i + 1) % _blocks))
        _tried=$((_tried + 1))
    done
    echo "no free block of test ports under $_root"
    return 1
}
