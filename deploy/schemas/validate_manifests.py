#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""validate_manifests.py FILE... — check Agones manifests (GameServer, Fleet,
FleetAutoscaler) against the schemas of Agones' CustomResourceDefinitions
kept beside this file (agones-v1.31.0-crds.json), as strictly as a cluster
with strict field validation (kubectl apply --validate=strict):

- every object the schema describes admits only the fields it names (a
  misspelled field is an error, where Kubernetes would drop it silently
  without strict validation), unless the schema keeps unknown fields;
- types, enums, patterns, bounds and required fields as the schema says
  (OpenAPI 3.0's nullable and boolean exclusiveMinimum read as Kubernetes
  reads them);
- apiVersion and kind must name the CRD's group, version v1 and kind, and
  metadata may hold only name, generateName, namespace, labels and
  annotations (string maps), the fields a manifest sets.

Prints one line per error (file, document, path, message) and exits 1 if
there is any, 2 on a usage or setup error (python3-jsonschema and
python3-yaml missing: scripts/bootstrap.sh installs them)."""
import copy
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # the test says how to get them
    print(f"validate_manifests: {e}: install python3-jsonschema and python3-yaml "
          "(scripts/bootstrap.sh)", file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "agones-v1.31.0-crds.json")

OBJECT_META = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 253,
                 "pattern": "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"},
        "generateName": {"type": "string", "maxLength": 253},
        "namespace": {"type": "string", "maxLength": 63},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def strict(node):
    """An OpenAPI 3.0 schema of a CRD as a strict JSON Schema (draft 7)."""
    if isinstance(node, list):
        return [strict(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties"):
            out[key] = {k: strict(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = strict(value)
        elif key in ("anyOf", "allOf", "oneOf"):
            out[key] = [strict(v) for v in value]
        elif key.startswith("x-kubernetes-") or key in ("nullable", "title", "format"):
            continue
        else:
            out[key] = value
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if out.get(exclusive) is True and bound in out:
            out[exclusive] = out.pop(bound)
        elif out.get(exclusive) is False:
            del out[exclusive]
    keeps_unknown = node.get("x-kubernetes-preserve-unknown-fields") or node.get(
        "x-kubernetes-embedded-resource")
    if node.get("type") == "object" and "properties" in node and \
            "additionalProperties" not in node and not keeps_unknown:
        out["additionalProperties"] = False
    return out


def resolve(node, pod):
    if isinstance(node, dict):
        if node.get("$ref") == "#/podTemplateSpec":
            return copy.deepcopy(pod)
        return {k: resolve(v, pod) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v, pod) for v in node]
    return node


def schemas():
    data = json.load(open(DATA, encoding="utf-8"))
    out = {}
    for kind, crd in data["kinds"].items():
        s = strict(resolve(crd["schema"], data["podTemplateSpec"]))
        s["properties"]["apiVersion"] = {"const": crd["group"] + "/v1"}
        s["properties"]["kind"] = {"const": kind}
        s["properties"]["metadata"] = OBJECT_META
        s["required"] = sorted(set(s.get("required", [])) | {"apiVersion", "kind", "metadata"})
        s["additionalProperties"] = False
        jsonschema.Draft7Validator.check_schema(s)
        out[kind] = s
    return out


def main(files):
    if not files:
        print("usage: validate_manifests.py FILE...", file=sys.stderr)
        return 2
    known = schemas()
    errors = checked = 0
    for path in files:
        try:
            docs = [d for d in yaml.safe_load_all(open(path, encoding="utf-8")) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            print(f"{path}: {e}")
            errors += 1
            continue
        for i, doc in enumerate(docs):
            kind = doc.get("kind") if isinstance(doc, dict) else None
            if kind not in known:
                print(f"{path}: document {i + 1}: kind {kind!r} is none of "
                      f"{', '.join(sorted(known))}")
                errors += 1
                continue
            checked += 1
            validator = jsonschema.Draft7Validator(known[kind])
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
                where = ".".join(str(p) for p in e.absolute_path) or "(top)"
                print(f"{path}: document {i + 1} ({kind}): {where}: {e.message}")
                errors += 1
    print(f"validate_manifests: {checked} manifests, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
