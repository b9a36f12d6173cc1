"""Fixture pages for frames: a host page whose iframes come from another origin, given as `?o=`
(`http://localhost:<port>` is another site than `http://127.0.0.1:<port>`, so Chromium puts the
frame in a process of its own; the second server's `http://127.0.0.1:<port2>` is the same site on
another origin), nested, sandboxed and failing frames, and the page inside them.

Each entry is served by the e2e page servers at its path: (headers, body).
"""

from __future__ import annotations

# Writes an <iframe> per [title, path, attributes] in `frames`, each from the origin `?o=` names.
_HOST = """<!doctype html><title>{title}</title>
<h1>Host page</h1>
<p id="top-out">top idle</p>
<label>Name <input id="name"></label>
<div style="height:{gap}px"></div>
<style>iframe {{ width: 420px; height: 260px; border: 4px solid #888; padding: 6px; }}</style>
<script>
  const o = new URLSearchParams(location.search).get("o");
  for (const [title, path, attrs] of {frames}) {{
    document.write(`<iframe title="${{title}}" src="${{o}}${{path}}" ${{attrs}}></iframe>`);
  }}
</script>"""

# The page inside the frames: the same element ids in every frame; its heading says which it is.
# "Hit" is a plain blue block, for element screenshots.
FORM = """<!doctype html><title>Frame form</title>
<h2 id="where">Frame</h2>
<form id="f">
  <label>Name <input id="name"></label>
  <button id="go">Send</button>
</form>
<style>#hit { background: #1e90ff; color: #1e90ff; border: 0; width: 120px; height: 50px; }</style>
<button id="hit" type="button">Hit</button>
<button id="later" type="button">Later</button>
<p id="out">idle</p>
<script>
  const out = document.getElementById("out");
  document.getElementById("where").textContent = "Frame " + (location.search.slice(1) || "x");
  document.getElementById("f").addEventListener("submit", (event) => {
    event.preventDefault();
    out.textContent = "sent " + document.getElementById("name").value;
  });
  document.getElementById("hit").addEventListener("click", (event) => {
    out.textContent = "hit " + (event.isTrusted ? "trusted" : "untrusted");
  });
  document.getElementById("later").addEventListener("click", () => {
    setTimeout(() => {
      const p = document.createElement("p");
      p.id = "arrived";
      p.textContent = "Arrived late";
      document.body.append(p);
    }, 1500);
  });
</script>"""

# A frame of another origin holding a frame of the first origin again.
MIDDLE = """<!doctype html><title>Middle</title>
<h2>Middle frame</h2>
<script>
  const back = location.hostname === "localhost" ? "127.0.0.1" : "localhost";
  document.write(`<iframe title="Inner" src="http://${back}:${location.port}/frames/form.html?inner"
    style="width:400px;height:220px"></iframe>`);
</script>"""


def _host(title: str, frames: str, gap: int = 0) -> tuple[dict[str, str], str]:
    return {}, _HOST.format(title=title, frames=frames, gap=gap)


FRAME_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/frames/form.html": ({}, FORM),
    "/frames/middle.html": ({}, MIDDLE),
    "/frames/two.html": _host(
        "Two frames",
        '[["Frame A", "/frames/form.html?a", ""], ["Frame B", "/frames/form.html?b", ""]]',
    ),
    "/frames/nested.html": _host("Nested", '[["Middle", "/frames/middle.html", ""]]'),
    "/frames/sandboxed.html": _host(
        "Sandboxed",
        '[["Scripts", "/frames/form.html?s", "sandbox=\\"allow-scripts allow-forms\\""],'
        ' ["No scripts", "/frames/form.html?n", "sandbox"]]',
    ),
    "/frames/broken.html": (
        {},
        """<!doctype html><title>Broken</title><h1>Broken frame</h1>
<iframe title="Gone" src="http://127.0.0.1:9/"></iframe>""",
    ),
    "/frames/tall.html": _host("Tall", '[["Low", "/frames/form.html?low", ""]]', gap=1600),
}
