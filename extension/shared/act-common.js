// What browser_act's two routes share: the kinds and what each needs, key names ("Control+a") read
// into the fields of a key event, and the sentence an answer's description reads as. A classic
// script: the content script's isolated world loads it before act.js (the DOM route), the service
// worker imports it for its side effect (the debugger route, worker/tab/input.js), and node tests
// load it either way.
(() => {
  "use strict";

  const KINDS = Object.freeze(["click", "type", "press", "scroll", "hover", "select", "check", "uncheck"]);
  const NEEDS_REF = new Set(["click", "hover", "select", "check", "uncheck"]);
  const DIRECTIONS = Object.freeze(["up", "down", "left", "right"]);

  // An error with a wire code (protocol.md's table) and the error.data the caller reads.
  class ActError extends Error {
    constructor(code, message, data) {
      super(message);
      this.code = code;
      if (data !== undefined) this.data = data;
    }
  }

  const fail = (code, message, data) => {
    throw new ActError(code, message, data);
  };

  // Refuses what the daemon's model refuses too, for callers that reach the extension otherwise.
  function checkParams(p) {
    if (!KINDS.includes(p.kind)) {
      throw new ActError("invalid_request", `Unknown kind ${JSON.stringify(p.kind)}; the kinds are ${KINDS.join(", ")}.`);
    }
    if (NEEDS_REF.has(p.kind) && !p.ref) {
      throw new ActError("invalid_request", `browser_act ${p.kind} needs the ref of an element; browser_snapshot gives refs.`);
    }
    if (p.kind === "type" && typeof p.text !== "string") throw new ActError("invalid_request", "browser_act type needs the text to type.");
    if (p.kind === "press" && (typeof p.key !== "string" || p.key === "")) {
      throw new ActError("invalid_request", 'browser_act press needs a key, e.g. "Enter", "Tab", "ArrowDown", "a" or "Control+a".');
    }
    if (p.direction != null && !DIRECTIONS.includes(p.direction)) {
      throw new ActError("invalid_request", `Unknown direction ${JSON.stringify(p.direction)}; the directions are ${DIRECTIONS.join(", ")}.`);
    }
    if (p.kind === "select" && !(Array.isArray(p.values) && p.values.length > 0) && typeof p.text !== "string") {
      throw new ActError("invalid_request", "browser_act select needs values (option values or labels) or text (one option).");
    }
  }

  // Modifier names as the key event's fields and as the debugger's bit mask (Input.dispatchKeyEvent).
  const MODIFIERS = {
    Alt: { field: "altKey", bit: 1 },
    Control: { field: "ctrlKey", bit: 2 },
    Meta: { field: "metaKey", bit: 4 },
    Shift: { field: "shiftKey", bit: 8 },
  };
  const ALIASES = { Ctrl: "Control", Cmd: "Meta", Command: "Meta", Option: "Alt", Esc: "Escape", Return: "Enter", Space: " ", Del: "Delete" };
  // key -> [code, keyCode, text typed]
  const NAMED = {
    Enter: ["Enter", 13, "\r"],
    Tab: ["Tab", 9, ""],
    Escape: ["Escape", 27, ""],
    Backspace: ["Backspace", 8, ""],
    Delete: ["Delete", 46, ""],
    " ": ["Space", 32, " "],
    ArrowUp: ["ArrowUp", 38, ""],
    ArrowDown: ["ArrowDown", 40, ""],
    ArrowLeft: ["ArrowLeft", 37, ""],
    ArrowRight: ["ArrowRight", 39, ""],
    Home: ["Home", 36, ""],
    End: ["End", 35, ""],
    PageUp: ["PageUp", 33, ""],
    PageDown: ["PageDown", 34, ""],
    Insert: ["Insert", 45, ""],
  };
  for (let n = 1; n <= 12; n++) NAMED[`F${n}`] = [`F${n}`, 111 + n, ""];
  const PUNCTUATION = { ";": ["Semicolon", 186], "=": ["Equal", 187], ",": ["Comma", 188], "-": ["Minus", 189], ".": ["Period", 190], "/": ["Slash", 191], "`": ["Backquote", 192], "[": ["BracketLeft", 219], "\\": ["Backslash", 220], "]": ["BracketRight", 221], "'": ["Quote", 222] };

  // "Control+Shift+a" -> {key, code, keyCode, text, modifiers: {ctrlKey…}, bits, name}. `text` is
  // what the key types ("" for keys that type nothing, or when Control, Alt or Meta is held).
  function parseKey(spec) {
    const parts = String(spec).split("+");
    // "Control++" and "+" name the plus key itself.
    let last = parts.pop();
    if (last === "" && parts.length > 0 && parts.at(-1) === "") {
      parts.pop();
      last = "+";
    }
    const modifiers = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };
    let bits = 0;
    for (const raw of parts) {
      const name = ALIASES[raw] ?? raw;
      if (!Object.hasOwn(MODIFIERS, name)) {
        throw new ActError("invalid_request", `Unknown modifier ${JSON.stringify(raw)} in key ${JSON.stringify(spec)}; the modifiers are Alt, Control, Meta and Shift.`);
      }
      modifiers[MODIFIERS[name].field] = true;
      bits |= MODIFIERS[name].bit;
    }
    let key = ALIASES[last] ?? last;
    let code;
    let keyCode;
    let text;
    if (Object.hasOwn(NAMED, key)) {
      [code, keyCode, text] = NAMED[key];
    } else if ([...key].length === 1) {
      const upper = key.toUpperCase();
      if (/^[a-z]$/i.test(key)) {
        code = `Key${upper}`;
        keyCode = upper.charCodeAt(0);
        if (modifiers.shiftKey) key = upper;
      } else if (/^[0-9]$/.test(key)) {
        code = `Digit${key}`;
        keyCode = key.charCodeAt(0);
      } else {
        [code, keyCode] = PUNCTUATION[key] ?? ["", 0];
      }
      text = key;
    } else {
      throw new ActError(
        "invalid_request",
        `Unknown key ${JSON.stringify(last)}; use a key name such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown or F5, or one character, with modifiers like "Control+a".`,
      );
    }
    if (modifiers.ctrlKey || modifiers.altKey || modifiers.metaKey) text = "";
    return { key, code, keyCode, text, modifiers, bits, name: [...parts.map((p) => ALIASES[p] ?? p), key === " " ? "Space" : key].join("+") };
  }

  // Whether the DOM route does what the browser itself does for a key (content/act.js press): typing,
  // Enter, Tab, Space, Backspace, Delete, Control+a. Others (caret keys, F5…) only reach the page's
  // handlers there; the debugger route gives them their browser action.
  const DOM_KEYS = new Set(["Enter", "Tab", " ", "Escape", "Backspace", "Delete"]);
  function domHandles(k) {
    const { ctrlKey, metaKey, altKey } = k.modifiers;
    if ((ctrlKey || metaKey) && !altKey && k.key.toLowerCase() === "a") return true;
    return k.text !== "" || DOM_KEYS.has(k.key);
  }

  const quote = (text) => JSON.stringify(String(text));
  // `button "Add to cart" (e12)`, or the description alone when there is no ref.
  const target = (what, ref) => (ref ? `${what} (${ref})` : what);
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  // The answer's description: what was done, to what, in one sentence.
  function sentence(kind, f) {
    const on = target(f.what, f.ref);
    switch (kind) {
      case "click":
        return `Clicked ${on}`;
      case "hover":
        return `Hovered over ${on}`;
      case "type":
        return `Typed ${plural([...f.text].length, "character")} into ${on}${f.submit ? " and pressed Enter" : ""}`;
      case "press":
        return `Pressed ${f.key}${f.ref ? ` in ${on}` : ""}${f.noDefault ? `; the page got its key events, but what the browser itself does for ${f.key} needs trusted: true` : ""}`;
      case "select":
        return `Selected ${f.labels.map(quote).join(", ")} in ${on}`;
      case "check":
      case "uncheck": {
        const want = kind === "check";
        if (f.already) return `${capital(on)} was already ${want ? "checked" : "unchecked"}`;
        if (f.state !== want) return `Clicked ${on}, but it is still ${f.state ? "checked" : "unchecked"}`;
        return `${want ? "Checked" : "Unchecked"} ${on}`;
      }
      case "scroll": {
        if (!f.direction) return `Scrolled ${on} into view`;
        const inside = f.ref ? ` inside ${on}` : "";
        if (f.moved === undefined) return `Scrolled ${f.direction} ${f.amount} px${inside}`;
        if (f.moved >= f.amount) return `Scrolled ${f.direction} ${f.moved} px${inside}`;
        const edge = { up: "top", down: "bottom", left: "left edge", right: "right edge" }[f.direction];
        return `Scrolled ${f.direction} ${f.moved} px of the ${f.amount} asked${inside}: the ${f.ref ? "element" : "page"} is at its ${edge}`;
      }
      default:
        return `Did ${kind} on ${on}`;
    }
  }

  globalThis.__tabpilotActCommon = Object.freeze({ KINDS, NEEDS_REF, DIRECTIONS, ActError, fail, checkParams, parseKey, domHandles, sentence });
})();
