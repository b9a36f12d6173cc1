"""browser_ask_human's params and answers (tabpilot.tools.ask_human): the person's time runs past a
command's two minutes and the daemon waits for it, each answer's text for a model, and the errors
that end a request reach every face with their status. The real extension and popup are
tests/e2e/test_ask_human.py's."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.errors import InvalidRequest, error_for_code
from tabpilot.tools.ask_human import (
    ASK_HUMAN,
    DEFAULT_TIMEOUT_MS,
    MAX_HUMAN_TIMEOUT_MS,
    AskHumanParams,
    ask_text,
)
from tests.support import Command, Reply, connected, fail, ok, run_daemon


def test_the_person_has_up_to_half_an_hour_and_the_daemon_waits_for_it() -> None:
    params = AskHumanParams.parse({"message": "Please log in"})
    assert (params.timeout_ms, params.ref, params.tab_id) == (DEFAULT_TIMEOUT_MS, None, None)
    longest = AskHumanParams.parse({"message": "Code?", "timeout_ms": MAX_HUMAN_TIMEOUT_MS})
    # Past the extension's own timeout, which answers human_timeout itself.
    assert ASK_HUMAN.timeout(longest) > MAX_HUMAN_TIMEOUT_MS / 1000


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({}, "`message` is required"),
        ({"message": ""}, "`message`: String should have at least 1 character"),
        ({"message": "x" * 501}, "`message`: String should have at most 500 characters"),
        ({"message": "a", "timeout_ms": MAX_HUMAN_TIMEOUT_MS + 1}, "`timeout_ms`"),
        ({"message": "a", "timeout_ms": 0}, "`timeout_ms`"),
        ({"message": "a", "ref": ""}, "`ref`"),
    ],
)
def test_bad_params_are_refused(params: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest, match=says):
        AskHumanParams.parse(params)


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (
            {"answer": "done", "reply": "logged in", "url": "https://a.example/home"},
            'The person answered done: "logged in"\nThe tab is at https://a.example/home',
        ),
        ({"answer": "done", "reply": ""}, "The person answered done."),
        (
            {"answer": "declined", "reply": "wrong size"},
            'The person answered declined: "wrong size" Do not retry what they declined; ask '
            "them or go another way.",
        ),
    ],
)
def test_the_text_says_what_the_person_answered(result: dict[str, Any], text: str) -> None:
    assert ask_text({"result": result}) == text


@pytest.mark.parametrize(
    ("code", "status"),
    [("human_timeout", 408), ("human_turn", 409), ("no_human", 409)],
)
async def test_the_extension_s_refusals_reach_the_caller_with_their_status(
    code: str, status: int
) -> None:
    async def extension(command: Command) -> Reply:
        return fail(code, f"the extension's words for {code}")

    with run_daemon() as daemon:
        async with connected(daemon, extension), daemon.client() as client:
            response = await client.post(
                "/browser_ask_human", json={"message": "Log in", "timeout_ms": 600_000}
            )
    assert response.status_code == status
    assert response.json()["error"] == {
        "code": code,
        "message": f"the extension's words for {code}",
    }
    cls = error_for_code(code)
    assert cls is not None and cls.status == status


async def test_a_long_timeout_is_sent_to_the_extension_as_asked() -> None:
    async def extension(command: Command) -> Reply:
        return ok({"answer": "done", "reply": "", "elapsed_ms": 3, "url": ""}, "object")

    with run_daemon() as daemon:
        async with connected(daemon, extension) as fake, daemon.client() as client:
            response = await client.post(
                "/browser_ask_human", json={"message": "Log in", "timeout_ms": 900_000}
            )
    assert response.status_code == 200, response.text
    assert [(c.command, c.params["timeout_ms"]) for c in fake.commands] == [
        ("browser_ask_human", 900_000)
    ]
