"""Fixture pages of the pointer: browser_mouse at a point, browser_act's clicks with a button, a
count or modifiers, a held key, and drags (HTML5 drag and drop, and SortableJS vendored from npm,
tests/fixtures/vendor/sortablejs/). Served by the e2e page server (conftest.py) at their paths."""

from __future__ import annotations

from pathlib import Path

_VENDOR = Path(__file__).resolve().parents[1] / "fixtures" / "vendor"
_JS = {"Content-Type": "text/javascript; charset=utf-8"}

# Fixed places (body margin 0): "Save" at (10..110, 10..50), the scrollable box at
# (200..400, 10..110), "Menu" at (10..110, 60..100), "Delete" (a confirm) at (10..110, 170..210).
# Every mouse event any of them hears is logged in `log`.
MOUSE = """<!doctype html><title>mouse</title>
<style>body { margin: 0; height: 3000px } #box { position: absolute; left: 200px; top: 10px;
width: 200px; height: 100px; overflow: auto } #box div { height: 1000px }
button { position: absolute; left: 10px; width: 100px; height: 40px; margin: 0 }</style>
<button id="save" style="top: 10px">Save</button>
<button id="menu" style="top: 60px">Menu</button>
<div id="box" aria-label="Feed" role="region"><div>long</div></div>
<label style="position: absolute; top: 130px; left: 10px">Name <input id="name"></label>
<button id="delete" style="top: 170px"
  onclick="answer.textContent = confirm('Delete everything?') ? 'deleted' : 'kept'">Delete</button>
<p id="answer" style="position: absolute; top: 220px"></p>
<script>
  window.log = [];
  const note = (e) => log.push([e.type, e.target.id, e.button, e.buttons, e.detail,
    e.ctrlKey, e.shiftKey, e.altKey, e.metaKey, e.isTrusted]);
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick",
    "auxclick", "contextmenu", "wheel"]) {
    for (const id of ["save", "menu", "box"]) {
      document.getElementById(id).addEventListener(type, note);
    }
  }
  document.getElementById("menu").addEventListener("contextmenu", (e) => e.preventDefault());
  window.keys = [];
  const name = document.getElementById("name");
  for (const type of ["keydown", "keyup"]) {
    name.addEventListener(type, (e) => keys.push([type, e.key, e.repeat, Math.round(e.timeStamp)]));
  }
</script>"""

_ITEMS = "".join(f'<li id="t{c}" {{attrs}}>Task {c}</li>' for c in "ABCDE")

# A list reordered by HTML5 drag and drop, as pages write it by hand: the dragged item goes before
# the item it is dropped on, or after it when it came from above. Items dropped on "Done" move
# there. Each item is 40 px high, the list starts at y 0.
NATIVE = (
    """<!doctype html><title>native</title>
<style>body { margin: 0 } ul { margin: 0; padding: 0; list-style: none; width: 300px }
li { height: 40px; line-height: 40px } #done { position: absolute; left: 400px; top: 0;
width: 200px; height: 200px; background: #eee }</style>
<ul id="todo" aria-label="Todo">"""
    + _ITEMS.replace("{attrs}", 'draggable="true"')
    + """</ul>
<ul id="done" aria-label="Done"></ul>
<script>
  window.events = [];
  let dragged = null;
  document.addEventListener("dragstart", (e) => {
    dragged = e.target; events.push("dragstart"); e.dataTransfer.setData("text/plain", e.target.id);
  });
  document.addEventListener("dragover", (e) => { if (e.target.closest("ul")) e.preventDefault(); });
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    events.push("drop:" + e.dataTransfer.getData("text/plain"));
    const onto = e.target.closest("li");
    const list = e.target.closest("ul");
    if (onto && onto !== dragged) {
      const at = (li) => [...onto.parentNode.children].indexOf(li);
      const down = dragged.parentNode === onto.parentNode && at(dragged) < at(onto);
      onto.parentNode.insertBefore(dragged, down ? onto.nextSibling : onto);
    } else if (!onto && list) list.appendChild(dragged);
  });
  document.addEventListener("dragend", () => events.push("dragend"));
</script>"""
)

# The same list sorted by SortableJS: `forceFallback` makes it use pointer events instead of HTML5
# drag and drop.
SORTABLE = (
    """<!doctype html><title>sortable</title>
<style>body { margin: 0 } ul { margin: 0; padding: 0; list-style: none; width: 300px }
li { height: 40px; line-height: 40px }</style>
<script src="/vendor/sortablejs/Sortable.min.js"></script>
<ul id="todo" aria-label="Todo">"""
    + _ITEMS.replace("{attrs}", 'tabindex="0"')
    + """</ul>
<script>
  window.ends = [];
  Sortable.create(document.getElementById("todo"), {
    forceFallback: location.search.includes("fallback"),
    onEnd: (e) => ends.push([e.oldIndex, e.newIndex]),
  });
</script>"""
)

DRAG_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/pointer/mouse.html": ({}, MOUSE),
    "/pointer/native.html": ({}, NATIVE),
    "/pointer/sortable.html": ({}, SORTABLE),
    "/vendor/sortablejs/Sortable.min.js": (
        _JS,
        (_VENDOR / "sortablejs" / "Sortable.min.js").read_text(),
    ),
}
