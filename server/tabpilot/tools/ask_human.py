"""browser_ask_human: hand a tab to the person at the browser, and wait for their answer.

For what an agent should not or cannot do itself: a login, a CAPTCHA, a two-factor prompt, "is
this the right item?". In a person's Chrome the extension brings the tab to the front, outlines
``ref`` if given, shows a badge on its icon and the request in its popup, with Done, Decline and a
reply line; the call answers ``{answer: "done" | "declined", reply, url}`` when the person
answers, or ``human_timeout`` after ``timeout_ms``. While the request is open, every other command
in that tab is refused with ``human_turn`` (docs/handoff.md). The daemon's managed browser has no
person: the call answers ``no_human`` at once, without starting it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field, Strict

from tabpilot.errors import NoHuman
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, Ref, _whole_number, result_of
from tabpilot.tools.tool import ClientFace, CliFace, Tool, describe, on_bridge

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge

#: The longest request a popup shows; a person reads a sentence or two, not a page.
MAX_MESSAGE_CHARS = 500
#: How long the person has by default, and at most: a login with a code sent by mail takes minutes.
DEFAULT_TIMEOUT_MS = 300_000
MAX_HUMAN_TIMEOUT_MS = 1_800_000
#: Time the extension may take past timeout_ms to withdraw the request and answer human_timeout.
WITHDRAW_SLACK_S = 5.0

#: The person's time in ms: up to half an hour, unlike a command's two minutes.
HumanMs = Annotated[
    int, Strict(), Field(ge=1, le=MAX_HUMAN_TIMEOUT_MS), BeforeValidator(_whole_number)
]
Message = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_MESSAGE_CHARS)]


class AskHumanParams(Params):
    """Ask the person at the browser to do something in the tab, and wait for their answer."""

    example: ClassVar[str] = '{"message": "Please log in, then press Done"}'

    # The description says what each field means once; the fields stay bare, as a model reads
    # them on every turn.
    message: Message
    ref: Ref | None = None
    timeout_ms: HumanMs = Field(
        default=DEFAULT_TIMEOUT_MS,
        description=f"Give up after this many ms (default {DEFAULT_TIMEOUT_MS}, at most "
        f"{MAX_HUMAN_TIMEOUT_MS}).",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


def ask_timeout_s(params: Any) -> float:
    """The daemon's wait: the person's time, and the extension's to withdraw the request."""
    return int(params.timeout_ms) / 1000 + WITHDRAW_SLACK_S


def ask_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_ask_human: `The person answered done: "logged in"`, and where the tab is now."""
    answer = result_of(envelope)
    said = str(answer.get("answer") or "done")
    reply = answer.get("reply")
    text = f"The person answered {said}"
    said_more = isinstance(reply, str) and reply != ""
    text += f": {json.dumps(reply, ensure_ascii=False)}" if said_more else "."
    if said == "declined":
        text += " Do not retry what they declined; ask them or go another way."
    url = answer.get("url")
    if isinstance(url, str) and url:
        text += f"\nThe tab is at {url}"
    return text


async def _ask(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    # The daemon's own browsers (serve --browser, a context it started) are headless: no one
    # could answer, and starting one only to say so would take seconds.
    if bridge.browser is not None:
        raise NoHuman()
    return await bridge.command("browser_ask_human", params, request_id, ask_timeout_s(params))


ASK_HUMAN = Tool(
    name="browser_ask_human",
    params=AskHumanParams,
    title="Ask the person at the browser",
    description=describe(
        """
        Hand the tab to the person (login, CAPTCHA, 2FA, a check; ref outlined) until they
        answer. E.g. {"message": "Log in"} → The person answered done
        """
    ),
    timeout_s=ask_timeout_s,
    text=ask_text,
    read_only=False,
    client=ClientFace(
        "ask_human",
        doc=(
            "Hands the tab to the person at the browser and waits for their answer: ``{answer: "
            '"done" | "declined", reply, elapsed_ms, url}``; raises human_timeout, or no_human '
            "in the managed browser."
        ),
        positional=("message",),
    ),
    cli=CliFace("ask", positional=("message",)),
    handle=on_bridge(_ask),
)

TOOLS = (ASK_HUMAN,)
