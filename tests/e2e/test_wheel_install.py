"""tabpilot as a user installs it: the wheel `python -m build` makes, in a fresh venv outside the
checkout, run from another directory, with nothing pointing back at the checkout.

The wheel is built from the files the Dockerfile's build stage copies, no others, so the image
builds the same wheel. One venv serves every test here: a further command against the installed
tabpilot is one more test function.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bench.cold_start import spawn_to_first_call

from tabpilot.extension_files import extension_id, read_manifest
from tests.e2e.harness import (
    EXTENSION_DIR,
    EXTENSION_ID,
    REPO,
    free_port,
    managed_daemons,
    spawn_daemon,
    wait_for,
)
from tests.test_packaging import wheel_stage_sources

pytestmark = pytest.mark.e2e


@dataclass
class Installed:
    """A venv holding the wheel's tabpilot, and a working directory outside the checkout."""

    venv: Path
    home: Path
    env: dict[str, str]

    @property
    def tabpilot(self) -> Path:
        return self.venv / "bin" / "tabpilot"

    def run(self, *args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _check(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel-install")
    assert not root.resolve().is_relative_to(REPO)
    source = root / "source"
    for name in wheel_stage_sources():
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("*.egg-info"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    # The sdist, then the wheel from it, as `python -m build` makes them; with this venv's
    # setuptools rather than a fresh build environment, which costs a download and half a minute.
    dist = root / "dist"
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)]
    _check(subprocess.run(build, capture_output=True, text=True, timeout=180, cwd=root))
    (wheel,) = dist.glob("tabpilot-*.whl")
    venv = root / "venv"
    _check(subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], timeout=60))
    # This venv's pip installs into the new one: the dependencies come from pip's cache and its
    # configured indexes, as for any user.
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
    done = subprocess.run(
        [*pip, "--quiet", str(wheel)], capture_output=True, text=True, timeout=300
    )
    _check(done)
    home = root / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TABPILOT_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    yield Installed(venv, home, env | {"TABPILOT_STATE_DIR": str(root / "state")})


def test_the_venv_imports_the_wheel_not_the_checkout(installed: Installed) -> None:
    python = installed.venv / "bin" / "python"
    out = _check(installed.run(python, "-c", "import sys, tabpilot; print(tabpilot.__file__)"))
    assert Path(out.strip()).is_relative_to(installed.venv)
    paths = _check(installed.run(python, "-c", "import sys; print('\\n'.join(sys.path))"))
    assert not [p for p in paths.splitlines() if p and Path(p).resolve().is_relative_to(REPO)]


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _id(folder: Path) -> str:
    manifest = read_manifest(folder)
    assert manifest is not None
    return extension_id(manifest["key"])


def test_tabpilot_extension_is_the_whole_extension_with_its_id(installed: Installed) -> None:
    folder = Path(_check(installed.run(installed.tabpilot, "extension")).strip())
    assert folder.is_relative_to(installed.venv)
    assert _files(folder) == _files(EXTENSION_DIR)
    assert _id(folder) == _id(EXTENSION_DIR) == EXTENSION_ID
    # A copy out of the venv, where it survives an upgrade, is the same extension.
    copy = installed.home / "tabpilot-extension"
    said = _check(installed.run(installed.tabpilot, "extension", "--copy-to", copy))
    assert said.startswith(f"Copied tabpilot's extension 0.1.0 (id {EXTENSION_ID}) to {copy}.")
    assert _files(copy) == _files(EXTENSION_DIR)


def _ready(status: dict[str, Any]) -> bool:
    return bool(status["extension"]["pilot_enabled"] and status["browser"]["ready"])


def test_serve_browser_runs_a_script(installed: Installed) -> None:
    with spawn_daemon(
        "--browser",
        tabpilot=(str(installed.tabpilot),),
        cwd=installed.home,
        env={"PYTHONPATH": ""},  # nothing of the checkout on its path (empty adds nothing)
    ) as daemon:
        wait_for(lambda: _ready(daemon.status()), 90, "the managed browser")
        # The id Chromium gave the wheel's extension, from the origin it connected with.
        assert daemon.status()["extension"]["id"] == EXTENSION_ID
        port = str(daemon.port)
        assert _check(installed.run(installed.tabpilot, "exec", "1+1", "--port", port)) == "2\n"


def test_mcp_browser_starts_its_daemon_and_answers_its_first_call(installed: Installed) -> None:
    # The one line of an MCP client's configuration, with nothing running on the port.
    port = free_port()
    command = [str(installed.tabpilot), "mcp", "--browser", "--port", str(port)]
    try:
        _, text = spawn_to_first_call(
            command, "execute_javascript", {"script": "1 + 1"}, installed.env, installed.home
        )
        (daemon,) = managed_daemons(port)
        # `tabpilot serve --browser`, run by the venv's own interpreter.
        python = Path(f"/proc/{daemon}/cmdline").read_bytes().split(b"\0")[0].decode()
        assert Path(python).parent == installed.venv / "bin"
    finally:
        for pid in managed_daemons(port):
            os.kill(pid, signal.SIGTERM)
    assert text.split("\n")[0] == "2"
