"""browser_network_rules: block, redirect, rewrite the request headers of, or mock the requests of
the AI's tabs (extension/worker/tools/network-rules.js, docs/network-rules.md). Listed in MCP
under the capability ``network``.

Rules live in the browser's extension, so they belong to that browser's context. Block, redirect
and headers are declarativeNetRequest session rules (route ``dnr``); a mock needs the debugger's
Fetch domain (route ``debugger``). In a person's Chrome they touch only the tabs the AI opened."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from tabpilot.tools.fields import Params, result_of
from tabpilot.tools.logs import RequestType
from tabpilot.tools.tool import ClientFace, CliFace, McpFace, Tool, describe

#: The longest mock body, in characters.
MAX_BODY_CHARS = 1_000_000

#: The fields each kind of rule takes besides pattern and types.
KIND_FIELDS = {
    "block": (),
    "redirect": ("redirect_to",),
    "headers": ("set_headers", "remove_headers"),
    "mock": ("status", "headers", "body"),
}


class NetworkRulesParams(Params):
    """A rule to add, or list, remove (by id) or clear the rules."""

    example: ClassVar[str] = '{"action": "add", "kind": "block", "pattern": "**/ads/**"}'

    action: Literal["add", "list", "remove", "clear"] = Field(default="list")
    kind: Literal["block", "redirect", "headers", "mock"] | None = Field(
        default=None, description="add: what the rule does."
    )
    pattern: str | None = Field(
        default=None,
        max_length=1024,
        description="add: glob over the whole url; ** any chars, * any but /.",
    )
    types: list[RequestType] | None = Field(
        default=None, min_length=1, max_length=12, description="Resource types; default all."
    )
    redirect_to: str | None = Field(default=None, max_length=2048, description="redirect: url.")
    set_headers: dict[str, str] | None = Field(default=None, description="headers: to set.")
    remove_headers: list[str] | None = Field(
        default=None, max_length=50, description="headers: to remove."
    )
    status: int | None = Field(default=None, ge=200, le=599, description="mock: default 200.")
    headers: dict[str, str] | None = Field(default=None, description="mock: response headers.")
    body: str | None = Field(default=None, max_length=MAX_BODY_CHARS, description="mock: body.")
    id: int | None = Field(default=None, ge=1, description="remove: the rule's id.")

    @model_validator(mode="after")
    def _needs(self) -> NetworkRulesParams:
        if self.action == "add" and (self.kind is None or self.pattern is None):
            raise ValueError('"add" needs `kind` and `pattern`')
        if self.action == "remove" and self.id is None:
            raise ValueError('"remove" needs the rule\'s `id`')
        return self


def rule_line(rule: dict[str, Any]) -> str:
    """`#2 redirect **/old/* → http://b.test/new (xhr; dnr)`."""
    kind = rule.get("kind")
    line = f"#{rule.get('id')} {kind} {rule.get('pattern')}"
    if kind == "redirect":
        line += f" → {rule.get('redirect_to')}"
    elif kind == "headers":
        changes = [f"{k}: {v}" for k, v in (rule.get("set_headers") or {}).items()]
        changes += [f"-{name}" for name in rule.get("remove_headers") or []]
        line += " " + ", ".join(changes)
    elif kind == "mock":
        line += f" → {rule.get('status')}, {rule.get('body_size', 0)} chars"
    types = ", ".join(rule.get("types") or [])
    route = "debugger" if rule.get("route") == "debugger" else "declarativeNetRequest"
    return line + f" ({types + '; ' if types else ''}{route})"


def scope_text(scope: dict[str, Any]) -> str:
    """`in every tab` or `in the AI's 2 tabs`, and where mocks are live."""
    if scope.get("all_tabs"):
        text = "in every tab"
    else:
        count = int(scope.get("tabs") or 0)
        text = f"in the AI's {count} tab{'s' if count != 1 else ''}"
        if count == 0:
            text += " (none open: browser_tabs new)"
    if "intercepting" in scope:
        text += f"; mocks answer in {scope['intercepting']}"
    return text


def rules_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_network_rules: what changed, then the rules there are."""
    result = result_of(envelope)
    rules = result.get("rules") or []
    scope = scope_text(result.get("scope") or {})
    if "rule" in result:
        head = f"Added rule {result['rule'].get('id')} {scope}"
    elif "removed" in result:
        removed = result.get("removed") or []
        ids = ", ".join(str(i) for i in removed)
        head = f"Removed rule{'s' if len(removed) != 1 else ''} {ids or 'none'}"
    else:
        head = f"{len(rules)} rule{'s' if len(rules) != 1 else ''} {scope}"
    return "\n".join([head, *(rule_line(rule) for rule in rules)])


NETWORK_RULES = Tool(
    name="browser_network_rules",
    params=NetworkRulesParams,
    title="Block, redirect, rewrite or mock requests",
    description=describe(
        """
        Rules for the requests of the AI's tabs: block, redirect, set/remove request headers,
        or mock (status, headers, body; needs the debugger). Each request a rule touched shows
        it in browser_network_requests. E.g. {"action": "add", "kind": "block", "pattern":
        "**/ads/**"} → Added rule 1 in the AI's 1 tab⏎#1 block **/ads/**
        (declarativeNetRequest)
        """
    ),
    timeout_s=15.0,
    text=rules_text,
    read_only=False,
    client=ClientFace(
        "network_rules",
        doc=(
            "The network rules after the action: ``{rules, scope: {all_tabs, tabs?, "
            "intercepting?}, rule?, removed?}``, each rule ``{id, kind, pattern, types, route, "
            "redirect_to?, set_headers?, remove_headers?, status?, headers?, body_size?}``."
        ),
        positional=("action",),
    ),
    cli=CliFace("rules", positional=("action",)),
    mcp=McpFace(cap="network"),
)

TOOLS = (NETWORK_RULES,)
