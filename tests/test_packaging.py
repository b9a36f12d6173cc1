"""The files a new user meets first: the compose file and the CI entry point."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_docker_compose_config_is_valid() -> None:
    # Debian's docker-compose (1.29) prints the resolved file as YAML.
    done = subprocess.run(
        ["docker-compose", "-f", str(REPO / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "network_mode: host" in done.stdout
    assert "- serve\n    - --browser" in done.stdout


def test_ci_runs_make_test() -> None:
    lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert "make test" in lines


def dockerfile_stages() -> list[list[str]]:
    """The Dockerfile's instructions, one list per stage (FROM to the next FROM), each joined
    across its continuation lines."""
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    stages: list[list[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("FROM "):
            stages.append([])
        stages[-1].append(line)
    return stages


def wheel_stage_sources() -> list[str]:
    """What the Dockerfile's first stage copies from the checkout to build the wheel from."""
    sources: list[str] = []
    for line in dockerfile_stages()[0]:
        if line.startswith("COPY "):
            sources.extend(line.split()[1:-1])
    return sources


def test_the_image_installs_the_wheel_as_a_user_would() -> None:
    build, image = dockerfile_stages()
    assert any("python -m build --wheel" in line for line in build)
    # The image installs the wheel alone: no checkout, and no setting that points at one's
    # extension; tests/e2e/test_wheel_install.py builds the wheel from these very sources.
    assert not any(line.startswith("COPY ") and "--from=wheel" not in line for line in image)
    assert any(line.startswith("RUN pip install") and ".whl" in line for line in image)
    assert "TABPILOT_EXTENSION_DIR" not in (REPO / "Dockerfile").read_text()
    assert {"pyproject.toml", "setup.py", "MANIFEST.in", "server", "extension"} <= set(
        wheel_stage_sources()
    )
