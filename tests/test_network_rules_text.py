"""browser_network_rules' params and the text a model reads of its answers
(tabpilot.tools.network_rules)."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.errors import InvalidRequest
from tabpilot.tools.network_rules import NetworkRulesParams, rules_text

BLOCK = {"id": 1, "kind": "block", "pattern": "**/ads/**", "types": None, "route": "dnr"}
HEADERS = {
    "id": 2,
    "kind": "headers",
    "pattern": "**/api/*",
    "types": ["xhr"],
    "route": "dnr",
    "set_headers": {"X-A": "1"},
    "remove_headers": ["Referer"],
}
MOCK = {
    "id": 3,
    "kind": "mock",
    "pattern": "**/user",
    "types": None,
    "route": "debugger",
    "status": 201,
    "headers": {},
    "body_size": 15,
}


def text(result: dict[str, Any]) -> str:
    return rules_text({"success": True, "result": result})


def test_an_added_rule_and_the_rules_there_are() -> None:
    added = text({"rule": BLOCK, "rules": [BLOCK], "scope": {"all_tabs": False, "tabs": 1}})
    assert added == "Added rule 1 in the AI's 1 tab\n#1 block **/ads/** (declarativeNetRequest)"
    scope = {"all_tabs": True, "intercepting": 2}
    listed = text({"rules": [BLOCK, HEADERS, MOCK], "scope": scope})
    assert listed.split("\n") == [
        "3 rules in every tab; mocks answer in 2",
        "#1 block **/ads/** (declarativeNetRequest)",
        "#2 headers **/api/* X-A: 1, -Referer (xhr; declarativeNetRequest)",
        "#3 mock **/user → 201, 15 chars (debugger)",
    ]


def test_no_ai_tab_says_how_to_get_one_and_removals_say_which() -> None:
    none = text({"rules": [], "scope": {"all_tabs": False, "tabs": 0}})
    assert none == "0 rules in the AI's 0 tabs (none open: browser_tabs new)"
    removed = text({"removed": [1, 2], "rules": [], "scope": {"all_tabs": True}})
    assert removed == "Removed rules 1, 2"


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"action": "add", "kind": "block"}, "needs `kind` and `pattern`"),
        ({"action": "remove"}, "needs the rule's `id`"),
        ({"action": "add", "kind": "block", "pattern": "**", "types": ["pictures"]}, "types"),
        ({"action": "add", "kind": "mock", "pattern": "**", "status": 99}, "status"),
    ],
)
def test_bad_params_are_refused(params: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest, match=None) as refused:
        NetworkRulesParams.parse(params)
    assert says in str(refused.value)
