"""browser_close: close the tabs the AI opened, release the debugger, stop the managed browser."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

from tabpilot.errors import PilotDisabled, TabpilotError
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import Params, result_of, shifted_id
from tabpilot.tools.tool import ClientFace, CliFace, Tool, describe, on_bridge

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge

log = logging.getLogger(__name__)

#: Closing tabs and detaching the debugger: a handful of chrome.* calls.
CLOSE_TIMEOUT_S = 30.0


class CloseParams(Params):
    """Close what the AI opened; takes no fields."""

    example: ClassVar[str] = "{}"


def close_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_close: `Closed 2 tabs.`, and whether the managed browser was stopped."""
    closed = result_of(envelope)
    count = len(closed.get("closed_tabs") or [])
    text = f"Closed {count} tab{'' if count == 1 else 's'}"
    if closed.get("browser") == "stopped":
        text += " and stopped the managed browser"
    return text + "."


async def _close(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    # The extension closes what the AI opened; then the daemon stops its managed browser, if it
    # runs one, whether or not the extension could answer. The next call starts it again.
    browser = bridge.browser
    if browser is None:
        return await bridge.command("browser_close", params, request_id, CLOSE_TIMEOUT_S)
    answer: ResultFrame | None = None
    if browser.running:  # a stopped browser is not started only to be closed
        try:
            answer = await bridge.command("browser_close", params, request_id, CLOSE_TIMEOUT_S)
        except PilotDisabled:
            raise  # the switch holds for this tool as for every other
        except TabpilotError as error:
            log.info("browser_close: the extension did not answer (%s); stopping", error.code)
    await browser.stop()
    bridge.drop_link("The managed browser was stopped (browser_close).")
    closed = answer.result if answer is not None and isinstance(answer.result, dict) else {}
    return ResultFrame(
        id=request_id,
        ok=True,
        result={"closed_tabs": closed.get("closed_tabs", []), "browser": "stopped"},
        result_type="object",
        tab=answer.tab if answer is not None else None,
    )


def closed_ids(result: Any, base: int) -> Any:
    """The closed tabs' ids, daemon-wide."""
    closed = result.get("closed_tabs") if isinstance(result, dict) else None
    if isinstance(closed, list):
        return {**result, "closed_tabs": [shifted_id(t, base) for t in closed]}
    return result


CLOSE = Tool(
    name="browser_close",
    params=CloseParams,
    title="Close what the AI opened",
    description=describe(
        """
        Close the tabs the AI opened and release the debugger (stops the managed browser).
        E.g. {} → Closed 2 tabs.
        """
    ),
    timeout_s=CLOSE_TIMEOUT_S,
    text=close_text,
    read_only=False,
    client=ClientFace(
        "close_browser",
        doc=(
            "Close the tabs the AI opened (and stop the daemon's managed browser): "
            "``{closed_tabs, browser?}``."
        ),
    ),
    cli=CliFace("close"),
    handle=on_bridge(_close),
    tab_ids=closed_ids,
)

TOOLS = (CLOSE,)
