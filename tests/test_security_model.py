"""Each sentence of the README's "Security model" is proved by a test.

PROOF holds, for each sentence, a short fragment of it and the tests that check what it says:
pytest node ids (`tests/...py::test_name`, a parametrized id's `[...]` naming the case meant), or
a node test of the extension (`extension-tests/<file>.test.js::<its name>`). A sentence added to
the section without a line here fails, as does a fragment the README no longer has and a test that
is no longer there. Nothing here runs the tests named: the suites do.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEADING = "## Security model"

_PILOT_OFF = "tests/e2e/test_pilot_off_pages.py"
_HOOKS = "tests/e2e/test_page_hooks.py"
_PAGE_WORLD = "tests/security/test_page_world.py"
_SCRIPTS = "extension-tests/page-scripts.test.js"
_SEEN = "tests/e2e/test_seen.py"

#: fragment of a sentence -> the tests that prove it.
PROOF: dict[str, tuple[str, ...]] = {
    "full privileges of the page": (
        # The script reads the page's DOM, its localStorage and its window.
        "tests/e2e/test_execute.py::test_result",
        f"{_PILOT_OFF}::test_with_the_switch_off_a_page_has_nothing_of_tabpilot_and_works_once_it_is_on",
    ),
    "each in full in [docs/security.md]": (
        "tests/test_doc_links.py::test_every_relative_link_and_anchor_of_the_docs_resolves",
    ),
    "nothing runs while AI Web Pilot is off": (
        "tests/e2e/test_pilot.py::test_switch_off_refuses_and_switch_on_works_again",
        "tests/test_bridge.py::test_pilot_off_in_hello_fails_fast_without_sending",
        "extension-tests/commands.test.js::pilot off refuses with pilot_disabled and never touches a tab",  # noqa: E501
    ),
    "off after installing, and nothing the daemon sends": (
        "extension-tests/pilot.test.js::a normal install starts with the switch off and stores that",  # noqa: E501
        "extension-tests/main.test.js::nothing the daemon sends turns the switch on",
    ),
    "Only while it is on does Chrome put": (
        # Registered only while on; a page loaded then logs its first script (document_start).
        f"{_PILOT_OFF}::test_with_the_switch_off_a_page_has_nothing_of_tabpilot_and_works_once_it_is_on",
        f"{_SCRIPTS}::with the switch off, nothing is registered",
        "extension-tests/manifest.test.js::the registered scripts are the two worlds' lists, in every frame, at document_start",  # noqa: E501
        "tests/e2e/test_frames.py::test_snapshot_shows_frames_with_refs_and_origin",
        # The executor and serializer, the channel, the upload hook, the log hooks.
        "tests/e2e/test_execute.py::test_result",
        f"{_PAGE_WORLD}::test_forged_results_never_reach_a_caller",
        "tests/e2e/test_files.py::test_show_open_file_picker_gets_handles",
        "tests/e2e/test_console.py::test_every_level_errors_rejections_and_csp_from_before_the_first_call[browser]",
        "tests/e2e/test_network.py::test_response_bodies_of_fetch_and_xhr_capped[browser]",
        f"{_HOOKS}::test_an_event_stream_is_never_read_and_a_long_body_only_to_the_cap",
    ),
    "already open when it goes on gets them on its first command": (
        f"{_PILOT_OFF}::test_with_the_switch_off_a_page_has_nothing_of_tabpilot_and_works_once_it_is_on",
        f"{_PILOT_OFF}::test_a_page_with_frames_loaded_while_off_is_reached_in_every_frame_on_its_first_command",
        "tests/e2e/test_injection.py::test_tab_open_before_the_extension_loaded_gets_its_scripts_on_first_command",
    ),
    "When it goes off they are unregistered": (
        f"{_SCRIPTS}::turning the switch off unregisters them, on registers them again; the daemon hears each after",  # noqa: E501
        f"{_PILOT_OFF}::test_with_the_switch_off_a_page_has_nothing_of_tabpilot_and_works_once_it_is_on",
        # Still there while off (the init is read by fetch alone), no log kept, working again on.
        f"{_HOOKS}::test_a_page_loaded_while_the_pilot_was_on_keeps_no_log_while_it_is_off",
    ),
    "The managed browser's switch is on by design": (
        'extension-tests/pilot.test.js::managed.json {"pilot_default": true} starts it on when nothing is stored',  # noqa: E501
        f"{_SCRIPTS}::the managed browser's first start registers them before its hello says the pilot is on",  # noqa: E501
        "tests/e2e/test_console.py::test_every_level_errors_rejections_and_csp_from_before_the_first_call[managed]",
    ),
    "a site learns only that tabpilot is installed": (
        # No window name, native built-ins, no extension frame, no console entry, no event
        # answered; the web-accessible files do answer.
        f"{_PILOT_OFF}::test_with_the_switch_off_a_page_has_nothing_of_tabpilot_and_works_once_it_is_on",
    ),
    "finds no tabpilot name on `window`": (
        f"{_HOOKS}::test_wrapped_built_ins_look_native_and_window_has_no_tabpilot_name",
        # The same while off, the events answered too; the init's method read twice while on.
        f"{_HOOKS}::test_a_page_loaded_while_the_pilot_was_on_keeps_no_log_while_it_is_off",
        f"{_HOOKS}::test_a_site_can_still_tell_the_page_world_is_there_by_its_events",
    ),
    "the debugger (strict pages, dialogs, trusted input) has a switch of its own": (
        "tests/e2e/test_strict_pages.py::test_a_strict_page_refuses_until_a_switch_allows_it_and_says_which",
        "tests/e2e/test_act.py::test_without_the_debugger_a_dialog_an_action_raises_is_reported",
        "tests/e2e/test_act.py::test_trusted_input_needs_the_debugger_switch_in_a_persons_browser",
    ),
    "no web page can reach the daemon": (
        "tests/test_app.py::test_refuses_to_listen_anywhere_but_loopback",
        "tests/test_security.py::test_web_page_origins_are_403_for_every_content_type",
        "tests/test_security.py::test_no_cors_get_from_a_page_is_403",
        "tests/test_security.py::test_foreign_host_header_is_403",
        "tests/test_security.py::test_loopback_host_header_is_served",
    ),
    "the callers' socket refuses every browser": (
        "tests/test_security.py::test_another_extension_cannot_open_the_websocket",
        "tests/test_security.py::test_another_extensions_origin_is_refused",
        "tests/test_calls.py::test_browsers_and_other_hosts_cannot_open_it",
    ),
    "neither read other requests nor forge results": (
        f"{_PAGE_WORLD}::test_page_spies_see_only_what_the_boundary_allows",
        f"{_PAGE_WORLD}::test_awaited_results_are_neither_seen_nor_forged_by_page_getters",
        f"{_PAGE_WORLD}::test_forged_results_never_reach_a_caller",
    ),
    "a hostile page may see it": (
        f"{_PAGE_WORLD}::test_page_spies_see_only_what_the_boundary_allows",
    ),
    "runs at most once": (
        "tests/test_bridge.py::test_disconnect_mid_command_is_502_and_never_resent",
        "extension-tests/commands.test.js::any other send failure is never resent: the message may have been delivered",  # noqa: E501
    ),
    "Text the person cannot see is marked": (
        f"{_SEEN}::test_snapshot_marks_each_hidden_text_and_no_shown_text",
        f"{_SEEN}::test_read_marks_each_hidden_text_and_visible_only_leaves_it_out",
    ),
    "give all the text in the DOM, and mark what is off-screen": (
        # One hidden text per case, each marked; the shown texts (over an image, a gradient,
        # scrolled in a box, grey, on dark) are not; the labelledby name is marked.
        f"{_SEEN}::test_snapshot_marks_each_hidden_text_and_no_shown_text",
        f"{_SEEN}::test_read_marks_each_hidden_text_and_visible_only_leaves_it_out",
        f"{_SEEN}::test_the_managed_browser_marks_hidden_text_and_says_so_on_a_trusted_act",
        "extension-tests/seen.test.js::opacity 0, a zero clip, a tiny clipping box and a place far off the page hide an element",  # noqa: E501
        "extension-tests/seen.test.js::text in its background's colour, or nearly, is unseen; readable text is not",  # noqa: E501
    ),
    "`visible_only: true` leaves it out": (
        f"{_SEEN}::test_snapshot_visible_only_leaves_hidden_text_out_but_keeps_labels",
        f"{_SEEN}::test_read_marks_each_hidden_text_and_visible_only_leaves_it_out",
    ),
    "An act on an element the person cannot see is done": (
        f"{_SEEN}::test_act_on_an_opacity_0_button_acts_and_says_so",
        f"{_SEEN}::test_an_act_on_a_shown_button_says_nothing_of_it",
        f"{_SEEN}::test_the_managed_browser_marks_hidden_text_and_says_so_on_a_trusted_act",
    ),
    "answers only the MCP session": (
        "tests/test_guard.py::test_another_mcp_session_cannot_redeem_a_sessions_token",
        "tests/test_guard.py::test_another_socket_cannot_redeem_a_sockets_token",
        "tests/test_guard.py::test_http_callers_are_told_apart_by_the_context_they_name",
        "tests/test_guard_store.py::test_a_token_answers_only_its_own_caller_and_tells_no_other_it_exists",
    ),
    "A page cannot drive your terminal": (
        "tests/e2e/test_terminal.py::test_page_text_is_escaped_unless_raw_and_json_stays_json",
        "tests/test_cli_terminal.py::test_escape_shows_what_a_terminal_would_obey",
        "tests/test_cli_terminal.py::test_a_page_cannot_drive_the_terminal",
    ),
    "every tool answers `site_blocked` there": (
        "tests/e2e/test_site_rules.py::test_every_tool_refuses_a_ruled_out_site_naming_the_rule",
        "tests/e2e/test_site_rules.py::test_only_the_sites_listed",
        "tests/e2e/test_site_rules.py::test_the_ai_cannot_change_the_rules",
    ),
    "The daemon can add its own": (
        "tests/test_site_rules.py::test_the_daemons_hello_carries_its_rules_to_the_extension",
        "tests/e2e/test_site_rules.py::test_the_managed_browser_applies_the_daemons_rules",
    ),
    "read it from the state dir": (
        "tests/security/test_token.py::test_token_comes_from_the_environment_then_the_file",
        "tests/security/test_token.py::test_the_cli_reads_the_token_file_by_itself",
        "tests/test_mcp_server.py::test_tabpilot_mcp_reads_the_token_file",
    ),
}


def section(readme: str) -> str:
    """The section's text, from below its heading to the next heading of its level."""
    start = readme.index(HEADING + "\n") + len(HEADING) + 1
    end = readme.find("\n## ", start)
    return readme[start : end if end >= 0 else len(readme)]


def sentences(text: str) -> list[str]:
    """The sentences of a markdown section: each paragraph and each bullet item, joined onto one
    line, split after each full stop that a space follows."""
    units: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if (not line.strip() or line.startswith("- ")) and current:
            units.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line.strip().removeprefix("- "))
    if current:
        units.append(" ".join(current))
    return [s for unit in units for s in re.split(r"(?<=\.)\s+", unit) if s]


def unproved(said: list[str], proof: dict[str, tuple[str, ...]]) -> list[str]:
    """The sentences no fragment of `proof` names, or more than one does."""
    return [s for s in said if sum(fragment in s for fragment in proof) != 1]


def _said() -> list[str]:
    return sentences(section((REPO / "README.md").read_text()))


def test_every_sentence_of_the_security_model_has_a_test() -> None:
    said = _said()
    assert len(said) >= len(PROOF)
    assert unproved(said, PROOF) == []


def test_every_fragment_names_one_sentence_of_the_readme() -> None:
    said = _said()
    assert {f: n for f in PROOF if (n := sum(f in s for s in said)) != 1} == {}


def test_a_new_sentence_or_a_second_fragment_is_caught() -> None:
    text = "- **A lock**: it holds. It holds twice.\n\nA closing line, with no full stop"
    assert sentences(text) == [
        "**A lock**: it holds.",
        "It holds twice.",
        "A closing line, with no full stop",
    ]
    proof = {"it holds": ("t",), "closing line": ("t",)}
    assert unproved(sentences(text), proof) == ["It holds twice."]
    assert unproved(["it holds, a closing line."], proof) == ["it holds, a closing line."]


def _exists(node: str) -> bool:
    """Whether the test a node id names is defined (its module imported, not run)."""
    path, _, name = node.partition("::")
    if path.startswith("extension-tests/"):
        source = (REPO / path).read_text()
        return any(f"test({quote}{name}{quote}" in source for quote in "\"'`")
    name = name.split("[", 1)[0]
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    return name.startswith("test_") and callable(getattr(module, name, None))


@pytest.mark.parametrize("node", sorted({node for nodes in PROOF.values() for node in nodes}))
def test_every_listed_test_exists(node: str) -> None:
    assert (REPO / node.partition("::")[0]).is_file(), node
    assert _exists(node), node
