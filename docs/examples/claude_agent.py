"""A Claude agent in your own Chrome, through tabpilot (docs/claude.md).

Start `tabpilot serve`, turn AI Web Pilot on in the extension's popup, set ANTHROPIC_API_KEY, then:
    python docs/examples/claude_agent.py "What is the top story on news.ycombinator.com?"
"""

import os
import sys

import anthropic
from anthropic.tools import ToolError

from tabpilot.claude import Browser


def url_policy(context, url):  # the app's rule; tabpilot also applies it to pages' own navigations
    if url.startswith(("file:", "chrome:")):
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
