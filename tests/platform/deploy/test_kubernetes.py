"""deploy/k8s/: Kubernetes manifests for a site that outgrows one host, checked without a cluster. kustomize
renders them (kubectl's, offline), every resource passes Kubernetes' own schema strictly (kubernetes-validate),
and they run the platform as docker-compose.yml does: the same roles, settings, health checks and grace."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.platform.deploy.test_deployment import PROCESS_VARIABLES, sandbox_names, service, settings_names

kubernetes_validate = pytest.importorskip("kubernetes_validate")

REPO = Path(__file__).resolve().parents[3]
K8S = REPO / "deploy" / "k8s"
PLATFORM_ROLES = {"migrate", "web", "worker", "maintenance", "beat"}


@pytest.fixture(scope="module")
def resources() -> list[dict]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (Debian: kubernetes-client): kustomize renders the manifests")
    done = subprocess.run([kubectl, "kustomize", str(K8S)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def by_name(resources: list[dict], kind: str) -> dict[str, dict]:
    return {r["metadata"]["name"]: r for r in resources if r["kind"] == kind}


def containers(resource: dict) -> list[dict]:
    return resource["spec"]["template"]["spec"]["containers"]


def test_every_resource_passes_kubernetes_schema_strictly(resources):
    version = kubernetes_validate.latest_version()
    for resource in resources:
        kubernetes_validate.validate(resource, version, strict=True)
    assert {r["metadata"].get("namespace") for r in resources if r["kind"] != "Namespace"} == {"kozyr"}


def test_the_schema_check_finds_a_misspelt_field(resources):
    web = yaml.safe_load(yaml.safe_dump(by_name(resources, "Deployment")["web"]))
    containers(web)[0]["resource"] = containers(web)[0].pop("resources")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(web, kubernetes_validate.latest_version(), strict=True)


def test_the_platform_roles_are_the_compose_files(resources):
    deployments, jobs = by_name(resources, "Deployment"), by_name(resources, "Job")
    roles = {name: containers(spec)[0] for name, spec in {**deployments, **jobs}.items()
             if containers(spec)[0]["image"].endswith("kozyr-platform:latest")}
    assert set(roles) == PLATFORM_ROLES
    assert all(container["args"] == [name] for name, container in roles.items())  # the entry point's roles
    assert jobs["migrate"]["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
    beat = deployments["beat"]["spec"]
    assert beat["replicas"] == 1 and beat["strategy"]["type"] == "Recreate"  # never two beats, even in a rollout
    # A stopping worker finishes its match: compose's stop_grace_period.
    grace = deployments["worker"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert f"{grace // 60}m" == service("worker")["stop_grace_period"]
    # The worker's liveness is compose's health check, word for word (compose writes `$` as `$$`).
    assert containers(deployments["worker"])[0]["livenessProbe"]["exec"]["command"][2] == \
        service("worker")["healthcheck"]["test"][1].replace("$$", "$")  # fmt: skip


def test_every_container_has_requests_limits_and_probes(resources):
    for kind in ("Deployment", "StatefulSet", "Job"):
        for name, resource in by_name(resources, kind).items():
            for container in containers(resource):
                limits = container["resources"]
                assert {"cpu", "memory"} <= set(limits["requests"]) and "memory" in limits["limits"], name
                if kind != "Job":
                    assert "livenessProbe" in container, f"{name}: nothing notices it hung"  # beat's too
                assert container.get("securityContext", {}).get("allowPrivilegeEscalation") is False or \
                    name == "postgres", name  # fmt: skip
    disruption = {pdb["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
                  for pdb in by_name(resources, "PodDisruptionBudget").values()}
    assert {"web", "worker"} <= disruption


def test_settings_and_secrets_are_names_the_platform_reads(resources):
    known = settings_names() | sandbox_names() | PROCESS_VARIABLES
    settings = by_name(resources, "ConfigMap")["kozyr-settings"]["data"]
    assert set(settings) <= known, set(settings) - known
    secrets = by_name(resources, "Secret")["kozyr-secrets"]["stringData"]
    assert set(secrets) <= known, set(secrets) - known
    assert settings["KOZYR_ENV"] == "production" and settings["SANDBOX_BACKEND"] == "docker"
    # A worker holds the node's engine socket: it gets the secrets it needs one by one, never all of them.
    worker = containers(by_name(resources, "Deployment")["worker"])[0]
    assert not any("secretRef" in source for source in worker.get("envFrom", []))
    given = {item["name"] for item in worker["env"] if "valueFrom" in item}
    assert "KOZYR_METRICS_TOKEN" not in given and "POSTGRES_PASSWORD" not in given


def test_workers_reach_the_nodes_engine_at_the_same_paths_as_compose(resources):
    worker = by_name(resources, "Deployment")["worker"]["spec"]["template"]["spec"]
    volumes = {volume["name"]: volume for volume in worker["volumes"]}
    assert volumes["engine"]["hostPath"]["type"] == "Socket"
    folder = volumes["worker-dir"]["hostPath"]["path"]
    mounts = {mount["name"]: mount["mountPath"] for mount in worker["containers"][0]["volumeMounts"]}
    assert mounts["worker-dir"] == folder and mounts["engine"] == "/var/run/docker.sock"
    env = {item["name"]: item.get("value") for item in worker["containers"][0]["env"]}
    assert env["KOZYR_SANDBOX_STATE_DIR"].startswith(folder + "/")
    assert worker["nodeSelector"] and worker["tolerations"]  # nodes kept for bots only


def test_the_optional_worker_scaler_scales_the_worker_deployment():
    scaler = yaml.safe_load((K8S / "optional" / "worker-scaler.yaml").read_text())
    assert scaler["kind"] == "ScaledObject" and scaler["spec"]["scaleTargetRef"]["name"] == "worker"
    assert "kozyr_matches" in scaler["spec"]["triggers"][0]["metadata"]["query"]  # a gauge /metrics exports


def test_the_optional_backup_is_encrypted_kept_and_private():
    cronjob = yaml.safe_load((K8S / "optional" / "backup.yaml").read_text())
    kubernetes_validate.validate(cronjob, kubernetes_validate.latest_version(), strict=True)
    pod = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    dump, = pod["initContainers"]  # the database first, then the media (the restic container)
    assert dump["command"][2].startswith("umask 077 && pg_dump")
    assert dump["image"] == by_image_major(yaml.safe_load_all((K8S / "postgres.yaml").read_text()))
    keep = pod["containers"][0]["command"][2]
    assert "restic backup" in keep and "--keep-daily" in keep and "--prune" in keep
    assert cronjob["spec"]["concurrencyPolicy"] == "Forbid"


def by_image_major(documents) -> str:
    statefulset = next(doc for doc in documents if doc and doc["kind"] == "StatefulSet")
    return containers(statefulset)[0]["image"]
