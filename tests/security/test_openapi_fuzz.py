"""Fuzz the daemon's own OpenAPI with schemathesis: valid and invalid requests to every route,
with a fake extension connected (so commands really travel to it) and with none.

Whatever comes in, the daemon answers with no 5xx of its own making and every answer is one of
the two envelopes, with the request id of its X-Request-ID header.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode

from tabpilot.envelope import FailureEnvelope, SuccessEnvelope
from tabpilot.errors import error_for_code
from tests import figures
from tests.security.background import fake_extension_thread
from tests.support import Daemon, run_daemon

# The daemon and the fake extension run in threads beside Hypothesis. When the `random` module's
# global state moves while Hypothesis builds a case, Hypothesis takes it for a strategy that uses
# `random` and warns (an error here); the strategies here use none, and the warning came only in
# whole runs on a loaded machine, in each of the three tests (each passes alone), so it is the
# threads', not the cases'.
pytestmark = pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")

#: Per route and generation mode. Deterministic (derandomize), so a failure reproduces.
EXAMPLES = {"POST /execute_javascript": 120, "GET /status": 15, "GET /tabs": 15, "GET /health": 15}
#: 5xx a caller can legitimately get from the bridge; 500 (a daemon bug) is never among them.
BRIDGE_STATUSES = {502, 503, 504}


#: No Chromium to start: browser_context_create is fuzzed for its checks, and then answers
#: browser_unavailable at once rather than start a browser per request.
NO_CHROMIUM = "/nonexistent/chromium"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    # A short connect grace keeps the "no extension" half fast: each command waits it out. Its
    # own state dir: browser_context_save_storage writes files there.
    state_dir = tmp_path_factory.mktemp("fuzz-state")
    with run_daemon(
        connect_grace_s=0.05, chromium_path=NO_CHROMIUM, state_dir=state_dir
    ) as running:
        yield running


def _strategies(daemon: Daemon) -> list[tuple[str, st.SearchStrategy[Case]]]:
    schema = schemathesis.openapi.from_dict(daemon.app.openapi())
    out: list[tuple[str, st.SearchStrategy[Case]]] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        # Routes without parameters or a body have no invalid form to generate.
        modes = [GenerationMode.POSITIVE]
        if operation.body or list(operation.iter_parameters()):
            modes.append(GenerationMode.NEGATIVE)
        for mode in modes:
            out.append((operation.label, operation.as_strategy(generation_mode=mode)))
    return out


def _check(response: httpx.Response, label: str, extension: bool, token: bool = False) -> None:
    assert response.status_code != 500, f"{label}: 500 {response.text[:500]}"
    if token and label != "GET /health":
        # A daemon with a token answers nothing else before it sees the token.
        assert response.status_code == 401, f"{label}: {response.text[:500]}"
    assert response.headers["content-type"] == "application/json", label
    body = response.json()
    assert body["request_id"] == response.headers["x-request-id"], label
    if response.status_code == 200 and body["success"]:
        SuccessEnvelope.model_validate(body)
        return
    failure = FailureEnvelope.model_validate(body)
    known = error_for_code(failure.error.code)
    assert known is not None, f"{label}: unknown code {failure.error.code}"
    assert known.status == response.status_code, f"{label}: {body}"
    assert failure.error.message, label
    if response.status_code >= 500:
        assert response.status_code in BRIDGE_STATUSES, f"{label}: {body}"
        if failure.error.code == "browser_unavailable":
            assert label == "POST /browser_context_create", f"{label}: {body}"
            return
        # Connected, the echoing extension answers every command: no bridge failure is due.
        assert not extension, f"{label}: {body}"


def _fuzz(daemon: Daemon, extension: bool, token: bool = False) -> Counter[int]:
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=daemon.base_url, trust_env=False, timeout=30) as client:
        for label, strategy in _strategies(daemon):
            _run_examples(client, daemon, label, strategy, (extension, token), statuses)
    return statuses


def _run_examples(
    client: httpx.Client,
    daemon: Daemon,
    label: str,
    strategy: st.SearchStrategy[Case],
    setup: tuple[bool, bool],
    statuses: Counter[int],
) -> None:
    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES.get(label, 15),
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Case) -> None:
        sent = case.as_transport_kwargs(base_url=daemon.base_url)
        response = client.request(
            sent["method"],
            sent["url"],
            headers=sent.get("headers"),
            params=sent.get("params"),
            content=sent.get("data"),
            json=sent.get("json"),
        )
        statuses[response.status_code] += 1
        _check(response, label, *setup)

    run()


def _record(setup: str, statuses: Counter[int]) -> None:
    answered = ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
    figures.record(
        "Hostile input",
        f"schemathesis requests to every OpenAPI route, {setup}",
        f"{sum(statuses.values())} requests, 500s: 0 (by status: {answered})",
        figures.SCRIPTED,
    )


def test_fuzzed_requests_with_an_extension_connected(daemon: Daemon) -> None:
    with fake_extension_thread(daemon) as fake:
        statuses = _fuzz(daemon, extension=True)
        assert fake.commands, "no fuzzed command reached the extension"
        assert statuses[200] > 0
    _record("with the scripted extension connected", statuses)


def test_fuzzed_requests_with_no_extension(daemon: Daemon) -> None:
    statuses = _fuzz(daemon, extension=False)
    assert statuses[503] > 0  # commands waited out the grace and said so
    _record("with no extension", statuses)


def test_fuzzed_requests_without_the_token_are_all_401() -> None:
    with (
        run_daemon(token="fuzz-token") as guarded,
        fake_extension_thread(guarded, token="fuzz-token"),
    ):
        statuses = _fuzz(guarded, extension=True, token=True)
    assert statuses[401] > 0
    _record("to a daemon with a token, none sent", statuses)
