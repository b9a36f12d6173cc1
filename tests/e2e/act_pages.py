"""Fixture pages for the tools that act on a page: browser_act, browser_navigate, browser_tabs.

Each entry is served by the e2e page server (conftest.py) at its path: (headers, body). A page's
headers may hold the pseudo-header ":status" to answer with another HTTP status.
"""

from __future__ import annotations

# A form as a new user meets one: labels, a select, a checkbox and a submit button. Submitting shows
# what the form sent in #received (as `name=value` pairs, one per line), without leaving the page.
FORM = """<!doctype html><title>sign up</title>
<form id="signup">
  <label>Name <input name="name"></label>
  <label>Email <input name="email" type="email"></label>
  <label>Colour <select name="colour">
    <option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option>
  </select></label>
  <label><input type="checkbox" name="agree"> Agree</label>
  <label>Notes <textarea name="notes"></textarea></label>
  <label>Read only <input name="fixed" value="fixed" readonly></label>
  <label>Code <input name="code" maxlength="4"></label>
  <label>Age <input name="age" type="number"></label>
  <button>Sign up</button>
</form>
<pre id="received"></pre>
<script>
  const form = document.getElementById("signup");
  window.submits = 0;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    window.submits++;
    const lines = [...new FormData(form)].map(([k, v]) => `${k}=${v}`);
    document.getElementById("received").textContent = lines.join("\\n");
  });
  window.changes = [];
  form.addEventListener("change", (e) => changes.push(e.target.name));
</script>"""

# A controlled input as React makes one (react-dom's inputValueTracking.js): the node gets an own
# `value` property whose setter records the value in a tracker; on `input`, the change handler runs
# only when the node's value differs from the tracker's (updateValueIfChanged), and afterwards the
# node is set back to the state (restoreControlledState). Text set with `el.value = …` from the
# page's own world never sticks; text set through the prototype's setter with an input event does.
REACT = """<!doctype html><title>controlled input</title>
<label>Search <input id="q"></label>
<p>State: <output id="state"></output></p>
<script>
  const node = document.getElementById("q");
  const descriptor = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
  let tracked = "" + node.value;
  Object.defineProperty(node, "value", {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() { return descriptor.get.call(this); },
    set(value) { tracked = "" + value; descriptor.set.call(this, value); },
  });
  let state = "";
  const render = () => {
    document.getElementById("state").textContent = state;
    if (node.value !== state) node.value = state;
  };
  node.addEventListener("input", () => {
    const actual = descriptor.get.call(node);
    if (actual !== tracked) {
      tracked = actual;
      state = actual; // onChange -> setState
    }
    render(); // restoreControlledState
  });
</script>"""

# A menu button that opens on pointerdown only, as Radix and many design systems do.
POINTER = """<!doctype html><title>pointer widget</title>
<div role="button" tabindex="0" id="trigger" aria-label="Open menu"
     style="display:inline-block;padding:8px;border:1px solid">Menu</div>
<ul role="menu" id="menu" hidden><li role="menuitem">Settings</li></ul>
<script>
  const trigger = document.getElementById("trigger");
  window.seen = [];
  for (const type of ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove",
      "mousemove", "pointerdown", "mousedown", "focus", "pointerup", "mouseup", "click"]) {
    trigger.addEventListener(type, (e) => seen.push(e.type + (e.composed ? "" : "!")));
  }
  trigger.addEventListener("pointerdown", (e) => {
    if (e.button === 0 && e.pointerType === "mouse") document.getElementById("menu").hidden = false;
  });
  trigger.addEventListener("mouseover", () => (window.hovered = true));
</script>"""

EDITABLE = """<!doctype html><title>editor</title>
<div contenteditable="true" role="textbox" aria-label="Notes" id="notes"
     style="min-height:40px;border:1px solid">old text</div>
<script>window.inputs = []; document.getElementById("notes")
  .addEventListener("input", (e) => inputs.push(e.inputType));</script>"""

# Buttons a click cannot reach: under a cookie banner, disabled, and one that can be hidden.
COVERED = """<!doctype html><title>blocked buttons</title>
<button id="buy">Buy now</button>
<button id="off" disabled>Disabled</button>
<button id="gone">Vanishing</button>
<div id="cookie-banner" class="overlay"
     style="position:fixed;top:0;left:0;width:100%;height:60px;background:#eee">Cookies!</div>
<script>window.clicks = 0;
  document.getElementById("buy").addEventListener("click", () => clicks++);
  document.getElementById("off").addEventListener("click", () => clicks++);</script>"""

LINKS = """<!doctype html><title>links</title>
<a id="next" href="/act/landed.html">Next page</a>
<a id="popup" href="/act/opened.html" target="_blank" role="button">Open report</a>
<button id="delete" onclick="document.getElementById('answer').textContent =
  confirm('Delete everything?') ? 'deleted' : 'kept'">Delete</button>
<p id="answer"></p>
<button id="hash" onclick="history.pushState({}, '', '#step2')">Step 2</button>
<form action="/act/landed.html"><label>Search <input name="q"></label></form>
<form action="/act/landed.html"><input type="hidden" name="from" value="button">
  <button>Go</button></form>"""

# Handlers that count only events the browser made (isTrusted), as some sites' bot checks do.
TRUSTED = """<!doctype html><title>trusted only</title>
<button id="go">Go</button>
<label>Code <input id="code"></label>
<p id="out">none</p>
<script>
  document.getElementById("go").addEventListener("click", (e) => {
    document.getElementById("out").textContent = e.isTrusted ? "trusted click" : "untrusted click";
  });
  document.getElementById("code").addEventListener("input", (e) => {
    if (e.isTrusted) document.getElementById("out").textContent = "trusted input " + e.target.value;
  });
  document.getElementById("code").addEventListener("keydown", (e) => {
    const out = document.getElementById("out");
    if (e.isTrusted && e.key === "Enter") out.textContent = "trusted enter";
  });
</script>"""

SCROLL = """<!doctype html><title>long page</title>
<div id="box" role="region" aria-label="Log" style="height:100px;overflow:auto;border:1px solid">
  <div style="height:1000px">log lines</div>
</div>
<div style="height:5000px">tall</div>
<button id="bottom">At the bottom</button>"""

# Focus order for Tab: two fields and a button, and a part inside a shadow root and an iframe.
KEYS = """<!doctype html><title>keys</title>
<label>First <input id="first"></label>
<label>Second <input id="second"></label>
<div id="host"></div>
<iframe id="frame" src="/act/frame.html" style="width:300px;height:80px"></iframe>
<script>
  const root = document.getElementById("host").attachShadow({ mode: "open" });
  root.innerHTML = '<button id="shadowed">Inside shadow</button>';
  window.shadowClicks = 0;
  root.getElementById("shadowed").addEventListener("click", () => shadowClicks++);
  window.keys = [];
  document.addEventListener("keydown", (e) => keys.push(e.key));
</script>"""

FRAME = """<!doctype html><title>frame</title>
<button id="framed" onclick="parent.frameClicks = (parent.frameClicks || 0) + 1">
In frame</button>"""

ACT_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/act/form.html": ({}, FORM),
    "/act/react.html": ({}, REACT),
    "/act/pointer.html": ({}, POINTER),
    "/act/editable.html": ({}, EDITABLE),
    "/act/covered.html": ({}, COVERED),
    "/act/links.html": ({}, LINKS),
    "/act/landed.html": ({}, "<!doctype html><title>landed</title><p>You arrived.</p>"),
    "/act/opened.html": ({}, "<!doctype html><title>report</title><p>The report.</p>"),
    "/act/missing.html": (
        {":status": "404"},
        "<!doctype html><title>not here</title><p>No such page.</p>",
    ),
    # An image from the url after "#", added while the page parses, holds its load event until the
    # image arrives: pointed at a server that never answers, the page never finishes loading.
    "/act/slow.html": (
        {},
        "<!doctype html><title>slow</title><script>const image = new Image();"
        "image.src = decodeURIComponent(location.hash.slice(1)); document.write('<p>loading');"
        "document.currentScript.after(image);</script>",
    ),
    # No content: Chrome stays on the page before, and the navigation ends aborted.
    "/act/nothing.html": ({":status": "204"}, ""),
    "/act/trusted.html": ({}, TRUSTED),
    "/act/scroll.html": ({}, SCROLL),
    "/act/keys.html": ({}, KEYS),
    "/act/frame.html": ({}, FRAME),
}
