"""Fixture pages for the tools that read a page: snapshot, read, execute_javascript with a ref.

Each entry is served by the e2e page server (conftest.py) at its path: (headers, body).
"""

from __future__ import annotations

TOOL_PAGES: dict[str, tuple[dict[str, str], str]] = {}
