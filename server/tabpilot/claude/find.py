"""The ``find`` member's query and ranking: a description in words, answered by browser_find.

tabpilot does not understand a description. It reads its words, and ranks the snapshot's lines
that hold them, by this heuristic (docs/claude.md, "find"):

1. The description is cut into words (letters and digits), lower case. Small words that name
   nothing (``the``, ``a``, ``on``, ``with``, ``page``…) are dropped.
2. A word that names a kind of element is a role word: ``button`` means the role ``button``;
   ``link``; ``field``, ``input``, ``box``, ``textbox`` mean ``textbox``, ``searchbox`` or
   ``combobox``; ``checkbox``; ``radio``; ``dropdown``, ``select``, ``menu`` mean ``combobox``,
   ``listbox`` or ``menu``; ``heading``, ``title``; ``image``, ``picture``, ``icon``; and so on
   (:data:`ROLE_WORDS`). The other words are content words.
3. browser_find is asked for the lines holding any word of the description, content or role
   word (one regex of them all, any case), and for the lines of each role named.
4. Each line found scores: 4 for each content word in its accessible name, 1 for each content
   word found only in the rest of the line (its text), 2 for each role word in its name (``the
   Box button`` names a button "Box"), 2 more when every content word is in the name, and 3 when
   its role is one the role words name: the words the page shows count for more than the kind of
   element, which a description often gets wrong ("the download button" of a link). A line
   without a ref (a text node) loses 1: it cannot be acted on, though its context names what
   holds it.
5. The lines are listed best first (page order among equals), at most 20, each with its score.

So ``"search field"`` finds ``textbox "Search"`` first (name 4 + all words 2 + role 3), and
``"blue submit button"`` prefers ``button "Submit"`` to a paragraph that says "blue", and
``"box button"`` a button named "Box" to any text field. A
description that needs understanding ("the cheapest item", "the second row") is answered only
by its words, and the answer says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

#: The most matches the toolset's find returns.
MAX_MATCHES = 20
#: What browser_find answers at most per query.
FIND_LIMIT = 100
#: browser_find's longest query; longer regexes are cut to the first words that fit.
MAX_QUERY_CHARS = 200

#: Words of a description that name no element and no content.
STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "of",
        "on",
        "in",
        "at",
        "to",
        "for",
        "from",
        "with",
        "by",
        "and",
        "or",
        "is",
        "are",
        "be",
        "it",
        "its",
        "which",
        "where",
        "what",
        "who",
        "whose",
        "please",
        "find",
        "locate",
        "element",
        "elements",
        "page",
        "named",
        "called",
        "labeled",
        "labelled",
        "saying",
        "says",
        "text",
    }
)

#: Role words, singular and plural, to the snapshot roles they mean.
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "button": ("button",),
    "btn": ("button",),
    "link": ("link",),
    "hyperlink": ("link",),
    "field": ("textbox", "searchbox", "combobox", "spinbutton"),
    "input": ("textbox", "searchbox", "combobox", "spinbutton"),
    "textbox": ("textbox",),
    "textarea": ("textbox",),
    "box": ("textbox", "searchbox", "combobox"),
    "searchbox": ("searchbox",),
    "checkbox": ("checkbox",),
    "tickbox": ("checkbox",),
    "radio": ("radio",),
    "option": ("option", "radio"),
    "dropdown": ("combobox", "listbox", "menu"),
    "select": ("combobox", "listbox"),
    "combobox": ("combobox",),
    "menu": ("menu", "menubar", "menuitem"),
    "menuitem": ("menuitem",),
    "heading": ("heading",),
    "header": ("heading", "banner"),
    "title": ("heading",),
    "image": ("img",),
    "img": ("img",),
    "picture": ("img",),
    "photo": ("img",),
    "icon": ("img", "button"),
    "logo": ("img", "link"),
    "tab": ("tab",),
    "slider": ("slider",),
    "switch": ("switch", "checkbox"),
    "toggle": ("switch", "checkbox", "button"),
    "table": ("table", "grid"),
    "row": ("row",),
    "cell": ("cell", "gridcell"),
    "list": ("list",),
    "dialog": ("dialog", "alertdialog"),
    "modal": ("dialog", "alertdialog"),
    "navigation": ("navigation",),
    "nav": ("navigation",),
    "form": ("form",),
    "paragraph": ("paragraph",),
}


@dataclass(frozen=True)
class Query:
    """A description as the heuristic reads it: its content words, its role words and the
    roles they name."""

    words: tuple[str, ...]
    roles: tuple[str, ...]
    role_words: tuple[str, ...] = ()


def singular(word: str) -> str:
    """``buttons`` → ``button``, ``boxes`` → ``box``; other words as they are."""
    if word.endswith("es") and word[:-2] in ROLE_WORDS:
        return word[:-2]
    if word.endswith("s") and word[:-1] in ROLE_WORDS:
        return word[:-1]
    return word


def parse_query(description: str) -> Query:
    """The content words (in order, once each) and the roles the role words name."""
    words: list[str] = []
    roles: list[str] = []
    role_words: list[str] = []
    for raw in re.findall(r"[^\W_]+", description.lower()):
        word = singular(raw)
        if word in ROLE_WORDS:
            roles.extend(role for role in ROLE_WORDS[word] if role not in roles)
            if word not in role_words:
                role_words.append(word)
        elif word not in STOP_WORDS and word not in words:
            words.append(word)
    return Query(tuple(words), tuple(roles), tuple(role_words))


def words_regex(words: tuple[str, ...]) -> str | None:
    """One alternation of the words, escaped, within browser_find's 200 characters."""
    parts: list[str] = []
    for word in words:
        candidate = "|".join([*parts, re.escape(word)])
        if len(candidate) > MAX_QUERY_CHARS:
            break
        parts.append(re.escape(word))
    return "|".join(parts) or None


@dataclass(frozen=True)
class Ranked:
    """One line of the snapshot with its score and page order."""

    score: int
    order: int
    line: str
    ref: str | None
    context: str | None


_HEAD = re.compile(r'^([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?(.*)$')


def role_and_name(line: str) -> tuple[str, str, str]:
    """``button "Buy now" [ref=e3]`` → ``("button", "buy now", " [ref=e3]")``, lower case."""
    if line.startswith("text: "):
        return "text", "", line[6:].lower()
    head = _HEAD.match(line)
    if head is None:
        return "", "", line.lower()
    role, quoted, rest = head.groups()
    name = ""
    if quoted:
        try:
            name = str(json.loads(quoted))
        except ValueError:
            name = quoted.strip('"')
    return role, name.lower(), rest.lower()


def score(query: Query, match: dict[str, Any]) -> int:
    """The heuristic's score of one browser_find match (module docstring, step 4)."""
    role, name, rest = role_and_name(str(match.get("line") or ""))
    points = 0
    in_name = 0
    for word in query.words:
        if word in name:
            points += 4
            in_name += 1
        elif word in rest:
            points += 1
    points += 2 * sum(1 for word in query.role_words if word in name)
    if query.words and in_name == len(query.words):
        points += 2
    if role in query.roles:
        points += 3
    if not match.get("ref"):
        points -= 1
    return points


def rank(query: Query, found: list[list[dict[str, Any]]]) -> list[Ranked]:
    """The matches of browser_find's answers, each line once, best first, page order among
    equals; lines that score nothing are left out."""
    seen: dict[tuple[str, str | None], Ranked] = {}
    order = 0
    for matches in found:
        for match in matches:
            key = (str(match.get("line") or ""), match.get("ref"))
            if key in seen:
                continue
            points = score(query, match)
            if points > 0:
                seen[key] = Ranked(points, order, key[0], key[1], match.get("context"))
            order += 1
    return sorted(seen.values(), key=lambda r: (-r.score, r.order))[:MAX_MATCHES]


def answer(description: str, query: Query, ranked: list[Ranked]) -> str:
    """The text the model reads: what was searched for, then one line per match."""
    what = ", ".join(f'"{w}"' for w in query.words) or "no words"
    if query.roles:
        what += f"; roles {', '.join(query.roles)}"
    head = (
        f"{len(ranked)} match{'' if len(ranked) == 1 else 'es'} for {json.dumps(description)} "
        f"(searched the page's elements by words: {what}; ranked by words in the name, "
        "the role, then the text. Not a semantic search: read_page shows everything.)"
    )
    lines = [head]
    for item in ranked:
        text = f"- {item.line}"
        if item.context:
            text += f" \u2014 {item.context}"
        lines.append(f"{text} (score {item.score})")
    return "\n".join(lines)
