"""execute_javascript: run a script in the page and answer its value as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from pydantic import Field

from tabpilot.envelope import result_text
from tabpilot.errors import ScriptTooLarge
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import MAX_REF_CHARS, Params, TimeoutMs
from tabpilot.tools.files import downloads_note
from tabpilot.tools.tabs import opened_note
from tabpilot.tools.tool import (
    ClientFace,
    CliFace,
    GuardRule,
    HttpFace,
    McpFace,
    Tool,
    describe,
    on_bridge,
    timeout_ms,
)

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge


class ExecuteParams(Params):
    """Run ``script`` in a tab: the body of ``POST /execute_javascript`` and the command params."""

    example: ClassVar[str] = '{"script": "2 + 2", "timeout_ms": 5000}'

    script: str = Field(
        min_length=1,
        description="An expression, or statements with `return`.",
    )
    timeout_ms: TimeoutMs = Field(default=5000, description="Give up after this many milliseconds.")
    await_promise: bool = Field(default=True, description="Await a returned promise.")
    tab_id: int | None = Field(
        default=None, description="Target tab; null: the active tab of the last focused window."
    )
    dialog: Literal["accept", "dismiss"] = Field(
        default="dismiss",
        description="Answer to alert, confirm, prompt.",
    )
    prompt_text: str | None = Field(
        default=None,
        max_length=10_000,
        description="What an accepted prompt answers.",
    )
    ref: str | None = Field(
        default=None,
        max_length=MAX_REF_CHARS,
        description="Snapshot ref: `script` is then `(el) => ...`.",
    )


def dialogs_note(dialogs: list[dict[str, Any]] | None) -> str:
    """One line per dialog answered, for the model: it should know a confirm was dismissed."""
    lines = [
        f'\n[{d.get("type")} "{d.get("message", "")}" {d.get("action", "dismissed")}'
        + (f' with "{d["text"]}"' if d.get("text") is not None else "")
        + ("; it was open before this script" if d.get("before") else "")
        + "]"
        for d in dialogs or []
    ]
    return "".join(lines)


def script_text(envelope: dict[str, Any], params: Any = None) -> str:
    """execute_javascript: the result as JSON or plain text, then the dialogs answered, the
    downloads it started and the tabs it opened."""
    text = result_text(envelope.get("result"), envelope.get("result_type"))
    downloads = envelope.get("downloads")
    if downloads:
        text += "\n[" + downloads_note(downloads).removeprefix("; ") + "]"
    for tab in envelope.get("opened") or []:
        text += "\n[" + opened_note(tab).removeprefix("; ") + "]"
    return text + dialogs_note(envelope.get("dialogs"))


async def run_script(bridge: Bridge, params: ExecuteParams, request_id: str) -> ResultFrame:
    """Run a script in a tab of ``bridge``'s browser. A script past ``max_script_bytes`` is
    refused here, before anything is sent, whichever face it came by."""
    limit = bridge.settings.max_script_bytes
    if len(params.script.encode()) > limit:
        raise ScriptTooLarge(
            f"The script is larger than {limit:,} bytes, so it was not sent. Send a shorter "
            "script, or raise the limit with TABPILOT_MAX_SCRIPT_BYTES."
        )
    return await bridge.command("execute_javascript", params, request_id, timeout_ms(params))


async def _execute(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    return await run_script(bridge, cast(ExecuteParams, params), request_id)


EXECUTE = Tool(
    name="execute_javascript",
    params=ExecuteParams,
    title="Run JavaScript in the user's browser tab",
    description=describe(
        """
        Run JavaScript in the user's real tab, with the page's privileges, and get the result
        as JSON: an expression, or statements with `return`; with `ref`, a function of that
        element, `(el) => el.value`. Return only what you need. E.g. {"script":
        "document.title"} → Example Domain; structured content {"result": "Example Domain"}.
        """
    ),
    timeout_s=timeout_ms,
    text=script_text,
    read_only=False,
    client=ClientFace(
        "execute",
        doc=(
            "Run ``script`` in a tab; its result (JSON-safe data). With ``ref``, ``script`` is a "
            'function called with that element: ``"(el) => el.value"``.'
        ),
        positional=("script",),
    ),
    cli=CliFace("exec", hand_written=True),
    handle=on_bridge(_execute),
    guard=GuardRule(limit=2_000, summarize=True),
    mcp=McpFace(value=True),
    http=HttpFace(empty_body=None),
)

TOOLS = (EXECUTE,)
