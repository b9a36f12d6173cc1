"""Fixture pages with real code editors, vendored from npm under tests/fixtures/vendor/ (each
folder's README.md says the package, its exact version and its files): CodeMirror 5, CodeMirror 6,
Monaco, and a notebook whose cells are CodeMirror 6 editors.

Each page keeps its editor where a test reads it back with the editor's own API (`window.cm`,
`window.view`, `window.editor`), and counts what its shortcuts ran in `window.runs`.
"""

from __future__ import annotations

from pathlib import Path

#: Served by the e2e page server at /vendor/<path> (conftest.py).
VENDOR_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "vendor"

_TYPES = {".js": "text/javascript", ".css": "text/css", ".ttf": "font/ttf"}


def vendor_file(path: str) -> tuple[dict[str, str], bytes] | None:
    """The headers and bytes of /vendor/<path>, or None when there is no such vendored file."""
    file = (VENDOR_DIR / path.removeprefix("/vendor/")).resolve()
    if not file.is_relative_to(VENDOR_DIR) or not file.is_file():
        return None
    return {"Content-Type": _TYPES.get(file.suffix, "application/octet-stream")}, file.read_bytes()


# A SQL console as many admin tools build one with CodeMirror 5: Ctrl-Enter runs the query.
CM5 = """<!doctype html><title>cm5 sql</title>
<link rel="stylesheet" href="/vendor/codemirror5/lib/codemirror.css">
<script src="/vendor/codemirror5/lib/codemirror.js"></script>
<script src="/vendor/codemirror5/mode/sql/sql.js"></script>
<h1>SQL console</h1>
<div id="host"></div>
<pre id="out"></pre>
<script>
  window.runs = [];
  const run = (cm) => {
    runs.push(cm.getValue());
    document.getElementById("out").textContent = "ran " + runs.length;
  };
  window.cm = CodeMirror(document.getElementById("host"), {
    value: "SELECT 1;", mode: "text/x-sql", lineNumbers: true, indentUnit: 2,
    extraKeys: { "Ctrl-Enter": run, "Cmd-Enter": run, "Shift-Enter": run },
  });
</script>"""

# CodeMirror 6 with what its basic setup brings for code: history, auto-closed brackets,
# indentation on input, Tab indenting (indentWithTab), and Mod-Enter running the query.
CM6 = """<!doctype html><title>cm6 sql</title>
<script src="/vendor/codemirror6/codemirror6.js"></script>
<h1>SQL editor</h1>
<div id="host"></div>
<pre id="out"></pre>
<script>
  const { EditorState, EditorView, keymap, defaultKeymap, history, historyKeymap, indentWithTab,
          closeBrackets, closeBracketsKeymap, indentOnInput, lineNumbers, sql } = CM6;
  window.runs = [];
  const run = (view) => {
    runs.push(view.state.doc.toString());
    document.getElementById("out").textContent = "ran " + runs.length;
    return true;
  };
  window.view = new EditorView({
    parent: document.getElementById("host"),
    state: EditorState.create({
      doc: "SELECT 1;",
      extensions: [
        lineNumbers(), history(), closeBrackets(), indentOnInput(), sql(),
        keymap.of([{ key: "Mod-Enter", run }, ...closeBracketsKeymap, ...defaultKeymap,
                   ...historyKeymap, indentWithTab]),
      ],
    }),
  });
</script>"""

# Monaco with a SQL model; Ctrl/Cmd+Enter runs it, as in Azure Data Studio's query editor.
MONACO = """<!doctype html><title>monaco sql</title>
<h1>Query</h1>
<div id="host" style="width:600px;height:240px;border:1px solid #ccc"></div>
<pre id="out"></pre>
<script src="/vendor/monaco/min/vs/loader.js"></script>
<script>
  window.runs = [];
  require.config({ paths: { vs: "/vendor/monaco/min/vs" } });
  require(["vs/editor/editor.main"], () => {
    window.editor = monaco.editor.create(document.getElementById("host"), {
      value: "SELECT 1;", language: "sql", minimap: { enabled: false }, automaticLayout: false,
    });
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => {
      runs.push(editor.getValue());
      document.getElementById("out").textContent = "ran " + runs.length;
    });
    window.ready = true;
  });
</script>"""

# A notebook as Jupyter's is built: each cell a CodeMirror 6 editor whose keymap runs the cell on
# Shift-Enter, writes the output under it and moves the focus to the next cell.
NOTEBOOK = """<!doctype html><title>notebook</title>
<script src="/vendor/codemirror6/codemirror6.js"></script>
<h1>Notebook</h1>
<div id="cells"></div>
<script>
  const { EditorState, EditorView, keymap, defaultKeymap, history, historyKeymap } = CM6;
  window.runs = [];
  window.cells = [];
  function addCell(doc) {
    const box = document.createElement("section");
    box.className = "cell";
    const out = document.createElement("pre");
    out.className = "output";
    document.getElementById("cells").append(box);
    const index = cells.length;
    const view = new EditorView({
      parent: box,
      state: EditorState.create({
        doc,
        extensions: [history(), keymap.of([
          { key: "Shift-Enter", run: (v) => {
              const code = v.state.doc.toString();
              runs.push(code);
              out.textContent = `[${runs.length}] ` + code.split("").reverse().join("");
              (cells[index + 1] ?? addCell("")).focus();
              return true;
          } },
          ...defaultKeymap, ...historyKeymap,
        ])],
      }),
    });
    box.append(out);
    cells.push(view);
    return view;
  }
  addCell("print('hi')");
</script>"""

# An app that reads only trusted input, as some do to tell a person from a script: its cell editor
# (CodeMirror 6) never hears an untrusted key, and its notes field puts back what untrusted input
# changed.
TRUSTED_ONLY = """<!doctype html><title>trusted only</title>
<script src="/vendor/codemirror6/codemirror6.js"></script>
<div id="host"></div>
<label>Notes <textarea id="notes"></textarea></label>
<script>
  const { EditorState, EditorView, keymap, defaultKeymap } = CM6;
  window.runs = [];
  const host = document.getElementById("host");
  for (const type of ["keydown", "keypress", "keyup"]) {
    host.addEventListener(type, (e) => { if (!e.isTrusted) e.stopImmediatePropagation(); }, true);
  }
  window.view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc: "print(1)",
      extensions: [EditorView.contentAttributes.of({ "aria-label": "Cell" }), keymap.of([
        { key: "Shift-Enter", run: (v) => (runs.push(v.state.doc.toString()), true) },
        ...defaultKeymap,
      ])],
    }),
  });
  const notes = document.getElementById("notes");
  let kept = "";
  notes.addEventListener("input", (e) => {
    if (e.isTrusted) kept = notes.value;
    else notes.value = kept;
  });
</script>"""

EDITOR_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/editors/cm5.html": ({}, CM5),
    "/editors/cm6.html": ({}, CM6),
    "/editors/monaco.html": ({}, MONACO),
    "/editors/notebook.html": ({}, NOTEBOOK),
    "/editors/trusted-only.html": ({}, TRUSTED_ONLY),
}
