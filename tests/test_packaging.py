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
