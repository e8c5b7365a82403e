#!/bin/sh
# SPDX-License-Identifier: MIT
# deploy/'s Agones manifests against the schemas of Agones' CRDs kept in
# deploy/schemas (deploy/schemas/validate_manifests.py, strict: a field the
# schema does not name is an error): every manifest validates, and each of
# these breakages fails, naming what is wrong: misspelled fields at five
# depths (the pod's, a container's, a port's, the autoscaler's policy, the
# metadata), a value outside an enum, a port out of range, a missing
# required field, a wrong apiVersion and kind.
# Needs python3 with jsonschema and yaml (scripts/bootstrap.sh installs
# python3-jsonschema and python3-yaml); exit 77 (skip) without them.
# usage: deploy_manifests.sh <source dir> <work dir>
set -u
src=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
py=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import jsonschema, yaml' 2>/dev/null; then
        py=$p
        break
    fi
done
[ -n "$py" ] || { echo "SKIP: python3 with jsonschema and yaml not found (scripts/bootstrap.sh installs python3-jsonschema and python3-yaml)"; exit 77; }
check="$py $src/deploy/schemas/validate_manifests.py"
$check "$src"/deploy/*.yaml > "$work/all.txt" 2>&1 || { cat "$work/all.txt"; fail "deploy/ does not validate"; }
grep -q "3 manifests, 0 errors" "$work/all.txt" || fail "not 3 manifests: $(cat "$work/all.txt")"

# broken FILE SED-EXPRESSION EXPECTED: a copy of the manifest with one
# change, whose errors must say EXPECTED (all checked in one run below)
n=0
: > "$work/expect.txt"
broken() {
    n=$((n + 1))
    sed "$2" "$src/deploy/$1" > "$work/broken$n.yaml"
    cmp -s "$src/deploy/$1" "$work/broken$n.yaml" && fail "case $n: the change '$2' changed nothing"
    printf '%s\t%s\t%s\n' "$work/broken$n.yaml" "$2" "$3" >> "$work/expect.txt"
}
broken relay-fleet.yaml 's/terminationGracePeriodSeconds/terminationGracePeriodSecond/' "'terminationGracePeriodSecond' was unexpected"
broken relay-fleet.yaml 's/  image: tempo/  imagee: tempo/' "'imagee' was unexpected"
broken relay-fleet.yaml 's/portPolicy: Dynamic/portPolicyy: Dynamic/' "'portPolicyy' was unexpected"
broken relay-autoscaler.yaml 's/bufferSize:/buffersize:/' "'buffersize' was unexpected"
broken pong-gameserver.yaml 's/^  labels:/  lables:/' "'lables' was unexpected"
broken pong-gameserver.yaml 's/protocol: UDP/protocol: UPD/' "'UPD' is not one of"
broken relay-fleet.yaml 's/containerPort: 7000/containerPort: 70000/' "70000 is greater than the maximum"
broken relay-autoscaler.yaml '/fleetName:/d' "'fleetName' is a required property"
broken pong-gameserver.yaml 's|apiVersion: agones.dev/v1|apiVersion: agones.dev/v2|' "apiVersion"
broken relay-fleet.yaml 's/^kind: Fleet/kind: Flet/' "kind 'Flet' is none of"
$check "$work"/broken*.yaml > "$work/broken.txt" 2>&1 && fail "the broken manifests validated"
tab=$(printf '\t')
while IFS="$tab" read -r file change want; do
    grep "^$file: " "$work/broken.txt" | grep -q "$want" ||
        fail "'$change': no '$want' among: $(grep "^$file: " "$work/broken.txt")"
done < "$work/expect.txt"
echo "deploy_manifests: ok (3 manifests valid, $n broken ones refused)"
