"""The large-output guard on a real page: an element's line carries its box, read by the page's
serializer, in the human-like browser and in the managed one; through /mcp and the Python client
that opts in, a list of elements past the limit is summed up one line each, and the client fetches
the whole with its confirm_token."""

from __future__ import annotations

import re
from typing import Any

import pytest

import tabpilot
from tests.e2e.conftest import PAGES
from tests.e2e.harness import Daemon
from tests.mcp_support import call, open_mcp

BUY = "position:absolute;left:120px;top:340px;width:88px;height:32px;margin:0;box-sizing:border-box"
PAGES["/guard/buttons.html"] = (
    {},
    f"""<!doctype html><title>Buttons</title><body style="margin:0">
<button id="buy" class="btn primary" style="{BUY}">Buy</button>
<div style="position:absolute;top:600px">{"<button>More</button>" * 99}</div></body>""",
)
LINE = "<button id=#buy class=.btn.primary> @ (120,340) 88x32"


@pytest.mark.parametrize("where", ["browser", "managed"])
async def test_elements_are_one_line_with_their_box(
    where: str, pages: str, request: pytest.FixtureRequest
) -> None:
    if where == "browser":
        request.getfixturevalue("browser")
        daemon: Daemon = request.getfixturevalue("daemon")
    else:
        daemon = request.getfixturevalue("managed")
    url = f"{pages}/guard/buttons.html"
    # The first call may start the managed browser: on a busy machine that takes a while.
    opened = daemon.post_json("/browser_tabs", {"action": "new", "url": url}, timeout=90)
    tab: dict[str, Any] = opened.json()["result"]
    try:
        # A new tab answers before its page has loaded; navigating waits for the load.
        loaded = daemon.post_json("/browser_navigate", {"url": url, "tab_id": tab["id"]}).json()
        assert loaded["success"], loaded
        body = daemon.post_json(
            "/execute_javascript",
            {"script": "document.getElementById('buy')", "tab_id": tab["id"]},
        ).json()
        assert body["result"] == "[BUTTON#buy.btn.primary @ (120,340) 88x32]", body
        async with open_mcp("http", daemon.port) as client:
            script = "document.querySelectorAll('button')"
            result, text = await call(client, "execute_javascript", script=script, tab_id=tab["id"])
        sc = result.structured_content
        assert sc is not None and sc["truncated"] is True, text
        assert text.startswith(f"Array(100) [{LINE}, <button> @ (")
        assert sc["result"] == text.split("\n[Shown ")[0]
        assert re.search(r"<button> @ \(\d+,600\) \d+x\d+", text)

        with tabpilot.Client(daemon.port, guard=True) as program:
            cut = program.execute(script, tab_id=tab["id"])
            assert isinstance(cut, tabpilot.Preview), cut
            assert (cut.result, cut.total_length) == (sc["result"], sc["total_length"])
            assert cut.confirm_token != sc["confirm_token"]
            whole = program.rest(cut)
        assert len(whole) == 100 and whole[0] == "[BUTTON#buy.btn.primary @ (120,340) 88x32]"
    finally:
        daemon.post_json("/browser_tabs", {"action": "close", "tab_id": tab["id"]})
