"""The reliability document says only what the tests of this run saw, and is written only from a
complete, passing run, to an ignored path unless asked for the committed one."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import figures


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """An empty run whose committed document and default target are in tmp_path; this test's own
    place as the running test is put back afterwards."""
    running = figures._running
    monkeypatch.setattr(figures, "_figures", [])
    monkeypatch.setattr(figures, "DOC", tmp_path / "committed.md")
    monkeypatch.setattr(figures, "DEFAULT_TARGET", tmp_path / "build" / "reliability.md")
    monkeypatch.delenv(figures.TARGET_ENV, raising=False)
    yield tmp_path / "build" / "reliability.md"
    figures._running = running


def _passing_test(name: str, *recorded: tuple[str, str, object, str], e2e: bool = False) -> None:
    figures.begin(name, e2e=e2e)
    for section, figure, value, where in recorded:
        figures.record(section, figure, value, where)
    figures.end()


def _every_section(value: object = 1) -> None:
    for section in figures.SECTIONS:
        _passing_test(f"test_{section}", (section, f"{section} figure", value, figures.SCRIPTED))


def test_unknown_section_is_refused(fresh: Path) -> None:
    with pytest.raises(ValueError, match="unknown section"):
        figures.record("Nonsense", "x", 1, figures.SCRIPTED)


def test_where_it_was_seen_must_be_said_and_true(fresh: Path) -> None:
    figures.begin("tests/test_x.py::test_scripted", e2e=False)
    with pytest.raises(ValueError, match=r"REAL_BROWSER or figures\.SCRIPTED"):
        figures.record("Load", "x", 1, "somewhere")
    with pytest.raises(ValueError, match="non-e2e test: it cannot record a 'real browser'"):
        figures.record("Load", "x", 1, figures.REAL_BROWSER)
    figures.begin("tests/e2e/test_x.py::test_browser", e2e=True)
    with pytest.raises(ValueError, match="cannot record a 'scripted extension'"):
        figures.record("Load", "x", 1, figures.SCRIPTED)


def test_recording_outside_a_test_is_refused(fresh: Path) -> None:
    figures._running = None
    with pytest.raises(RuntimeError, match="from a running test only"):
        figures.record("Load", "x", 1, figures.SCRIPTED)


def test_a_failed_test_s_figures_do_not_count(fresh: Path) -> None:
    _every_section()
    figures.begin("test_flaky", e2e=False)
    figures.record("Load", "flaky figure", 1, figures.SCRIPTED)
    figures.failed()
    figures.end()
    assert figures.write_if_complete(passed=True) == fresh
    assert "flaky figure" not in fresh.read_text()


def test_partial_run_writes_nothing(fresh: Path) -> None:
    _passing_test("test_load", ("Load", "commands answered", "10 of 10", figures.SCRIPTED))
    assert figures.write_if_complete(passed=True) is None
    assert not fresh.exists()


def test_a_run_missing_a_committed_row_writes_nothing(fresh: Path) -> None:
    _every_section()
    figures.DOC.write_text(figures.render())
    figures._figures.clear()
    _every_section(2)
    assert figures.write_if_complete(passed=True) == fresh  # the same rows again: complete
    figures._figures[:] = [f for f in figures._figures if f.section != "Hostile input"]
    _passing_test("test_other", ("Hostile input", "another figure", 3, figures.SCRIPTED))
    fresh.unlink()
    assert figures.write_if_complete(passed=True) is None
    assert not fresh.exists()


def test_failed_run_writes_nothing(fresh: Path) -> None:
    _every_section()
    assert figures.write_if_complete(passed=False) is None
    assert not fresh.exists()


def test_complete_passing_run_writes_every_figure_with_where_and_which_test(fresh: Path) -> None:
    _passing_test(
        "tests/e2e/test_b.py::test_seen[param]",
        ("Faults", "in the browser", "a|b", figures.REAL_BROWSER),
        e2e=True,
    )
    _every_section()
    assert figures.write_if_complete(passed=True) == fresh
    text = fresh.read_text()
    for section in figures.SECTIONS:
        assert f"## {section}" in text
        assert f"| {section} figure | 1 | scripted extension | `test_{section}` |" in text
    assert "| in the browser | a\\|b | real browser | `tests/e2e/test_b.py::test_seen` |" in text


def test_the_environment_names_another_target(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(figures.TARGET_ENV, str(tmp_path / "asked.md"))
    _every_section()
    assert figures.write_if_complete(passed=True) == tmp_path / "asked.md"
    assert not fresh.exists()
    monkeypatch.setenv(figures.TARGET_ENV, "docs/reliability.md")
    assert figures.target() == figures.REPO / "docs" / "reliability.md"


def test_the_default_target_is_ignored_by_git() -> None:
    relative = figures.DEFAULT_TARGET.relative_to(figures.REPO)
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(relative)], cwd=figures.REPO, check=False
    )
    assert ignored.returncode == 0, f"{relative} would dirty the working tree"
