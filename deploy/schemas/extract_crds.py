#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""extract_crds.py INSTALL_YAML OUT_JSON — keep the OpenAPI schemas of the
Agones CustomResourceDefinitions deploy/ uses (GameServer, Fleet,
FleetAutoscaler) from Agones' install manifest, as the data
validate_manifests.py checks against: descriptions removed (they are prose,
not rules), the pod template (the same in GameServer and Fleet) kept once
and referenced, everything else as Agones wrote it."""
import json
import sys

import yaml

KINDS = {"gameservers.agones.dev": "GameServer", "fleets.agones.dev": "Fleet",
         "fleetautoscalers.autoscaling.agones.dev": "FleetAutoscaler"}


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main():
    install, out = sys.argv[1], sys.argv[2]
    crds = {}
    for doc in yaml.safe_load_all(open(install, encoding="utf-8")):
        if not doc or doc.get("kind") != "CustomResourceDefinition":
            continue
        name = doc["metadata"]["name"]
        if name not in KINDS:
            continue
        for version in doc["spec"]["versions"]:
            if version["name"] == "v1":
                crds[KINDS[name]] = {"group": doc["spec"]["group"],
                                     "schema": strip(version["schema"]["openAPIV3Schema"])}
    gs_spec = crds["GameServer"]["schema"]["properties"]["spec"]["properties"]
    fleet_gs = crds["Fleet"]["schema"]["properties"]["spec"]["properties"]["template"][
        "properties"]["spec"]["properties"]
    pod = gs_spec["template"]
    assert fleet_gs["template"] == pod, "the pod templates differ: keep both"
    gs_spec["template"] = fleet_gs["template"] = {"$ref": "#/podTemplateSpec"}
    data = {
        "source": "Agones v1.31.0, install/yaml/install.yaml: the openAPIV3Schema of the v1 "
                  "CustomResourceDefinitions gameservers.agones.dev, fleets.agones.dev and "
                  "fleetautoscalers.autoscaling.agones.dev (descriptions removed, the pod "
                  "template kept once under podTemplateSpec), by deploy/schemas/extract_crds.py",
        "license": "Apache-2.0, Copyright Google LLC: see LICENSE-agones beside this file",
        "podTemplateSpec": pod,
        "kinds": crds,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
