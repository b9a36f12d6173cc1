"""`tabpilot extension`: the folder for Load unpacked, and `--copy-to`, which replaces an earlier
copy of the extension but never touches another folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tabpilot.cli import main
from tabpilot.http.security import EXTENSION_ID

REPO = Path(__file__).resolve().parents[1]
VERSION = json.loads((REPO / "extension" / "manifest.json").read_text())["version"]


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the extension that tabpilot runs (TABPILOT_EXTENSION_DIR), so that no test can
    touch the checkout's; with the managed.json a managed browser's copy has."""
    folder = tmp_path / "runs" / "extension"
    shutil.copytree(REPO / "extension", folder)
    (folder / "managed.json").write_text('{"managed": true, "pilot_default": true}\n')
    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(folder))
    return folder


def _shipped(source: Path) -> dict[str, bytes]:
    return {name: data for name, data in _files(source).items() if name != "managed.json"}


def test_it_prints_the_folder_to_load(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extension"]) == 0
    assert capsys.readouterr().out == f"{REPO / 'extension'}\n"


@pytest.mark.parametrize("empty", [False, True])
def test_copy_to_a_new_or_empty_folder(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], empty: bool
) -> None:
    target = tmp_path / "home" / "tabpilot-extension"
    if empty:
        target.mkdir(parents=True)
    assert main(["extension", "--copy-to", str(target)]) == 0
    assert capsys.readouterr().out == (
        f"Copied tabpilot's extension {VERSION} (id {EXTENSION_ID}) to {target}. In "
        "chrome://extensions, turn on Developer mode, click Load unpacked and choose that "
        "folder.\n"
    )
    # Never the managed switch: in a person's Chrome the pilot starts off.
    assert _files(target) == _shipped(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["tabpilot-extension"]


def test_copy_to_replaces_an_earlier_copy(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "tabpilot-extension"
    shutil.copytree(REPO / "extension", target)
    manifest = json.loads((target / "manifest.json").read_text())
    (target / "manifest.json").write_text(json.dumps(manifest | {"version": "0.0.9"}))
    (target / "worker" / "dropped-since.js").write_text("// gone from the new version\n")
    assert main(["extension", "--copy-to", str(target)]) == 0
    assert capsys.readouterr().out == (
        f"Replaced tabpilot's extension 0.0.9 in {target} with {VERSION} (id {EXTENSION_ID}). "
        "If Chrome has it loaded, click its reload arrow in chrome://extensions.\n"
    )
    assert _files(target) == _shipped(source)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs", "tabpilot-extension"]


@pytest.mark.parametrize(
    "contents",
    [
        {"notes.txt": "mine"},
        # Another extension: a manifest, with another key.
        {"manifest.json": json.dumps({"manifest_version": 3, "name": "other", "key": "AAAA"})},
        {"manifest.json": "not json"},
    ],
)
def test_copy_to_leaves_any_other_folder_alone(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], contents: dict[str, str]
) -> None:
    target = tmp_path / "somewhere"
    target.mkdir()
    for name, text in contents.items():
        (target / name).write_text(text)
    assert main(["extension", "--copy-to", str(target)]) == 1
    assert capsys.readouterr().err == (
        f"Error: {target} is not empty and holds no copy of tabpilot's extension. Nothing was "
        "copied: choose a new or empty folder.\n"
    )
    assert {name: data.decode() for name, data in _files(target).items()} == contents


def test_copy_to_a_file_is_refused(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "a-file"
    target.write_text("mine")
    assert main(["extension", "--copy-to", str(target)]) == 1
    assert (
        capsys.readouterr().err == f"Error: {target} is a file, not a folder. Nothing was copied.\n"
    )
    assert target.read_text() == "mine"


@pytest.mark.parametrize("where", [".", "..", "worker"])
def test_copy_to_the_running_extension_is_refused(
    source: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    before = _files(source.parent)
    target = (source / where).resolve()
    assert main(["extension", "--copy-to", str(source / where)]) == 1
    assert capsys.readouterr().err == (
        f"Error: {target} is, holds or lies inside {source}, the folder tabpilot runs the "
        "extension from. Nothing was copied: choose a folder elsewhere.\n"
    )
    assert _files(source.parent) == before
