"""The fixture page of text a person cannot see (content/seen.js): each way a page hides text from
the person while the DOM still holds it, the screen-reader labels of visible controls, and the
normal patterns that must not be marked.

Each hidden text starts with "Hidden"; each text a person sees starts with "Shown".
"""

from __future__ import annotations

#: The hidden texts, one per case, in page order. A shown paragraph stands between each two, so
#: that no run of them is written as one template (snapshot-format.js).
HIDDEN = (
    "Hidden off-screen",
    "Hidden clipped",
    "Hidden zero font",
    "Hidden opacity",
    "Hidden in an opacity 0 parent",
    "Hidden transparent colour",
    "Hidden white on white",
    "Hidden near white on white",
    "Hidden dark on dark",
)

#: The texts a person sees, and which must never be marked.
SHOWN = (
    "Shown heading",
    "Shown over an image",
    "Shown white on a gradient",
    "Shown in a scrolled box",
    "Shown grey",
    "Shown on dark",
)

_SR_ONLY = (
    "position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0"
)

HIDDEN_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/hidden/text.html": (
        {},
        f"""<!doctype html><title>hidden text</title>
<style>.sr-only {{ {_SR_ONLY} }}</style>
<h1>Shown heading</h1>
<p style="position:absolute;left:-9999px">Hidden off-screen</p>
<p>Shown between 1</p>
<p style="{_SR_ONLY}">Hidden clipped</p>
<p>Shown between 2</p>
<p style="font-size:0">Hidden zero font</p>
<p>Shown between 3</p>
<p style="opacity:0">Hidden opacity</p>
<p>Shown between 4</p>
<div style="opacity:0"><p>Hidden in an opacity 0 parent</p></div>
<p>Shown between 5</p>
<p style="color:transparent">Hidden transparent colour</p>
<p>Shown between 6</p>
<p style="color:#fff">Hidden white on white</p>
<p>Shown between 7</p>
<p style="color:#fcfcfc">Hidden near white on white</p>
<p>Shown between 8</p>
<div style="background:#222"><p style="color:#232323">Hidden dark on dark</p>
  <p style="color:#fff">Shown on dark</p></div>
<p>Shown between 9</p>
<div style="background:#fff url(/nothing.png)">
  <p style="color:#fff">Shown over an image</p></div>
<div style="background:#fff linear-gradient(#000, #333)">
  <p style="color:#fff">Shown white on a gradient</p></div>
<div id="box" style="height:60px;overflow:auto"><div style="height:400px"></div>
  <p>Shown in a scrolled box</p></div>
<p style="color:#777">Shown grey</p>
<a href="/docs" target="_blank">Docs<span class="sr-only"> (opens in a new tab)</span></a>
<button type="button" id="close"><span aria-hidden="true">&times;</span>
  <span class="sr-only">Close dialog</span></button>
<span id="label-hidden" style="position:absolute;left:-9999px">Hidden label</span>
<button type="button" aria-labelledby="label-hidden">Shown buy</button>
<button type="button" id="ghost" style="opacity:0"
  onclick="this.dataset.clicked='yes'">Ghost</button>
<script>document.getElementById("box").scrollTop = 400;</script>""",
    ),
}
