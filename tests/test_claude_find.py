"""tabpilot.claude's pure parts: the find member's heuristic (its words, roles and ranking) and
the key names the toolset writes, as browser_act reads them."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.tools import ToolError

from tabpilot.claude.find import Query, answer, parse_query, rank, score, words_regex
from tabpilot.claude.keys import key_name, key_sequence, modifier_list


def match(line: str, ref: str | None = "e1", context: str | None = None) -> dict[str, Any]:
    return {"line": line, "ref": ref, "context": context}


def test_a_description_is_cut_into_content_words_and_role_words() -> None:
    assert parse_query("The Search field, please") == Query(
        ("search",), ("textbox", "searchbox", "combobox", "spinbutton"), ("field",)
    )
    assert parse_query("Add to cart buttons") == Query(("add", "cart"), ("button",), ("button",))
    assert parse_query("the") == Query((), (), ())


def test_the_regex_escapes_words_and_stays_within_browser_finds_200_characters() -> None:
    assert words_regex(("c++", "a.b")) == r"c\+\+|a\.b"
    long = tuple(f"word{i:03d}" for i in range(40))
    regex = words_regex(long)
    assert regex is not None and len(regex) <= 200 and regex.startswith("word000|word001")
    assert words_regex(()) is None


def test_names_count_more_than_roles_and_text() -> None:
    search = parse_query("search field")
    assert score(search, match('textbox "Search" [ref=e4]')) == 4 + 2 + 3
    assert score(search, match('button "Go" [ref=e5]')) == 0
    assert score(search, match("text: search tips", ref=None)) == 1 - 1
    download = parse_query("the download button")
    link = match('link "Download report" [ref=e3]')
    button = match('button "Far button" [ref=e9]')
    assert score(download, link) == 4 + 2 > score(download, button) == 3 + 2


def test_rank_lists_each_line_once_best_first_and_leaves_out_what_scores_nothing() -> None:
    query = parse_query("box button")
    by_words = [match('textbox "Full name" [ref=e2]', "e2"), match('button "Box" [ref=e1]', "e1")]
    by_role = [match('button "Box" [ref=e1]', "e1"), match('button "Save" [ref=e6]', "e6")]
    ranked = rank(query, [by_words, by_role])
    assert [(r.ref, r.score) for r in ranked] == [("e1", 5), ("e2", 3), ("e6", 3)]
    assert rank(query, [[match('heading "Other" [ref=e7]', "e7")]]) == []
    assert (
        len(rank(parse_query("item"), [[match(f'link "Item {i}"', f"e{i}") for i in range(50)]]))
        == 20
    )


def test_the_answer_says_what_was_searched_and_that_it_is_no_semantic_search() -> None:
    query = parse_query("cheapest item")
    text = answer("cheapest item", query, rank(query, [[match('link "Item 1" [ref=e3]', "e3")]]))
    first, line = text.split("\n")
    assert first.startswith('1 match for "cheapest item" (searched the page\'s elements by words: ')
    assert "Not a semantic search" in first
    assert line == '- link "Item 1" [ref=e3] (score 4)'  # "item" in the name; "cheapest" nowhere


@pytest.mark.parametrize(
    ("given", "pressed"),
    [
        ("Return", "Enter"),
        ("ctrl+a", "Control+a"),
        ("cmd+shift+p", "Meta+Shift+p"),
        ("BackSpace", "Backspace"),
        ("Page_Down", "PageDown"),
        ("alt+F4", "Alt+F4"),
        ("ctrl++", "Control++"),
        ("space", " "),
        ("Escape", "Escape"),
    ],
)
def test_key_names_become_browser_acts(given: str, pressed: str) -> None:
    assert key_name(given) == pressed


def test_a_key_sequence_and_click_modifiers() -> None:
    assert key_sequence("BackSpace BackSpace Delete") == ["Backspace", "Backspace", "Delete"]
    assert modifier_list("ctrl+shift") == ["Control", "Shift"]
    assert modifier_list(None) is None
    with pytest.raises(ToolError, match="Unknown modifier 'hyper'"):
        modifier_list("hyper")
    with pytest.raises(ToolError, match="No key given"):
        key_sequence("  ")
