"""deploy/podman-kube.py: deploy/k8s, rendered by kustomize, in the kinds Podman 4.3's `kube play` takes, with
the manifests' containers unchanged but for what a single host places (images, the engine socket, the workers'
folder) and every host-wide name under the site's prefix. Fast: no engine runs (test_kube_play.py plays it)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "deploy" / "podman-kube.py"


@pytest.fixture(scope="module")
def rendered() -> str:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (Debian: kubernetes-client): kustomize renders the manifests")
    done = subprocess.run([kubectl, "kustomize", str(REPO / "deploy" / "k8s")], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def generate(rendered: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], input=rendered, capture_output=True, text=True,
                          timeout=60, check=False)


def documents(rendered: str, *arguments: str) -> list[dict]:
    done = generate(rendered, *arguments)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def containers(docs: list[dict]) -> dict[str, dict]:
    return {pod["metadata"]["name"]: pod["spec"]["containers"][0] for pod in docs if pod["kind"] == "Pod"}


def test_it_makes_only_what_podman_43_plays_under_the_sites_prefix(rendered):
    docs = documents(rendered, "--prefix", "site1")
    assert {doc["kind"] for doc in docs} == {"Pod", "ConfigMap", "PersistentVolumeClaim"}
    names = {doc["metadata"]["name"] for doc in docs}
    assert all(name.startswith("site1-") for name in names), names
    assert {f"site1-{role}" for role in ("postgres", "redis", "migrate", "web", "worker", "maintenance", "beat")} \
        <= names
    assert {"site1-media", "site1-data-postgres", "site1-kozyr-settings", "site1-kozyr-secrets"} <= names
    pods = {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == "Pod"}
    assert all(pod["metadata"]["labels"]["app.kubernetes.io/instance"] == "site1" for pod in pods.values())
    assert pods["site1-migrate"]["spec"]["restartPolicy"] == "OnFailure"  # the Job's: run once to success
    text = json.dumps(docs)
    assert "secretKeyRef" not in text and "secretRef" not in text and '"ports"' not in text  # nothing published
    claims = {volume["persistentVolumeClaim"]["claimName"] for pod in pods.values()
              for volume in pod["spec"].get("volumes", []) if "persistentVolumeClaim" in volume}
    assert claims == {"site1-media", "site1-data-postgres"}


def test_the_containers_are_the_manifests_but_for_what_the_host_places(rendered):
    source = {doc["metadata"]["name"]: doc for doc in yaml.safe_load_all(rendered) if doc and "template" in
              doc.get("spec", {})}
    docs = documents(rendered, "--prefix", "s", "--image", "postgres:16=localhost/kozyr-postgres:15",
                     "--engine-socket", "/run/s/podman.sock", "--worker-dir", "/var/lib/s-worker",
                     "--publish", "web=18000", "--set", "KOZYR_SITE_ID=s",
                     "--set", "DATABASE_URL=postgres://kozyr:pw@postgres:5432/kozyr")
    played = containers(docs)
    for name, workload in source.items():
        original = workload["spec"]["template"]["spec"]["containers"][0]
        mine = played[f"s-{name}"]
        for field in ("args", "resources", "securityContext"):
            assert mine.get(field) == original.get(field), (name, field)
        probe, mine_probe = original.get("livenessProbe", {}), mine.get("livenessProbe", {})
        assert {k: v for k, v in mine_probe.items() if k != "exec"} == {k: v for k, v in probe.items() if k != "exec"}
        if "exec" in probe:  # one word, which Podman 4.3 runs as a shell command: the same command
            assert mine_probe["exec"]["command"] == [shlex.join(probe["exec"]["command"])], name
    assert played["s-postgres"]["image"] == "localhost/kozyr-postgres:15"
    assert played["s-web"]["ports"] == [{"containerPort": 8000, "hostPort": 18000, "hostIP": "127.0.0.1"}]
    worker = next(doc for doc in docs if doc["metadata"]["name"] == "s-worker")
    paths = {volume["name"]: volume.get("hostPath", {}).get("path") for volume in worker["spec"]["volumes"]}
    assert paths["engine"] == "/run/s/podman.sock" and paths["worker-dir"] == "/var/lib/s-worker"
    env = {item["name"]: item.get("value") for item in played["s-worker"]["env"]}
    assert env["KOZYR_VAR_DIR"] == "/var/lib/s-worker"  # the same path in the worker and on the host
    mounts = {mount["name"]: mount["mountPath"] for mount in played["s-worker"]["volumeMounts"]}
    assert mounts["worker-dir"] == "/var/lib/s-worker"
    maps = {doc["metadata"]["name"]: doc["data"] for doc in docs if doc["kind"] == "ConfigMap"}
    assert maps["s-kozyr-settings"]["KOZYR_SITE_ID"] == "s"
    # The Services' names in the settings' URLs are the pods Podman's DNS names.
    assert maps["s-kozyr-secrets"]["DATABASE_URL"] == "postgres://kozyr:pw@s-postgres:5432/kozyr"
    assert "@s-redis:6379/" in maps["s-kozyr-secrets"]["CELERY_BROKER_URL"]


def test_it_names_what_it_cannot_do(rendered):
    done = generate(rendered, "--prefix", "s", "--set", "NO_SUCH_SETTING=1")
    assert done.returncode != 0 and "--set NO_SUCH_SETTING: no ConfigMap or Secret holds it" in done.stderr
    done = generate(rendered, "--prefix", "Bad_Prefix")
    assert done.returncode != 0 and "--prefix 'Bad_Prefix'" in done.stderr
    done = generate("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: backup}\n", "--prefix", "s")
    assert done.returncode != 0 and "CronJob/backup: no Podman counterpart known" in done.stderr
    head = generate(rendered, "--prefix", "s", "--leave-out", "maintenance").stdout.splitlines()[:2]
    assert "Service/postgres" in head[1] and "Deployment/maintenance" in head[1]
