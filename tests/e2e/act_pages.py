"""Fixture pages for the tools that act on a page: browser_act, browser_navigate, browser_tabs.

Each entry is served by the e2e page server (conftest.py) at its path: (headers, body).
"""

from __future__ import annotations

ACT_PAGES: dict[str, tuple[dict[str, str], str]] = {}
