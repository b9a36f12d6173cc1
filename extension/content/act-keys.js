// browser_act's typing and keys on the DOM route, and what acting needs to know of elements (which
// take text, which are disabled, where the focus is). A classic script of the content script's
// isolated world, loaded before act.js, which uses it.
//
// The isolated world has its own prototypes, which no page script can reach: the value setter
// taken from them bypasses what a page defines on an element (React's value tracker), as typing
// does, so that controlled inputs keep the text.
(() => {
  "use strict";

  const g = globalThis;
  const { fail } = g.__tabpilotActCommon;
  const setterOf = (name) => (typeof g[name] === "function" ? Object.getOwnPropertyDescriptor(g[name].prototype, "value").set : null);
  const setInputValue = setterOf("HTMLInputElement");
  const setTextareaValue = setterOf("HTMLTextAreaElement");

  // Input types whose value is text a person types.
  const TEXT_TYPES = new Set(["text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "time", "week", "color"]);
  const SELECTION_TYPES = new Set(["text", "search", "url", "tel", "password"]);
  const FOCUSABLE = "a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable]:not([contenteditable='false'])";

  // The focused element, through open shadow roots and same-origin iframes.
  function focused() {
    let el = document.activeElement;
    for (;;) {
      if (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      else if (el?.tagName === "IFRAME" && sameOrigin(el)?.activeElement) el = el.contentDocument.activeElement;
      else return el;
    }
  }
  function sameOrigin(frame) {
    try {
      return frame.contentDocument;
    } catch {
      return null;
    }
  }

  // Focuses el as a click or Tab does. In a page whose window does not have the system's focus
  // (its person is in another window or app), Chrome moves the focus but holds back the focus
  // and blur events until the window is focused again; menus that open on focus and fields that
  // check themselves on blur wait for them. So the ones Chrome held back are fired here, in the
  // order a focused window gets them.
  function focusOn(el, options) {
    const before = focused();
    if (before === el) return void el.focus(options); // no events, as for a focused window
    let focusSeen = false;
    let blurSeen = before == null || before === el.ownerDocument.body;
    const sawFocus = () => (focusSeen = true);
    const sawBlur = () => (blurSeen = true);
    el.addEventListener("focus", sawFocus, true);
    if (!blurSeen) before.addEventListener("blur", sawBlur, true);
    try {
      el.focus(options);
    } finally {
      el.removeEventListener("focus", sawFocus, true);
      if (before) before.removeEventListener("blur", sawBlur, true);
    }
    // The events came (a page's own listener may stop them short of el), or el takes no focus.
    if (focusSeen || el.ownerDocument.hasFocus() || focused() !== el) return;
    const focusInit = (relatedTarget) => ({ cancelable: false, relatedTarget });
    if (!blurSeen) {
      fire(before, FocusEvent, "blur", { ...focusInit(el), bubbles: false });
      fire(before, FocusEvent, "focusout", focusInit(el));
    }
    fire(el, FocusEvent, "focus", { ...focusInit(blurSeen ? null : before), bubbles: false });
    fire(el, FocusEvent, "focusin", focusInit(blurSeen ? null : before));
  }

  const isInput = (el) => el?.tagName === "INPUT";
  const isTextField = (el) => (isInput(el) && TEXT_TYPES.has(el.type)) || el?.tagName === "TEXTAREA";
  const isEditable = (el) => isTextField(el) || el?.isContentEditable === true;
  const isDisabled = (el) => el.matches?.(":disabled") || el.closest?.("[aria-disabled='true']") !== null;
  const parentOf = (node) => node.parentNode ?? node.host ?? null; // through shadow roots
  const viewOf = (el) => el.ownerDocument.defaultView;

  function fire(target, Type, type, init) {
    return target.dispatchEvent(new Type(type, { bubbles: true, cancelable: true, composed: true, view: viewOf(target), ...init }));
  }

  function insertEvents(el, inputType, data) {
    if (!fire(el, InputEvent, "beforeinput", { inputType, data })) return false;
    return true;
  }

  // Replaces a text field's value as typing does: through the isolated world's own setter, with
  // the events a framework listens for.
  function setValue(el, value, inputType, data) {
    if (!insertEvents(el, inputType, data)) return false;
    (el.tagName === "TEXTAREA" ? setTextareaValue : setInputValue).call(el, value);
    fire(el, InputEvent, "input", { inputType, data, cancelable: false });
    return true;
  }

  function assertEditable(el, what) {
    if (!isEditable(el)) {
      fail("element_not_interactable", `${what} does not take typed text; type into a textbox, a text area or an editable element.`, { reason: "not_editable" });
    }
    if (el.readOnly) fail("element_not_interactable", `${what} is read-only.`, { reason: "not_editable" });
  }

  function typeInto(el, text, what) {
    assertEditable(el, what);
    focusOn(el, { preventScroll: true });
    if (el.isContentEditable) {
      // execCommand edits as the browser does, with its own (trusted) beforeinput and input events.
      const selection = el.ownerDocument.getSelection();
      selection.selectAllChildren(el);
      if (!el.ownerDocument.execCommand("insertText", false, text)) {
        el.textContent = text;
        fire(el, InputEvent, "input", { inputType: "insertText", data: text, cancelable: false });
      }
      return;
    }
    // A person cannot type past maxlength; the setter alone would let the text through.
    const chars = [...text];
    const typed = el.maxLength >= 0 && chars.length > el.maxLength ? chars.slice(0, el.maxLength).join("") : text;
    if (setValue(el, typed, "insertText", typed)) fire(el, Event, "change", { composed: false, cancelable: false });
  }

  // Inserts a key's text where the caret is (or over the selection) in a text field.
  function insertAtCaret(el, text) {
    if (el.isContentEditable) {
      el.ownerDocument.execCommand(text === "\n" ? "insertLineBreak" : "insertText", false, text);
      return;
    }
    const value = el.value;
    const selectable = el.tagName === "TEXTAREA" || SELECTION_TYPES.has(el.type);
    const start = selectable ? el.selectionStart : value.length;
    const end = selectable ? el.selectionEnd : value.length;
    const inputType = text === "\n" ? "insertLineBreak" : "insertText";
    if (setValue(el, value.slice(0, start) + text + value.slice(end), inputType, text === "\n" ? null : text) && selectable) {
      el.setSelectionRange(start + text.length, start + text.length);
    }
  }

  function deleteAtCaret(el, forward) {
    const value = el.value;
    const selectable = el.tagName === "TEXTAREA" || SELECTION_TYPES.has(el.type);
    let start = selectable ? el.selectionStart : value.length;
    let end = selectable ? el.selectionEnd : value.length;
    if (start === end) {
      if (forward) end = Math.min(value.length, end + 1);
      else start = Math.max(0, start - 1);
    }
    if (setValue(el, value.slice(0, start) + value.slice(end), forward ? "deleteContentForward" : "deleteContentBackward", null) && selectable) {
      el.setSelectionRange(start, start);
    }
  }

  // Implicit submission (HTML §4.10.21.2): Enter in a form's field clicks its default button, or
  // submits a form that has none.
  function submitFrom(el) {
    const form = el.form;
    if (!form) return;
    const button = [...form.elements].find((e) => e.matches("button[type=submit], button:not([type]), input[type=submit], input[type=image]"));
    if (button) {
      if (!isDisabled(button)) button.click();
    } else {
      form.requestSubmit();
    }
  }

  // Tab order: positive tabindex first, then document order; into open shadow roots and
  // same-origin iframes.
  function tabbables(doc) {
    const found = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.matches(FOCUSABLE) && el.tabIndex >= 0 && !isDisabled(el) && el.checkVisibility?.({ visibilityProperty: true }) !== false) {
          if (el.tagName !== "IFRAME") found.push(el);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
        if (el.tagName === "IFRAME" && sameOrigin(el)?.body) walk(el.contentDocument);
      }
    };
    walk(doc);
    const positive = found.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
    return [...positive, ...found.filter((el) => el.tabIndex === 0)];
  }

  function moveFocus(from, back) {
    const order = tabbables(document);
    if (order.length === 0) return;
    const at = order.indexOf(from);
    const next = at < 0 ? (back ? order.at(-1) : order[0]) : order[(at + (back ? -1 : 1) + order.length) % order.length];
    focusOn(next);
  }

  const CLICKS_ON_ENTER = (el) => el.matches("a[href], area[href], button, input[type=submit], input[type=button], input[type=reset], input[type=image], summary");
  const CLICKS_ON_SPACE = (el) => el.matches("button, input[type=checkbox], input[type=radio], input[type=submit], input[type=button], input[type=reset], summary, [role=button], [role=checkbox], [role=switch]");

  const keyInit = (key, repeat) => ({ key: key.key, code: key.code, keyCode: key.keyCode, which: key.keyCode, repeat, ...key.modifiers });

  // keydown, keypress (for keys that type), the browser's own action where one is emulated, keyup.
  function press(el, key) {
    keyUp(el, key, keyDown(el, key));
  }

  // A key held for ms: its keydown, the repeats an OS sends while it is down (each with its
  // default action, so a held letter types again), its keyup. Resolves to the number of repeats.
  async function hold(el, key, ms) {
    const start = performance.now();
    const wait = (at) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - (performance.now() - start))));
    const clickOnUp = keyDown(el, key);
    const times = g.__tabpilotActCommon.repeatTimes(ms);
    for (const at of times) {
      await wait(at);
      keyDown(focused() ?? el, key, true);
    }
    await wait(ms);
    keyUp(focused() ?? el, key, clickOnUp);
    return times.length;
  }

  function keyUp(el, key, clickOnUp) {
    fire(el, KeyboardEvent, "keyup", keyInit(key, false));
    if (clickOnUp) el.click();
  }

  // Returns whether the keyup is to click (Space on a button).
  function keyDown(el, key, repeat = false) {
    const init = keyInit(key, repeat);
    const down = fire(el, KeyboardEvent, "keydown", init);
    let clickOnUp = false;
    if (down) {
      const typing = key.text !== "" && fire(el, KeyboardEvent, "keypress", { ...init, charCode: key.text.charCodeAt(0), keyCode: key.text.charCodeAt(0) });
      const { ctrlKey, metaKey, altKey, shiftKey } = key.modifiers;
      const editable = isEditable(el) && !el.readOnly && !isDisabled(el);
      if (key.key === "Tab" && !ctrlKey && !metaKey && !altKey) moveFocus(el, shiftKey);
      else if (key.key === "Enter" && typing) {
        if (isInput(el)) submitFrom(el);
        else if (el.tagName === "TEXTAREA" || el.isContentEditable) insertAtCaret(el, "\n");
        else if (CLICKS_ON_ENTER(el)) el.click();
      } else if (key.key === " " && typing && CLICKS_ON_SPACE(el) && !editable) clickOnUp = true;
      else if (typing && editable) insertAtCaret(el, key.text);
      else if ((key.key === "Backspace" || key.key === "Delete") && editable && !el.isContentEditable) deleteAtCaret(el, key.key === "Delete");
      else if (key.key.toLowerCase() === "a" && (ctrlKey || metaKey) && !altKey) selectAll(el);
    }
    return clickOnUp;
  }

  function selectAll(el) {
    if (isTextField(el)) el.select();
    else el.ownerDocument.getSelection().selectAllChildren(el.isContentEditable ? el : el.ownerDocument.body);
  }

  g.__tabpilotActKeys = Object.freeze({ focused, focusOn, isInput, isDisabled, isEditable, parentOf, viewOf, fire, setValue, typeInto, assertEditable, press, hold, selectAll, FOCUSABLE, TEXT_TYPES });
})();
