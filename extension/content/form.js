// browser_fill_form's page side, in the content script's isolated world: every field of one call
// filled in one message, then the submit clicked (docs/protocol.md, "Filling a form"). Typing,
// checking, option picking and the click are browser_act's own (act.js, act-keys.js), so a field
// fills as a person's typing does, React's and Vue's controlled inputs included. A field that fails
// does not stop the others; the submit is clicked only when every field was filled.
(() => {
  "use strict";

  const g = globalThis;
  const { fail } = g.__tabpilotActCommon;

  // ---- pure parts (node tests load them without a DOM) ----

  // What a field takes, from a plain description of the element: "text", "secret" (a password:
  // its value is never echoed), "range", "check", "select", "combobox", "listbox", or null (not
  // a field). el: {tag, type, role, editable, textTypes}.
  function kindOf({ tag, type, role, editable, textTypes }) {
    if (tag === "SELECT") return "select";
    if (tag === "INPUT") {
      if (type === "checkbox" || type === "radio") return "check";
      if (type === "range") return "range";
      if (role === "combobox") return "combobox";
      if (type === "password") return "secret";
      return textTypes.has(type) ? "text" : null;
    }
    if (["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"].includes(role)) return "check";
    if (role === "combobox") return "combobox";
    if (role === "listbox") return "listbox";
    if (tag === "TEXTAREA" || editable) return "text";
    return null;
  }

  // The values a field of `kind` takes, or why not: a refusal (invalid_request) naming what it takes.
  function valuesFor(kind, value, it) {
    const strings = Array.isArray(value) ? value : [value];
    switch (kind) {
      case "check":
        if (typeof value !== "boolean") fail("invalid_request", `${it} takes true or false, not ${shown(value)}.`);
        return value;
      case "text":
      case "secret":
      case "range":
        if (typeof value !== "string") fail("invalid_request", `${it} takes a string, not ${shown(value)}.`);
        return value;
      default:
        if (strings.length === 0 || !strings.every((v) => typeof v === "string")) {
          fail("invalid_request", `${it} takes an option's label or value, or a list of them, not ${shown(value)}.`);
        }
        return strings;
    }
  }

  function shown(value) {
    if (typeof value === "boolean") return `the boolean ${value}`;
    if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
    return Array.isArray(value) ? "a list" : typeof value;
  }

  // The formats of the inputs whose value the browser sanitizes: a value it refuses reads "".
  const FORMATS = {
    date: "a date such as 2026-11-27",
    time: "a time such as 14:30",
    "datetime-local": "a date and time such as 2026-11-27T14:30",
    month: "a month such as 2026-11",
    week: "a week such as 2026-W48",
    number: "a number such as 42",
    range: "a number such as 42",
    color: "a colour such as #3366ff",
  };

  // The index in `names` of the option `want` names: its exact name, else the same name in other
  // case and spacing; -1 when none does.
  function matchName(names, want) {
    const norm = (s) => String(s).replace(/\s+/g, " ").trim().toLowerCase();
    const exact = names.indexOf(want);
    return exact >= 0 ? exact : names.map(norm).indexOf(norm(want));
  }

  // ---- the page ----

  const refs = () => g.__tabpilotRefs;
  const act = () => g.__tabpilotAct;
  const keys = () => g.__tabpilotActKeys;
  let api = null; // dom-accessibility-api, once refs.ready() resolved

  const nameOf = (el) => (api ? api.computeAccessibleName(el) : el.textContent ?? "").replace(/\s+/g, " ").trim();
  const visible = (el) => (el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true);

  // Resolves when check() answers something truthy (checked on each DOM change), or with null
  // after `ms`. A framework renders a list it opens after the event that opened it (React in a
  // microtask, Vue in its next tick), and some fetch their options first.
  function until(check, ms) {
    const found = check();
    if (found || ms <= 0) return Promise.resolve(found || null);
    return new Promise((resolve) => {
      const done = (value) => {
        observer.disconnect();
        clearTimeout(timer);
        resolve(value);
      };
      const observer = new MutationObserver(() => {
        const value = check();
        if (value) done(value);
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const timer = setTimeout(() => done(check() || null), ms);
    });
  }

  // The visible listbox a combobox controls: the one aria-controls or aria-owns names, one inside
  // it, else the last visible listbox of the page (a popup appended to the body).
  function listboxOf(el) {
    const root = el.getRootNode();
    const ids = `${el.getAttribute("aria-controls") ?? ""} ${el.getAttribute("aria-owns") ?? ""}`.split(/\s+/).filter(Boolean);
    for (const id of ids) {
      const named = root.getElementById?.(id) ?? document.getElementById(id);
      const list = named?.matches("[role=listbox]") ? named : named?.querySelector("[role=listbox]");
      if (list && visible(list)) return list;
    }
    const inner = el.querySelector("[role=listbox]");
    if (inner && visible(inner)) return inner;
    return [...root.querySelectorAll("[role=listbox]")].filter(visible).at(-1) ?? null;
  }

  const optionsOf = (list) => [...list.querySelectorAll("[role=option]")].filter(visible);

  function optionIn(list, want) {
    const options = optionsOf(list);
    const index = matchName(options.map(nameOf), want);
    return index >= 0 ? options[index] : null;
  }

  function noOption(it, want, list) {
    const names = optionsOf(list).map(nameOf);
    const listed = names.slice(0, 20).map((n) => JSON.stringify(n)).join(", ") + (names.length > 20 ? `, and ${names.length - 20} more` : "");
    fail("invalid_request", `${it} has no option ${JSON.stringify(want)}; its options are ${listed || "none"}.`);
  }

  // Clicks el as browser_act click does, through a ref of its own.
  const clickOn = (el) => act().run({ kind: "click", ref: refs().refOf(el) });

  // Chooses each option of a listbox by its accessible name, clicking those not yet selected.
  async function chooseInListbox(el, wanted, it) {
    act().assertEnabled(el, it);
    if (wanted.length > 1 && el.getAttribute("aria-multiselectable") !== "true") fail("invalid_request", `${it} takes one option, not ${wanted.length}.`);
    for (const want of wanted) {
      const option = optionIn(el, want) ?? noOption(it, want, el);
      if (option.getAttribute("aria-disabled") === "true") fail("invalid_request", `The option ${JSON.stringify(nameOf(option))} of ${it} is disabled.`);
      if (option.getAttribute("aria-selected") !== "true") await clickOn(option);
    }
    return optionsOf(el)
      .filter((o) => o.getAttribute("aria-selected") === "true")
      .map(nameOf);
  }

  // A combobox whose options show in a listbox once it is clicked or typed into: opened, the option
  // clicked by its accessible name, and then the combobox must show it.
  async function chooseInCombobox(el, ref, wanted, it, wait) {
    act().assertEnabled(el, it);
    if (wanted.length > 1) fail("invalid_request", `${it} takes one option, not ${wanted.length}.`);
    const want = wanted[0];
    const typed = keys().isEditable(el);
    let list = listboxOf(el);
    if (!list || !optionIn(list, want)) {
      // Typing filters an autocomplete's options to the one wanted; a select-only combobox opens
      // on a click.
      await act().run(typed ? { kind: "type", ref, text: want } : { kind: "click", ref });
      list = await until(() => listboxOf(el), wait);
    }
    if (!list) fail("element_not_interactable", `${it} showed no list of options after it was ${typed ? "typed into" : "clicked"}.`, { reason: "no_listbox" });
    const option = (await until(() => optionIn(list, want), wait)) ?? noOption(it, want, list);
    if (option.getAttribute("aria-disabled") === "true") fail("invalid_request", `The option ${JSON.stringify(nameOf(option))} of ${it} is disabled.`);
    const name = nameOf(option);
    await clickOn(option);
    const holds = () => {
      const text = (typed ? el.value : el.textContent).replace(/\s+/g, " ").trim();
      return text !== "" && (matchName([text], name) === 0 || text.toLowerCase().includes(name.toLowerCase())) ? text : null;
    };
    const text = await until(holds, wait);
    if (text === null) {
      const now = (typed ? el.value : el.textContent).replace(/\s+/g, " ").trim();
      fail("element_not_interactable", `${it} shows ${JSON.stringify(now)} after the option ${JSON.stringify(name)} was clicked.`, { reason: "not_applied" });
    }
    return [text];
  }

  // A range slider: set as dragging it does, then read back (the browser clamps and steps it).
  function slide(el, value, it) {
    act().assertEnabled(el, it);
    keys().focusOn(el, { preventScroll: true });
    if (keys().setValue(el, value, "insertReplacementText", value)) keys().fire(el, Event, "change", { composed: false, cancelable: false });
  }

  // Fills one field: {ref, ok, element, value | chars} or {ref, ok: false, element?, error}.
  async function fillOne({ ref, value }, wait) {
    let element;
    try {
      const el = refs().resolveRef(ref);
      element = refs().describe(el);
      const it = `${element} (${ref})`;
      const kind = kindOf({
        tag: el.tagName,
        type: el.type,
        role: el.getAttribute("role"),
        editable: el.isContentEditable === true,
        textTypes: keys().TEXT_TYPES,
      });
      if (kind === null) {
        const upload = el.tagName === "INPUT" && el.type === "file" ? "; a file input takes files through browser_upload" : "";
        fail("element_not_interactable", `${it} is not a form field one can fill${upload}.`, { reason: "not_fillable" });
      }
      const wanted = valuesFor(kind, value, it);
      switch (kind) {
        case "text":
        case "secret":
          await act().run({ kind: "type", ref, text: wanted });
          break;
        case "range":
          slide(el, wanted, it);
          break;
        case "check":
          await act().run({ kind: wanted ? "check" : "uncheck", ref });
          break;
        case "select":
          await act().run({ kind: "select", ref, values: wanted });
          return { ref, ok: true, element, value: [...el.selectedOptions].map((o) => o.label.trim()) };
        case "listbox":
          return { ref, ok: true, element, value: await chooseInListbox(el, wanted, it) };
        case "combobox":
          return { ref, ok: true, element, value: await chooseInCombobox(el, ref, wanted, it, wait) };
      }
      if (kind === "check") return { ref, ok: true, element, value: act().checkedState(el) };
      const held = el.isContentEditable ? el.innerText.replace(/\n$/, "") : el.value;
      // The browser refused the text: a date in another format, letters in a number field.
      if (held === "" && wanted.trim() !== "" && Object.hasOwn(FORMATS, el.type)) {
        fail("invalid_request", `${it} refused ${kind === "secret" ? "the text" : JSON.stringify(wanted)}: it takes ${FORMATS[el.type]}.`);
      }
      return kind === "secret" ? { ref, ok: true, element, chars: [...held].length } : { ref, ok: true, element, value: held };
    } catch (err) {
      const code = typeof err?.code === "string" ? err.code : "extension_error";
      const error = { code, message: String(err?.message ?? err) };
      if (err?.data !== undefined) error.data = err.data;
      return element === undefined ? { ref, ok: false, error } : { ref, ok: false, element, error };
    }
  }

  // The message {type: "fill_form", fields: [{ref, value}], submit: ref | null, wait_ms}: each field
  // in turn, then the submit when all were filled. Answers {fields, submit?, navigating?, open?}.
  async function fill(message) {
    api = await refs()
      .ready()
      .catch(() => null);
    const wait = Number.isInteger(message.wait_ms) && message.wait_ms > 0 ? message.wait_ms : 2000;
    const fields = [];
    for (const field of message.fields ?? []) fields.push(await fillOne(field, wait));
    const answer = { fields, navigating: false };
    if (typeof message.submit !== "string") return answer;
    const failed = fields.filter((f) => !f.ok).length;
    if (failed > 0) {
      answer.submit = { ref: message.submit, clicked: false, reason: `${failed} of ${fields.length} field${fields.length === 1 ? "" : "s"} failed` };
      return answer;
    }
    try {
      const clicked = await act().run({ kind: "click", ref: message.submit });
      answer.submit = { ref: message.submit, clicked: true, description: clicked.description };
      if (clicked.open) answer.open = clicked.open;
      if (clicked.navigating !== undefined) answer.navigating = clicked.navigating;
      else delete answer.navigating;
    } catch (err) {
      const code = typeof err?.code === "string" ? err.code : "extension_error";
      answer.submit = { ref: message.submit, clicked: false, error: { code, message: String(err?.message ?? err), ...(err?.data === undefined ? {} : { data: err.data }) } };
    }
    return answer;
  }

  g.__tabpilotForm = Object.freeze({ kindOf, valuesFor, matchName, FORMATS });
  g.__tabpilotContentTools ??= {};
  g.__tabpilotContentTools.fill_form = fill;
})();
