"""The file tools' daemon side: which paths browser_upload reads (the uploads folder only, symlinks
resolved), the size cap, what the command carries, and the texts a model reads."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tabpilot.config import Settings
from tabpilot.errors import FileNotFound, FileTooLarge, InvalidRequest, UploadPathOutside
from tabpilot.tools.files import download_line, downloads_text, upload_files, upload_text
from tabpilot.tools.page import act_text
from tabpilot.tools.script import script_text


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "cv.pdf").write_bytes(b"%PDF")
    (uploads / "sub").mkdir()
    (uploads / "sub" / "a.txt").write_text("a")
    (tmp_path / "secret.txt").write_text("secret")
    (uploads / "link.txt").symlink_to(tmp_path / "secret.txt")
    (uploads / "inner.txt").symlink_to(uploads / "sub" / "a.txt")
    return uploads


def settings(folder: Path, cap: int = 1000) -> Settings:
    return Settings(upload_dir=folder, upload_max_bytes=cap, state_dir=folder.parent / "state")


def test_a_file_goes_with_its_name_type_size_and_bytes(folder: Path) -> None:
    [pdf, txt, inner] = upload_files(
        settings(folder), ["cv.pdf", str(folder / "sub" / "a.txt"), "inner.txt"]
    )
    assert pdf == {"name": "cv.pdf", "type": "application/pdf", "size": 4, "data": "JVBERg=="}
    assert (txt["name"], txt["type"], base64.b64decode(txt["data"])) == (
        "a.txt",
        "text/plain",
        b"a",
    )
    assert inner["name"] == "a.txt"  # a symlink that stays inside: its target's name


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("../secret.txt", UploadPathOutside),
        ("link.txt", UploadPathOutside),
        ("sub/../../secret.txt", UploadPathOutside),
        ("../missing.txt", UploadPathOutside),
        ("/etc/hostname", UploadPathOutside),
        ("missing.txt", FileNotFound),
        ("sub", InvalidRequest),
        ("", InvalidRequest),
    ],
)
def test_paths_outside_missing_or_not_files_are_refused(
    folder: Path, path: str, error: type[Exception]
) -> None:
    with pytest.raises(error) as raised:
        upload_files(settings(folder), [path])
    if error is UploadPathOutside:
        assert str(folder) in str(raised.value)
        assert "secret" not in str(raised.value).replace(path, "")


def test_the_cap_holds_for_a_file_and_for_the_files_together(folder: Path) -> None:
    (folder / "big.bin").write_bytes(b"x" * 600)
    with pytest.raises(FileTooLarge):
        upload_files(settings(folder, cap=500), ["big.bin"])
    with pytest.raises(FileTooLarge):
        upload_files(settings(folder, cap=1000), ["big.bin", "big.bin"])


def test_the_folder_is_made_on_first_use(tmp_path: Path) -> None:
    state = Settings(state_dir=tmp_path / "state")
    with pytest.raises(FileNotFound):
        upload_files(state, ["x.txt"])
    assert (tmp_path / "state" / "uploads").is_dir()


def test_the_texts_name_files_and_downloads_never_content() -> None:
    result = {
        "description": 'Uploaded "a.png" (3 bytes, image/png) to button "CV" (e2)',
        "route": "dom",
        "accept": ".pdf",
        "not_accepted": ["a.png"],
    }
    assert upload_text({"result": result}) == (
        'Uploaded "a.png" (3 bytes, image/png) to button "CV" (e2) (route: dom); not matching its '
        "accept='.pdf': \"a.png\", given anyway"
    )
    done = {
        "name": "r.csv",
        "state": "complete",
        "size": 1234,
        "path": "/d/r.csv",
        "origin": "http://a.test",
    }
    failed = {"name": "x.bin", "state": "interrupted", "error": "NETWORK_FAILED"}
    assert download_line(done) == '"r.csv" (1,234 bytes) complete at /d/r.csv'
    assert download_line(failed) == '"x.bin" interrupted: NETWORK_FAILED'
    assert downloads_text({"result": {"downloads": [failed, done]}}).splitlines() == [
        "2 downloads, newest first:",
        '- "x.bin" interrupted: NETWORK_FAILED',
        '- "r.csv" (1,234 bytes) complete at /d/r.csv from http://a.test',
    ]
    assert downloads_text({"result": {"downloads": []}}) == "No downloads from the AI's acts yet."
    act = {"description": 'Clicked link "Get" (e1)', "downloads": [done]}
    assert act_text({"result": act}) == (
        'Clicked link "Get" (e1); downloaded "r.csv" (1,234 bytes) complete at /d/r.csv'
    )


def test_a_scripts_text_says_what_it_downloaded() -> None:
    done = {"name": "r.csv", "state": "complete", "size": 3, "path": "/d/r.csv"}
    envelope = {"result": "ok", "result_type": "string", "downloads": [done]}
    assert script_text(envelope) == 'ok\n[downloaded "r.csv" (3 bytes) complete at /d/r.csv]'
