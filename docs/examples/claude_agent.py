"""A Claude agent in your own Chrome, under your AI Web Pilot switch (docs/claude.md)."""

import os
import sys

import anthropic
from anthropic.tools import ToolError

from tabpilot.claude import Browser


def url_policy(context, url):  # yours; tabpilot also applies it to navigations pages start
    if any(site in url for site in ("mail.google.com", "bank")):
        raise ToolError(f"{url} is off limits")


client = anthropic.Anthropic()  # ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set)
task = " ".join(sys.argv[1:]) or "What is the title of the page in my active tab?"
with Browser(url_policy=url_policy) as browser:  # the daemon of TABPILOT_PORT, default 7878
    runner = client.beta.messages.tool_runner(
        model=os.environ.get("CLAUDE_MODEL", "claude-sonnet-5-5"),
        max_tokens=4096,
        tools=[browser],
        messages=[{"role": "user", "content": task}],
    )
    for message in runner:  # one message per turn; the runner answers each browser call
        for block in message.content:
            if block.type == "text":
                print(block.text)
