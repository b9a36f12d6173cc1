"""The managed Chromium: finding it, its command line and its private extension copy."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tabpilot.browsers.managed import ManagedBrowser, find_chromium
from tabpilot.config import Settings
from tabpilot.errors import BrowserError


def _fake_binary(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_finds_chromium_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = _fake_binary(tmp_path, "chromium")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_chromium() == str(binary)


def test_no_chromium_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BrowserError) as error:
        find_chromium()
    assert "apt-get install chromium" in error.value.message
    assert "TABPILOT_CHROMIUM" in error.value.message


def test_branded_chrome_alone_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_binary(tmp_path, "google-chrome")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BrowserError) as error:
        find_chromium()
    assert "google-chrome" in error.value.message
    assert "--load-extension since version 137" in error.value.message


def test_explicit_binary_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(BrowserError, match="not an executable"):
        find_chromium(str(tmp_path / "nope"))


@pytest.mark.parametrize("headed", [False, True])
def test_command_line(tmp_path: Path, headed: bool) -> None:
    settings = Settings(port=9123, state_dir=tmp_path, headed=headed)
    args = ManagedBrowser(settings).command("/bin/chromium", tmp_path / "p", tmp_path / "e")
    assert args[0] == "/bin/chromium"
    assert f"--user-data-dir={tmp_path / 'p'}" in args
    assert f"--load-extension={tmp_path / 'e'}" in args
    assert "--disable-background-networking" in args
    assert ("--headless=new" in args) is not headed
    assert ("--no-sandbox" in args) is (os.geteuid() == 0)
    assert args[-1] == "about:blank"


def test_profile_gets_a_managed_copy_of_the_extension(tmp_path: Path) -> None:
    browser = ManagedBrowser(Settings(port=9123, state_dir=tmp_path))
    profile, extension = browser._prepare_profile()
    assert profile.parent == tmp_path
    assert (extension / "manifest.json").is_file()
    managed = json.loads((extension / "managed.json").read_text())
    key = managed.pop("context_key")
    assert managed == {
        "managed": True,
        "pilot_default": True,
        "daemon_port": 9123,
        "context": "default",
    }
    assert len(key) >= 32  # the secret its extension proves itself to the daemon with
    # The shipped extension itself never has it: in a person's Chrome the switch starts off.
    assert not (Path(__file__).resolve().parents[1] / "extension" / "managed.json").exists()


async def test_stop_before_start_is_harmless(tmp_path: Path) -> None:
    browser = ManagedBrowser(Settings(state_dir=tmp_path))
    await browser.stop()
    await browser.stop()
    assert browser.info()["running"] is False
