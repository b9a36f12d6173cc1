"""browser_take_screenshot's faces against the scripted fake extension: raw bytes over HTTP by
Accept, an image block in MCP that the structured content does not repeat, the text line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_types import ImageContent, TextContent

from tabpilot.cli.images import save_image
from tabpilot.tools.screenshot import image_bytes, screenshot_text
from tests.mcp_support import open_mcp
from tests.support import Command, Daemon, Reply, connected, ok, run_daemon
from tests.test_tools import RESULTS

SHOT = RESULTS["browser_take_screenshot"]
PNG = image_bytes(SHOT)


async def extension(command: Command) -> Reply:
    return ok({**SHOT, "mime_type": f"image/{command.params['format']}"}, "object")


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as d:
        yield d


@pytest.mark.parametrize(
    ("accept", "body", "sent_format", "mime"),
    [
        ("image/png", {}, "png", "image/png"),
        ("image/jpeg", {}, "jpeg", "image/jpeg"),
        ("text/html, image/jpeg;q=0.9", {"format": "jpeg"}, "jpeg", "image/jpeg"),
        ("application/json", {"format": "png"}, "png", None),
        ("*/*", {}, "jpeg", None),
    ],
)
async def test_accept_picks_the_answer_and_the_format(
    daemon: Daemon, accept: str, body: dict[str, Any], sent_format: str, mime: str | None
) -> None:
    async with connected(daemon, extension) as fake, daemon.client() as client:
        response = await client.post(
            "/browser_take_screenshot", json=body, headers={"Accept": accept}
        )
    assert response.status_code == 200, response.text
    assert [c.params["format"] for c in fake.commands] == [sent_format]
    if mime is None:
        assert response.json()["result"]["data"] == SHOT["data"]
        return
    assert response.headers["content-type"] == mime
    assert response.content == PNG
    assert response.headers["x-image-width"] == "2"
    assert response.headers["x-image-height"] == "1"
    assert response.headers["x-image-scale"] == "0.5"
    assert response.headers["x-request-id"]


@pytest.mark.parametrize(
    ("accept", "body"),
    [("image/jpeg", {"format": "png"}), ("image/png", {"quality": 50})],
)
async def test_an_accept_that_contradicts_the_body_is_refused(
    daemon: Daemon, accept: str, body: dict[str, Any]
) -> None:
    async with connected(daemon, extension) as fake, daemon.client() as client:
        response = await client.post(
            "/browser_take_screenshot", json=body, headers={"Accept": accept}
        )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert fake.commands == []


async def test_the_openapi_lists_the_raw_images(daemon: Daemon) -> None:
    async with daemon.client() as client:
        schema = (await client.get("/openapi.json")).json()
    content = schema["paths"]["/browser_take_screenshot"]["post"]["responses"]["200"]["content"]
    assert {"application/json", "image/png", "image/jpeg"} <= set(content)
    assert "image/png" not in schema["paths"]["/browser_read"]["post"]["responses"]["200"].get(
        "content", {}
    )


async def test_mcp_answers_one_line_and_an_image_block_sent_once(daemon: Daemon) -> None:
    async with connected(daemon, extension), open_mcp("http", daemon.settings.port) as client:
        answer = await client.call_tool("browser_take_screenshot", {"format": "png"})
    assert not answer.is_error
    text, image = answer.content
    assert isinstance(text, TextContent) and isinstance(image, ImageContent)
    assert text.text == "Screenshot of element e2 (img): 2x1 PNG, 72 bytes, scale 0.5 (debugger)"
    assert (image.data, image.mime_type) == (SHOT["data"], "image/png")
    # The line and the image are the whole answer: nothing repeated as structured content.
    assert answer.structured_content is None


def test_the_text_says_when_a_tall_page_was_capped() -> None:
    shot = {
        **SHOT,
        "mime_type": "image/jpeg",
        "bytes": 200_000,
        "captured": "the top 16384 px of the page",
        "note": "The page is 20000 px tall; only its top 16384 px were captured.",
    }
    assert screenshot_text({"success": True, "result": shot}) == (
        "Screenshot of the top 16384 px of the page: 2x1 JPEG, 195 KB, scale 0.5 (debugger). "
        "The page is 20000 px tall; only its top 16384 px were captured."
    )


def test_the_text_says_what_region_a_zoom_shows_and_at_what_scale() -> None:
    shot = {
        **SHOT,
        "mime_type": "image/png",
        "width": 120,
        "height": 80,
        "scale": 2,
        "captured": "the viewport region x=320 y=80 60x40",
        "clip": {"x": 320, "y": 80, "width": 60, "height": 40},
    }
    assert screenshot_text({"success": True, "result": shot}) == (
        "Screenshot of the viewport region x=320 y=80 60x40: 120x80 PNG, 72 bytes, scale 2 "
        "(debugger)"
    )


def test_the_cli_writes_the_image_to_a_file_or_stdout(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    envelope = {"success": True, "result": SHOT}
    assert save_image(envelope, str(tmp_path / "a.png")) == str(tmp_path / "a.png")
    assert (tmp_path / "a.png").read_bytes() == PNG
    assert save_image(envelope, "-") == "-"
    assert capsysbinary.readouterr().out == PNG
