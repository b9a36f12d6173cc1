"""Where tabpilot finds the extension: an installed package's copy first, else the checkout's, or
TABPILOT_EXTENSION_DIR; and the id Chrome gives it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tabpilot.errors import BrowserError
from tabpilot.extension_files import extension_dir, extension_id, read_manifest
from tabpilot.http.security import EXTENSION_ID

REPO = Path(__file__).resolve().parents[1]


def test_a_checkout_runs_its_own_extension_folder() -> None:
    assert extension_dir() == REPO / "extension"


def test_the_id_is_the_one_chrome_derives_from_the_manifest_key() -> None:
    manifest = read_manifest(REPO / "extension")
    assert manifest is not None
    assert extension_id(manifest["key"]) == EXTENSION_ID


def test_the_setting_overrides_and_must_name_an_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "ext"
    shutil.copytree(REPO / "extension", copy)
    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(copy))
    assert extension_dir() == copy
    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(tmp_path / "missing"))
    with pytest.raises(BrowserError) as error:
        extension_dir()
    assert error.value.code == "browser_unavailable"
    assert error.value.message.startswith(
        f"TABPILOT_EXTENSION_DIR={tmp_path / 'missing'} has no manifest.json. Point it at"
    )


def _package_copy(site: Path, *, with_extension: bool) -> None:
    """tabpilot as a wheel lays it out in ``site``: the package, with its extension or without."""
    shutil.copytree(
        REPO / "server" / "tabpilot",
        site / "tabpilot",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if with_extension:
        shutil.copytree(REPO / "extension", site / "tabpilot" / "extension")


def _tabpilot(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabpilot", *args],
        cwd=site,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_installed_package_runs_the_copy_inside_it(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    _package_copy(site, with_extension=True)
    done = _tabpilot(site, "extension")
    assert (done.returncode, done.stdout) == (0, f"{site / 'tabpilot' / 'extension'}\n")


def test_a_package_without_the_extension_says_how_to_get_it(tmp_path: Path) -> None:
    site = tmp_path / "lib" / "site-packages"
    _package_copy(site, with_extension=False)
    done = _tabpilot(site, "extension")
    assert done.returncode == 1
    assert done.stderr == (
        f"Error: The tabpilot extension is missing: neither {site / 'tabpilot' / 'extension'} "
        f"(an installed tabpilot) nor {tmp_path / 'lib' / 'extension'} (a checkout) holds its "
        "manifest.json. Reinstall tabpilot from its wheel (`pip install --force-reinstall "
        "tabpilot`, or `pip install .` in a checkout), or point TABPILOT_EXTENSION_DIR at an "
        "extension folder.\n"
    )
