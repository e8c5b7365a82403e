#!/bin/sh
# SPDX-License-Identifier: MIT
# Fleet sizing from measurement (docs/DEPLOY.md): relay-load runs RUNS
# times (125 matches of 8 members on loopback, 10 s measured each), then
# prints three markdown tables: each run; what one member costs (the
# median cost per datagram, the median bytes); and a fleet of relays of
# 1,000 members for 10,000 and 1,000,000 concurrent players in 10-minute
# matches of 8, with the FleetAutoscaler buffer for a relay taking T
# seconds to become Ready.
# usage: relay_sizing.sh BUILD_DIR [RUNS]   (BUILD_DIR: make release's build/release)
set -u
build=$1
runs=${2:-5}
load=$build/tools/tempo-relay/relay-load
relay=$build/tools/tempo-relay/tempo-relay
[ -x "$load" ] && [ -x "$relay" ] || { echo "relay_sizing: no relay-load in $build (make release)" >&2; exit 2; }
work=$(mktemp -d)
udp=$((44000 + $$ % 1000))
i=1
while [ $i -le "$runs" ]; do
    "$load" --relay-program "$relay" --port $udp --matches 125 --players 8 --seconds 10 \
        --warmup-seconds 4 > "$work/run.$i" 2>&1
    i=$((i + 1))
done
echo "| run | relay CPU per datagram handled (in + out) | per datagram sent | datagrams out + in per second | up per member | down per member |"
echo "|---|---|---|---|---|---|"
i=1
while [ $i -le "$runs" ]; do
    awk -v run=$i '
        /per datagram sent/ { sent = $6; handled = $14 }
        /^relay datagrams out/ { gsub(/[()\/s,]/, " "); out = $5; inn = $8 }
        /^per member:/ { gsub(/[(),]/, " "); up = $4; upe = $6; down = $11; downe = $13 }
        END {
            printf "| %d | %s µs | %s µs | %s + %s | %s B/s (%s B each) | %s B/s (%s B each) |\n",
                run, handled, sent, out, inn, up, upe, down, downe
            printf "%s %s %s\n", handled, up, down > "/dev/stderr"
        }' "$work/run.$i" 2>> "$work/values"
    i=$((i + 1))
done
median() { # column of $work/values
    awk -v c="$1" '{ print $c }' "$work/values" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
us=$(median 1)
up=$(median 2)
down=$(median 3)
echo
awk -v us="$us" -v up="$up" -v down="$down" 'BEGIN {
    cpu = 120 * us                      # a member: 60 datagrams in and 60 out a second
    wup = up + 60 * 28; wdown = down + 60 * 28   # + IPv4 and UDP headers
    print "| per member (matches of 8, 60 Hz) | from the medians |"
    print "|---|---|"
    print "| datagrams | 60 up, 60 down a second |"
    printf "| relay CPU | 120 x %s µs = %.2f ms a second: %d members per core at 100 %% |\n", us, cpu / 1000, 1e6 / cpu
    printf "| UDP payload | %d B/s up, %d B/s down |\n", up, down
    printf "| on the wire (+ 28 B of IPv4 and UDP headers a datagram) | %d B/s (%.1f kbit/s) up, %d B/s (%.1f kbit/s) down |\n",
        wup, wup * 8 / 1000, wdown, wdown * 8 / 1000
    print ""
    print "| relays of 1,000 members, matches of 8 lasting 600 s | N = 10,000 | N = 1,000,000 |"
    print "|---|---|---|"
    n[1] = 10000; n[2] = 1000000
    for (k = 1; k <= 2; k++) {
        m[k] = n[k] / 8; r[k] = int((n[k] + 999) / 1000); l[k] = m[k] / 600
        b60[k] = int(l[k] * 60 / 125 + 0.999999) + 1; b180[k] = int(l[k] * 180 / 125 + 0.999999) + 1
    }
    printf "| matches at once | %d | %d |\n", m[1], m[2]
    printf "| relays full, and cores (one each) | %d | %d |\n", r[1], r[2]
    printf "| bandwidth to players | %.1f MB/s (%.0f Mbit/s) | %.2f GB/s (%.1f Gbit/s) |\n",
        n[1] * wdown / 1e6, n[1] * wdown * 8 / 1e6, n[2] * wdown / 1e9, n[2] * wdown * 8 / 1e9
    printf "| bandwidth from players | %.1f MB/s (%.0f Mbit/s) | %.2f GB/s (%.1f Gbit/s) |\n",
        n[1] * wup / 1e6, n[1] * wup * 8 / 1e6, n[2] * wup / 1e9, n[2] * wup * 8 / 1e9
    printf "| packets a second, each way | %d | %d |\n", n[1] * 60, n[2] * 60
    printf "| match arrivals (matches at once / 600 s) | %.1f a second | %.0f a second |\n", l[1], l[2]
    printf "| bufferSize, T = 60 s | %d | %d |\n", b60[1], b60[2]
    printf "| bufferSize, T = 180 s | %d | %d |\n", b180[1], b180[2]
}'
rm -rf "$work"
