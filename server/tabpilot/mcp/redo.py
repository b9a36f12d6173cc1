"""The scripts that redo a tool: what execute_javascript was asked that a page tool does better,
and the one hint each gets (:mod:`tabpilot.mcp.hints` gives them, once a session)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: The redo patterns look at the first this many characters of a script.
SCANNED_CHARS = 2000


@dataclass(frozen=True)
class Redo:
    """A script that does what a tool does, and the hint that names the tool."""

    tool: str
    matches: Callable[[str], bool]
    hint: str
    #: What the README's table shows as the scripts it catches.
    catches: str


def _pattern(regex: str, *needles: str) -> Callable[[str], bool]:
    """Whether a script matches ``regex``, which runs only on a script holding one of ``needles``.

    Each alternative of ``regex`` starts with a literal character, never with `\\b`: the regex
    engine then skips to where one may begin, some thirty times faster on a long script.
    """
    search = re.compile(regex).search

    def matches(script: str) -> bool:
        return any(needle in script for needle in needles) and search(script) is not None

    return matches


_TITLE_OR_URL = re.compile(
    r"\b(?:window\.|document\.)?location(?:\.href)?\b|\bdocument\.(?:title|URL)\b"
)
_KEYS = re.compile(r"\breturn\b|[\w$]+\s*:")
_ANYTHING_ELSE = re.compile(r"[^\s(){}\[\],;+'\"`]")


def _only_title_or_url(script: str) -> bool:
    """The whole script reads the title or the url, and nothing else: `document.title`,
    `({title: document.title, url: location.href})`."""
    if len(script) > 200 or not ("title" in script or "location" in script or "URL" in script):
        return False
    rest = _TITLE_OR_URL.sub("", script)
    return rest != script and not _ANYTHING_ELSE.search(_KEYS.sub("", rest))


_NOT_ASSIGNED = r"(?!\s*[-+]?=(?!=))"
_ASSIGNED = r"\s*=(?!=)"

REDOS = (
    Redo(
        "browser_read",
        _pattern(
            r"document\.(?:body|documentElement)\.(?:innerText|textContent)\b" + _NOT_ASSIGNED,
            "innerText",
            "textContent",
        ),
        "Tip: browser_read {} reads the page's text, a slice at a time, unseen text marked.",
        "`document.body.innerText`, `.textContent`",
    ),
    Redo(
        "browser_snapshot",
        _pattern(
            r"document\.(?:body|documentElement)\.(?:outerHTML|innerHTML)\b" + _NOT_ASSIGNED,
            "HTML",
        ),
        "Tip: browser_snapshot {} shows the page's structure with refs, far shorter than its HTML.",
        "`document.body.innerHTML`, `document.documentElement.outerHTML`",
    ),
    Redo(
        "browser_act",
        _pattern(
            r"\.click\(\s*\)|dispatchEvent\(\s*new\s+(?:Mouse|Pointer|Keyboard|Input)Event\b"
            r"|\.value" + _ASSIGNED,
            "click",
            "Event",
            "value",
        ),
        'Tip: browser_act {"kind": "click", "ref": "e12"} clicks or types by a browser_snapshot '
        "ref.",
        "`.click()`, `dispatchEvent(new MouseEvent(…))`, `.value = …`",
    ),
    Redo(
        "browser_navigate",
        _pattern(
            # `location` itself, not `allocation`: the look-behind follows the literal start.
            r"location(?<![\w$]location)(?:\.href)?"
            + _ASSIGNED
            + r"|location(?<![\w$]location)\.(?:assign|replace|reload)\("
            r"|history\.(?:back|forward|go)\(",
            "location",
            "history",
        ),
        'Tip: browser_navigate {"url": "https://a.test/"} loads a page, waits, says what failed.',
        "`location.href = …`, `location.reload()`, `history.back()`",
    ),
    Redo(
        "browser_tabs",
        _only_title_or_url,
        "Tip: browser_tabs {} lists every tab's title and url.",
        "a script that only reads `document.title` or `location.href`",
    ),
    Redo(
        "browser_console_messages",
        _pattern(
            r"console(?<![\w$]console)\.(?:log|info|warn|error|debug)"
            + _ASSIGNED
            + r"|console(?<![\w$]console)"
            + _ASSIGNED
            + r"|addEventListener\(\s*['\"](?:error|unhandledrejection)['\"]|onerror"
            + _ASSIGNED,
            "console",
            "error",
            "rejection",
        ),
        "Tip: browser_console_messages {} reads what the page logged, uncaught errors too.",
        "`console.log = …`, `addEventListener('error', …)`, `onerror = …`",
    ),
    Redo(
        "browser_network_requests",
        _pattern(
            r"performance\.getEntries(?:ByType|ByName)?\(|PerformanceObserver\b"
            r"|XMLHttpRequest\.prototype\b|window\.fetch" + _ASSIGNED,
            "performance",
            "Performance",
            "XMLHttpRequest",
            "fetch",
        ),
        "Tip: browser_network_requests {} lists the page's requests, their status and failures.",
        "`performance.getEntries()`, `PerformanceObserver`, `window.fetch = …`, "
        "`XMLHttpRequest.prototype`",
    ),
    Redo(
        "browser_take_screenshot",
        _pattern(
            r"html2canvas\b|domtoimage\b|htmlToImage\b|\.toDataURL\(|getDisplayMedia\(",
            "html2canvas",
            "domtoimage",
            "htmlToImage",
            "toDataURL",
            "getDisplayMedia",
        ),
        'Tip: browser_take_screenshot {} shows the page as an image ({"full_page": true}: all).',
        "`html2canvas(…)`, `canvas.toDataURL()`, `getDisplayMedia()`",
    ),
)


def redo_hints(script: str) -> list[tuple[str, str]]:
    """The (tool, hint) of every row of :data:`REDOS` that the script matches."""
    scanned = script[:SCANNED_CHARS]
    return [(redo.tool, redo.hint) for redo in REDOS if redo.matches(scanned)]
