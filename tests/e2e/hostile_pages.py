"""Fixture pages that try to make browser_act report what did not happen: an element moved over
the target on hover, a field that hands its focus on, a closed shadow root, links that open
nothing, a label that says one thing while the button shows another. Served like act_pages.py."""

from __future__ import annotations

# Hovering "Safe" puts "Danger" over it, where a trusted press would land.
SWAP = """<!doctype html><title>swap</title>
<div style="position:relative;width:220px;height:60px">
  <button id="safe" style="position:absolute;inset:0">Safe</button>
  <button id="danger" style="position:absolute;inset:0;display:none">Danger</button>
</div>
<p id="out"></p>
<script>
  const out = document.getElementById("out");
  const danger = document.getElementById("danger");
  const safe = document.getElementById("safe");
  safe.addEventListener("mouseover", () => (danger.style.display = "block"));
  safe.addEventListener("click", () => (out.textContent += "safe "));
  danger.addEventListener("click", () => (out.textContent += "danger "));
</script>"""

# "Name" gives its focus away to "Other" as soon as it gets it.
FOCUS_STEAL = """<!doctype html><title>focus thief</title>
<label>Name <input id="name"></label>
<label>Other <input id="other"></label>
<script>
  const other = document.getElementById("other");
  document.getElementById("name").addEventListener("focus", () => other.focus());
</script>"""

# A custom element whose controls live in a closed shadow root.
CLOSED = """<!doctype html><title>closed</title>
<x-closed></x-closed>
<p id="out"></p>
<script>
  customElements.define("x-closed", class extends HTMLElement {
    constructor() {
      super();
      const root = this.attachShadow({ mode: "closed" });
      root.innerHTML = '<button id="b">Inside</button> ' +
        '<label><input type="checkbox" id="c"> Closed box</label>';
      const out = document.getElementById("out");
      root.getElementById("b").addEventListener("click", () => (out.textContent += "inside "));
      window.closedBox = root.getElementById("c");
    }
  });
</script>"""

# Links whose click opens no page, and a blob: link of the page's own origin, which does.
LINKS = """<!doctype html><title>dead links</title>
1. <a id="js" href="javascript:void(document.getElementById('out').textContent += 'ran ')">Run</a>
2. <a id="file" href="file:///etc/hostname">Local file</a>
3. <a id="chrome" href="chrome://settings">Settings</a>
4. <a id="data" href="data:text/html,%3Ctitle%3Edata%3C/title%3Edata">Data page</a>
5. <a id="blob">Blob page</a>
6. <a id="data-tab" target="_blank" href="data:text/html,tab">Data tab</a>
<p id="out"></p>
<script>
  const blob = new Blob(["<title>blob page</title><p>from a blob"], { type: "text/html" });
  document.getElementById("blob").href = URL.createObjectURL(blob);
</script>"""

# Accessible names that say something other than the text on screen, and ones that do not.
NAMES = """<!doctype html><title>names</title>
<button id="delete" aria-label="Save draft">Delete account</button>
<button aria-label="Open menu">Menu</button>
<button aria-label="Close">\u00d7</button>
<button aria-label="Go">  go  </button>
<a href="#top" aria-label="Home">Leave and pay    $500 now to get your account back,
  in full, by Friday at noon</a>
<input placeholder="Search products">
<textarea placeholder="Your message"></textarea>
<label>Labelled <input placeholder="ignored"></label>
<p id="out"></p>
<script>
  const out = document.getElementById("out");
  document.getElementById("delete").addEventListener("click", () => (out.textContent = "deleted"));
</script>"""

# A page's own focus(): fires its focus event only where the page has the focus.
FOCUS = """<!doctype html><title>focus</title>
<button onclick="document.getElementById('f').focus()">Focus it</button>
<input id="f" aria-label="Field" onfocus="document.getElementById('log').textContent += 'focus '">
<p id="log"></p>"""

HOSTILE_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/hostile/swap.html": ({}, SWAP),
    "/hostile/focus-steal.html": ({}, FOCUS_STEAL),
    "/hostile/closed.html": ({}, CLOSED),
    "/hostile/links.html": ({}, LINKS),
    "/hostile/names.html": ({}, NAMES),
    "/hostile/focus.html": ({}, FOCUS),
}
