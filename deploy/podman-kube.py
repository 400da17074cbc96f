#!/usr/bin/env python3
"""deploy/k8s's manifests, rendered by kustomize, turned into what `podman kube play` (Podman 4.3) plays on one
host: the same containers, images, settings, probes, limits and mounts, in plain Pods.

    kubectl kustomize deploy/k8s | deploy/podman-kube.py --prefix site1 [options] > site1.yaml
    podman network create site1 && podman kube play --network site1 site1.yaml
    podman kube down site1.yaml && podman volume rm site1-media site1-postgres-data && podman network rm site1

Generated, never kept: the manifests stay the one copy. What Podman 4.3 takes is Pods, Deployments,
PersistentVolumeClaims and ConfigMaps; it refuses the rest ("YAML document does not contain any supported kube
kind" for a Job or a StatefulSet; a Secret's values as an environment source: "secret … is not valid JSON").
So, and nothing more:

- each Deployment, StatefulSet and Job becomes one Pod of its template (one replica: podman has no scheduler),
  named PREFIX-NAME; a Job's pod keeps its restartPolicy (OnFailure), the others restart Always; a
  StatefulSet's volumeClaimTemplates become PersistentVolumeClaims (PREFIX-TEMPLATE-NAME);
- the Secret becomes a ConfigMap of the same values and every secretKeyRef a configMapKeyRef;
- every name Podman keeps host-wide (pods, volumes, ConfigMaps) gets the prefix, so two sites on one engine
  never meet, and every pod the label app.kubernetes.io/instance=PREFIX;
- an exec probe's command is one shell word (Podman 4.3 joins its words with spaces, quotes lost);
- no containerPort is published (Podman 4.3 would publish each on the host's same port) but --publish's;
- a Service is its pods' DNS name on the Podman network: the host in a setting's URL that names a Service
  (postgres, redis) becomes the name of the pod it selects; Services, PodDisruptionBudgets, NetworkPolicies
  and the Namespace have no Podman counterpart and are left out (listed in the output's first lines).

Options place the host's own things: --image OLD=NEW (the local images), --engine-socket PATH (the node's
engine socket the workers mount), --worker-dir PATH (the workers' folder, the same path on both sides),
--set NAME=VALUE (a setting or a secret), --publish POD=PORT (a pod's first port on 127.0.0.1:PORT),
--leave-out NAME (a workload not played). Needs PyYAML (Debian: python3-yaml).
"""

from __future__ import annotations

import argparse
import copy
import re
import shlex
import sys
from typing import Any

import yaml

WORKLOADS = ("Deployment", "StatefulSet", "Job")
NO_COUNTERPART = ("Namespace", "Service", "PodDisruptionBudget", "NetworkPolicy")
ENGINE_SOCKET = "/run/podman/podman.sock"  # worker.yaml's hostPath
WORKER_DIR = "/var/lib/kozyr-worker"  # worker.yaml's hostPath and mount, the same path on both sides


def pairs(values: list[str], option: str) -> dict[str, str]:
    found = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name:
            raise SystemExit(f"podman-kube.py: {option} {value!r}: expected NAME=VALUE")
        found[name] = rest
    return found


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def convert(resources: list[dict], prefix: str, images: dict[str, str], engine_socket: str | None,
            worker_dir: str | None, settings: dict[str, str], publish: dict[str, int],
            leave_out: set[str]) -> tuple[list[dict], list[str]]:
    """(the documents podman plays, what was left out as KIND/NAME)."""
    named = f"{prefix}-{{}}".format
    left: list[str] = []
    pods: list[dict] = []
    claims: list[dict] = []
    maps: list[dict] = []
    services = [r for r in resources if r["kind"] == "Service"]
    for resource in resources:
        kind, name = resource["kind"], resource["metadata"]["name"]
        if kind in NO_COUNTERPART or (kind in WORKLOADS and name in leave_out):
            left.append(f"{kind}/{name}")
        elif kind in ("ConfigMap", "Secret"):
            data = {**resource.get("data", {}), **resource.get("stringData", {})}
            if kind == "Secret" and resource.get("data"):
                raise SystemExit(f"podman-kube.py: Secret/{name}: give its values as stringData")
            maps.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": named(name)},
                         "data": {key: str(value) for key, value in data.items()}})
        elif kind == "PersistentVolumeClaim":
            claims.append(renamed(resource, named(name)))
        elif kind in WORKLOADS:
            template = copy.deepcopy(resource["spec"]["template"])
            spec = template["spec"]
            for claim in resource["spec"].get("volumeClaimTemplates", []):
                claim_name = named(f"{claim['metadata']['name']}-{name}")
                claims.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                               "metadata": {"name": claim_name}, "spec": claim["spec"]})
                spec.setdefault("volumes", []).append(
                    {"name": claim["metadata"]["name"], "persistentVolumeClaim": {"claimName": claim_name}})
            labels = {**template.get("metadata", {}).get("labels", {}), "app.kubernetes.io/instance": prefix}
            pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": named(name), "labels": labels},
                         "spec": spec, "_workload": name})
        else:
            raise SystemExit(f"podman-kube.py: {kind}/{name}: no Podman counterpart known; leave it out of the input")
    settings_left = dict(settings)
    for config in maps:
        for key in list(config["data"]):
            if key in settings_left:
                config["data"][key] = settings_left.pop(key)
    if settings_left:
        raise SystemExit(f"podman-kube.py: --set {', '.join(settings_left)}: no ConfigMap or Secret holds it")
    # A Service's name, in a URL of a setting, is the name of the pod it selects (Podman's DNS names pods).
    hosts = {}
    for service in services:
        chosen = [pod["metadata"]["name"] for pod in pods if selects(service["spec"].get("selector", {}),
                                                                     pod["metadata"]["labels"])]
        if chosen:
            hosts[service["metadata"]["name"]] = chosen[0]
    for config in maps:
        for key, value in config["data"].items():
            for service, pod in hosts.items():
                value = re.sub(rf"(?<=[@/]){re.escape(service)}(?=[:/]|$)", pod, value)
            config["data"][key] = value
    for pod in pods:
        workload = pod.pop("_workload")
        spec = pod["spec"]
        for volume in spec.get("volumes", []):
            claim = volume.get("persistentVolumeClaim")
            if claim and not claim["claimName"].startswith(f"{prefix}-"):
                claim["claimName"] = named(claim["claimName"])
            path = volume.get("hostPath")
            if path and engine_socket and path["path"] == ENGINE_SOCKET:
                path["path"] = engine_socket
        for container in spec.get("initContainers", []) + spec["containers"]:
            container["image"] = images.get(container["image"], container["image"])
            for item in container.get("env", []):
                ref = item.get("valueFrom", {})
                for source in ("secretKeyRef", "configMapKeyRef"):
                    if source in ref:
                        key_ref = ref.pop(source)
                        ref["configMapKeyRef"] = {**key_ref, "name": named(key_ref["name"])}
                        break
            for source in container.get("envFrom", []):
                for kind in ("secretRef", "configMapRef"):
                    if kind in source:
                        ref = source.pop(kind)
                        source["configMapRef"] = {**ref, "name": named(ref["name"])}
                        break
            # Podman 4.3 runs an exec probe as a shell command of its words joined by spaces ("sh -c cd /x && y"
            # runs `cd` alone, then y elsewhere): the command goes as one word, quoted as the shell reads it.
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                action = container.get(probe, {}).get("exec")
                if action and len(action["command"]) > 1:
                    action["command"] = [shlex.join(action["command"])]
            # Podman 4.3 publishes a containerPort without a hostPort on the host's same port (a second site, or
            # a PostgreSQL of the host's own, then stops the pod): pods reach each other on their network, and
            # only what --publish names is published, on 127.0.0.1.
            ports = container.pop("ports", [])
            if workload in publish and container is spec["containers"][0]:
                container["ports"] = [{**ports[0], "hostPort": publish[workload], "hostIP": "127.0.0.1"}]
    documents: list[dict] = maps + claims + pods
    if worker_dir:
        text = yaml.safe_dump_all(documents, sort_keys=False).replace(WORKER_DIR, worker_dir)
        documents = list(yaml.safe_load_all(text))
    return documents, left


def renamed(resource: dict, name: str) -> dict:
    copied = copy.deepcopy(resource)
    copied["metadata"] = {"name": name}
    return copied


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prefix", required=True, help="names the pods, volumes and ConfigMaps of this site")
    parser.add_argument("--image", action="append", default=[], metavar="OLD=NEW")
    parser.add_argument("--engine-socket", metavar="PATH")
    parser.add_argument("--worker-dir", metavar="PATH")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--publish", action="append", default=[], metavar="POD=PORT")
    parser.add_argument("--leave-out", action="append", default=[], metavar="NAME")
    parser.add_argument("input", nargs="?", default="-", help="kustomize's output (default: stdin)")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?", args.prefix):
        parser.error(f"--prefix {args.prefix!r}: lower-case letters, digits and dashes, at most 40")
    text = sys.stdin.read() if args.input == "-" else open(args.input).read()  # noqa: SIM115
    resources: list[dict[str, Any]] = [doc for doc in yaml.safe_load_all(text) if doc]
    publish = {name: int(port) for name, port in pairs(args.publish, "--publish").items()}
    documents, left = convert(resources, args.prefix, pairs(args.image, "--image"), args.engine_socket,
                              args.worker_dir, pairs(args.set, "--set"), publish, set(args.leave_out))
    print("# Generated by deploy/podman-kube.py from deploy/k8s: do not edit, generate again.")
    print(f"# Left out (no Podman counterpart, or --leave-out): {', '.join(left) or 'nothing'}")
    print(yaml.safe_dump_all(documents, sort_keys=False), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
