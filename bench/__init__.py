"""tabpilot's benchmark: `make bench` (or `python -m bench`) against one real Chromium.

It measures a `1+1` round trip through tabpilot and through Selenium in the same browser, each hop
of tabpilot's chain on its own, throughput under concurrent callers, large results, the start-up
of the daemon and of `tabpilot mcp`, and writes results.json, results.md and results.png.
"""
