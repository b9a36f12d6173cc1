"""tabpilot.claude's drivers against the SDK's own contract checks, which run when a toolset is
made: each member written for its class's flavour, what the tools[] entry offers, the options the
SDK refuses; and what the package needs to import."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from anthropic.tools import ToolsetConfigError, ToolsetContractError
from anthropic.types.beta import BETA_BROWSER_MEMBER_NAME_VALUES, BetaToolUseBlock

from tabpilot.claude import AsyncBrowser, Browser
from tests.e2e.harness import free_port


def test_both_drivers_pass_the_sdks_checks_and_serve_every_member() -> None:
    browser, async_browser = Browser(port=free_port()), AsyncBrowser(port=free_port())
    for driver in (browser, async_browser):
        # No `configs`: the SDK adds `enabled: false` for each member a driver does not serve.
        assert driver.to_dict() == {"type": "browser_toolset_20260801"}
        assert driver.configs is None
    for name in BETA_BROWSER_MEMBER_NAME_VALUES:
        assert not inspect.iscoroutinefunction(getattr(Browser, name)), name
        assert inspect.iscoroutinefunction(getattr(AsyncBrowser, name)), name
    browser.close()


def test_the_sdks_checks_run_on_the_drivers() -> None:
    # Scripts and uploads act on page-supplied intent: the SDK wants a confirm callable first.
    with pytest.raises(ToolsetConfigError, match="requires a confirm callable"):
        Browser(port=free_port(), configs={"javascript_exec": {"enabled": True}})
    enabled = Browser(
        port=free_port(), configs={"javascript_exec": {"enabled": True}}, confirm=lambda c: True
    )
    assert enabled.configs == {"javascript_exec": {"enabled": True}}

    class Mixed(Browser):
        async def navigate(self, context: object, input: object) -> None:  # type: ignore[override]
            return None

    with pytest.raises(ToolsetContractError, match="navigate"):
        Mixed(port=free_port())


def test_no_daemon_is_an_error_the_model_reads_not_a_crash() -> None:
    browser = Browser(port=free_port())
    block = BetaToolUseBlock(
        id="toolu_1", type="tool_use", name="screenshot", input={}, toolset_name="browser"
    )
    result = browser.tool_result(block)
    assert result["is_error"] is True
    assert result["content"][0]["text"].startswith("daemon_unreachable: ")  # type: ignore[index]
    browser.close()


def test_tabpilot_imports_without_the_sdk_and_tabpilot_claude_names_the_extra() -> None:
    script = (
        "import sys; sys.modules['anthropic'] = None\n"
        "import tabpilot; tabpilot.Client\n"
        "try:\n"
        "    import tabpilot.claude\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "pip install 'tabpilot[claude]'" in done.stdout


def test_docs_claude_md_shows_the_example_file_as_it_is() -> None:
    root = Path(__file__).resolve().parents[1]
    example = (root / "docs" / "examples" / "claude_agent.py").read_text()
    doc = (root / "docs" / "claude.md").read_text()
    shown = doc.split("```python\n", 1)[1].split("```", 1)[0]
    assert shown == example
    assert len(example.splitlines()) <= 30
