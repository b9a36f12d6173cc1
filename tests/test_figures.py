"""The reliability document is written only from a complete, passing run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import figures


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(figures, "_figures", {})
    doc = tmp_path / "reliability.md"
    monkeypatch.setattr(figures, "DOC", doc)
    return doc


def test_unknown_section_is_refused(fresh: Path) -> None:
    with pytest.raises(ValueError, match="unknown section"):
        figures.record("Nonsense", "x", 1)


def test_partial_run_leaves_the_document_alone(fresh: Path) -> None:
    figures.record("Load", "commands answered", "10,000 of 10,000")
    assert not figures.write_if_complete(passed=True)
    assert not fresh.exists()


def test_a_run_missing_a_documented_figure_leaves_the_document_alone(fresh: Path) -> None:
    for section in figures.SECTIONS:
        figures.record(section, f"{section} figure", 1)
    assert figures.write_if_complete(passed=True)
    written = fresh.read_text()
    figures._figures.clear()
    for section in figures.SECTIONS:
        if section != "Hostile input":
            figures.record(section, f"{section} figure", 2)
        figures.record(section, "another figure", 3)
    assert not figures.write_if_complete(passed=True)
    assert fresh.read_text() == written


def test_failed_run_leaves_the_document_alone(fresh: Path) -> None:
    for section in figures.SECTIONS:
        figures.record(section, "x", 1)
    assert not figures.write_if_complete(passed=False)
    assert not fresh.exists()


def test_complete_passing_run_writes_every_figure(fresh: Path) -> None:
    for section in figures.SECTIONS:
        figures.record(section, f"{section} figure", "a|b")
    assert figures.write_if_complete(passed=True)
    text = fresh.read_text()
    for section in figures.SECTIONS:
        assert f"## {section}" in text
        assert f"| {section} figure | a\\|b |" in text
