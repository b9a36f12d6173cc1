// browser_act in code editors (CodeMirror 5 and 6, Monaco, any element with an EditContext) on the
// DOM route. A classic script of the content script's isolated world, loaded after act-keys.js and
// before act.js, which uses it; snapshot.js and refs.js name an editor's textbox with it.
//
// These editors do not keep their text in the element that takes the keys: CodeMirror 5 and Monaco
// read a hidden <textarea> that their own rendered lines cover; CodeMirror 6 in Chrome 126 and later
// reads an EditContext (its `textupdate` events), not its contenteditable's DOM. So the editor's
// text is read from what it renders, its select-all is its own key binding, and text goes in as the
// browser would give it: through the textarea's value and an input event, or a textupdate event.
// Whether the editor took it is checked afterwards: an app that reads only trusted input shows no
// change, and the act says so (`needsTrusted`) instead of claiming what did not happen; the worker
// then uses trusted input where it may (page-act.js).
(() => {
  "use strict";

  const g = globalThis;
  const { parseKey } = g.__tabpilotActCommon;
  const { focused, focusOn, isTextField, fire, insertAtCaret, press } = g.__tabpilotActKeys;

  const MAC = /Mac|iPhone|iPad/.test(g.navigator?.platform ?? "");
  // The key that selects all in an editor here: Command on a Mac, Control elsewhere.
  const SELECT_ALL = MAC ? "Meta+a" : "Control+a";

  // {kind, root, input} of the code editor that `el` is, or is part of; null for anything else.
  // `input` is the element that takes the editor's keys and text. A text field of its own inside an
  // editor (Monaco's find box) is not the editor.
  function editorOf(el) {
    if (!el || el.nodeType !== 1) return null;
    const found = libraryEditor(el) ?? (el.editContext ? { kind: "editcontext", root: el, input: el } : null);
    if (!found?.input || (isTextField(el) && el !== found.input)) return null;
    return found;
  }

  function libraryEditor(el) {
    let root = el.closest(".CodeMirror");
    if (root) return { kind: "codemirror5", root, input: root.querySelector("textarea") ?? root.querySelector(".CodeMirror-code[contenteditable]") };
    root = el.closest(".cm-editor");
    if (root) return { kind: "codemirror6", root, input: root.querySelector(".cm-content") };
    root = el.closest(".monaco-editor");
    if (root) return { kind: "monaco", root, input: root.querySelector("textarea.inputarea, .native-edit-context") };
    return null;
  }

  // A name for an editor's textbox that its page left unnamed (CodeMirror's are, by default).
  const nameOf = (el) => (editorOf(el)?.input === el ? "Code editor" : "");

  // The editor's text as it renders it: every line, when the document is short enough for the
  // editor to render whole (all three render only the lines in and near the view).
  function textOf(editor) {
    const { kind, root, input } = editor;
    const lines = (selector, clean) => [...root.querySelectorAll(selector)].map((line) => clean(line.textContent)).join("\n");
    if (kind === "codemirror5") return lines(".CodeMirror-code pre.CodeMirror-line", (t) => t.replace(/\u200b/g, ""));
    if (kind === "codemirror6") return lines(".cm-content > .cm-line", (t) => t);
    if (kind === "monaco") {
      // Monaco reuses its line elements out of order; their `top` says where each is.
      const rows = [...root.querySelectorAll(".view-lines > .view-line")].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return rows.map((row) => row.textContent.replace(/\u00a0/g, " ")).join("\n");
    }
    return input.editContext?.text ?? input.textContent;
  }

  // Monaco draws on the next animation frame; the others while the event is handled. Capped, for a
  // tab whose frames are throttled.
  const FRAMES = 8;
  const rendered = () =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, 100);
      requestAnimationFrame(() => setTimeout(() => (clearTimeout(timer), resolve()), 0));
    });

  // What changes while `action(reached)` runs and the editor draws it: whether the page took its
  // key events (cancelled one, or changed the DOM or the focus), whether they got to the element
  // they were sent to (`reached()`, for act-keys.js press), and the editor's text before and after.
  async function watched(editor, action, until = (state) => state.taken) {
    const doc = editor.root.ownerDocument;
    // Seen first, on the way down (an editor may stop the key's propagation); read once handled.
    const keys = [];
    const onKey = (event) => keys.push(event);
    const view = doc.defaultView;
    const observer = new MutationObserver(() => {});
    observer.observe(doc, { subtree: true, childList: true, characterData: true, attributes: true });
    for (const type of ["keydown", "keypress"]) view.addEventListener(type, onKey, true);
    const before = textOf(editor);
    const focusBefore = focused();
    let sentTo = null;
    let arrived = false;
    const onArrive = () => (arrived = true);
    const reached = () => arrived;
    const at = (el) => {
      sentTo = el;
      el.addEventListener("keydown", onArrive);
      return el;
    };
    try {
      action(at, reached);
    } finally {
      sentTo?.removeEventListener("keydown", onArrive);
      for (const type of ["keydown", "keypress"]) view.removeEventListener(type, onKey, true);
    }
    const prevented = keys.some((event) => event.defaultPrevented);
    // Keys the page stopped short of their element, uncancelled: it ignored them.
    const ignored = sentTo !== null && !arrived && !prevented;
    let mutated = false;
    let state;
    // A busy page draws late: what did not show yet is waited for a few frames more (the rare
    // case, where the answer would otherwise be that the page ignored the input).
    for (let frame = 0; frame < FRAMES && !(state && until(state)); frame++) {
      await rendered();
      mutated ||= observer.takeRecords().some((record) => !editor.root.contains(record.target) || record.type !== "attributes");
      const after = textOf(editor);
      state = { prevented, before, after, taken: !ignored && (prevented || mutated || before !== after || focused() !== focusBefore) };
      if (ignored) break;
    }
    observer.disconnect();
    return state;
  }

  // The editor's own select-all, through its key binding.
  function selectAll(editor, at, reached) {
    focusOn(editor.input, { preventScroll: true });
    press(at(editor.input), parseKey(SELECT_ALL), reached);
  }

  // Text as one insertion over the editor's selection, as the browser gives an editor typed or
  // pasted text: one insertion keeps indentation and brackets as they are, where typing one key at
  // a time would let the editor indent lines and close brackets itself.
  function insert(editor, text) {
    const { input } = editor;
    const context = input.editContext;
    if (context && typeof g.TextUpdateEvent === "function") {
      const start = Math.min(context.selectionStart, context.selectionEnd);
      const end = Math.max(context.selectionStart, context.selectionEnd);
      const caret = start + text.length;
      // The browser updates the EditContext before it tells the page (EditContext API, "textupdate").
      context.updateText(start, end, text);
      context.updateSelection(caret, caret);
      const init = { updateRangeStart: start, updateRangeEnd: end, text, selectionStart: caret, selectionEnd: caret };
      context.dispatchEvent(new g.TextUpdateEvent("textupdate", init));
      return;
    }
    // A textarea's editor (CodeMirror 5, Monaco) takes pasted text as it is, where typed text with
    // line breaks may be indented again (Monaco); one that does not take a paste reads the input.
    if (input.tagName === "TEXTAREA" && typeof g.DataTransfer === "function") {
      const data = new g.DataTransfer();
      data.setData("text/plain", text);
      if (!fire(input, ClipboardEvent, "paste", { clipboardData: data })) return;
    }
    insertAtCaret(input, text);
  }

  const quote = (text) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

  // browser_act type: the editor's whole text replaced by `text`. Resolves to
  // {shows} (what the editor holds when it differs from `text`, else null) or {needsTrusted}.
  async function type(editor, text, it) {
    focusOn(editor.input, { preventScroll: true });
    await rendered();
    const selected = await watched(editor, (at, reached) => selectAll(editor, at, reached));
    const wasText = selected.after;
    if (!selected.taken && wasText !== "") {
      return { needsTrusted: `${it} did not take ${SELECT_ALL} (select all) from the DOM route: the page reads only trusted keys` };
    }
    const typed = await watched(editor, () => insert(editor, text), (state) => state.after !== state.before);
    if (typed.after === text) return { shows: null };
    if (typed.after === wasText) {
      return { needsTrusted: `${it} did not take the text typed through the DOM route: it still holds ${quote(typed.after)}` };
    }
    return { shows: typed.after };
  }

  // browser_act press in an editor: the key's events at the editor's input. Resolves to {} or
  // {needsTrusted} when nothing in the page took the key.
  async function pressIn(editor, key, it) {
    const { ctrlKey, metaKey, altKey } = key.modifiers;
    const target = editor.root.contains(focused()) ? focused() : editor.input;
    const result = await watched(editor, (at, reached) => press(at(target), key, reached));
    if (result.taken) return {};
    // Control+a and Meta+a both mean select all to an agent; the editor binds one of them.
    if ((ctrlKey || metaKey) && !altKey && key.key.toLowerCase() === "a" && key.name !== SELECT_ALL) {
      const selected = await watched(editor, (at, reached) => selectAll(editor, at, reached));
      if (selected.taken) return {};
    }
    return { needsTrusted: `Nothing in ${it} took ${key.name} from the DOM route (no handler cancelled it, nothing changed): the page reads only trusted keys` };
  }

  g.__tabpilotActEditors = Object.freeze({ editorOf, nameOf, textOf, rendered, type, pressIn, SELECT_ALL });
})();
