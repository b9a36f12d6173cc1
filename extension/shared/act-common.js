// What browser_act's two routes share: the kinds and what each needs, key names ("Control+a") read
// into the fields of a key event, and the sentence an answer's description reads as. A classic
// script: the content script's isolated world loads it before act.js (the DOM route), the service
// worker imports it for its side effect (the debugger route, worker/tab/input.js), and node tests
// load it either way.
(() => {
  "use strict";

  const KINDS = Object.freeze(["click", "type", "press", "scroll", "hover", "select", "check", "uncheck", "drag"]);
  const NEEDS_REF = new Set(["click", "hover", "select", "check", "uncheck", "drag"]);
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
    if (p.kind === "drag" && !p.to_ref && !(Number.isFinite(p.to_x) && Number.isFinite(p.to_y))) {
      throw new ActError("invalid_request", "browser_act drag needs to_ref, or to_x and to_y (a point in the viewport).");
    }
    pointerOptions(p);
    if (p.hold_ms != null && !(Number.isInteger(p.hold_ms) && p.hold_ms >= 0 && p.hold_ms <= MAX_HOLD_MS)) {
      throw new ActError("invalid_request", `hold_ms must be an integer from 0 to ${MAX_HOLD_MS}.`);
    }
  }

  // A key held down repeats as an OS does by default: after a delay, at about 30 a second.
  const MAX_HOLD_MS = 10_000;
  const REPEAT_DELAY_MS = 500;
  const REPEAT_EVERY_MS = 33;
  // When the repeats of a key held holdMs fall, in ms after its keydown.
  function repeatTimes(holdMs) {
    const times = [];
    for (let t = REPEAT_DELAY_MS; t < holdMs; t += REPEAT_EVERY_MS) times.push(t);
    return times;
  }

  // A button's MouseEvent.button (`code`) and the MouseEvent.buttons bit it holds.
  const BUTTONS = { left: { code: 0, buttons: 1 }, right: { code: 2, buttons: 2 }, middle: { code: 1, buttons: 4 } };
  // A click's or a mouse action's button, click count and modifiers, checked: {button ("left"…),
  // code, buttons, count, modifiers: {altKey…}, bits (the debugger's mask), names}.
  function pointerOptions(p) {
    const button = p.button ?? "left";
    if (!Object.hasOwn(BUTTONS, button)) throw new ActError("invalid_request", `Unknown button ${JSON.stringify(button)}; the buttons are left, right and middle.`);
    const count = p.count ?? 1;
    if (!(Number.isInteger(count) && count >= 1 && count <= 3)) throw new ActError("invalid_request", "count must be 1, 2 or 3.");
    const names = [];
    const modifiers = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };
    let bits = 0;
    for (const raw of p.modifiers ?? []) {
      const name = ALIASES[raw] ?? raw;
      if (!Object.hasOwn(MODIFIERS, name)) throw new ActError("invalid_request", `Unknown modifier ${JSON.stringify(raw)}; the modifiers are Alt, Control, Meta and Shift.`);
      if (!names.includes(name)) names.push(name);
      modifiers[MODIFIERS[name].field] = true;
      bits |= MODIFIERS[name].bit;
    }
    return { button, count, modifiers, bits, names, ...BUTTONS[button] };
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

  // browser_mouse: its actions, the button and count each implies, and its answer's sentence.
  const MOUSE_ACTIONS = Object.freeze(["click", "double_click", "triple_click", "right_click", "middle_click", "down", "up", "move", "wheel", "drag"]);
  const MOUSE_CLICKS = { click: "Clicked", double_click: "Double-clicked", triple_click: "Triple-clicked", right_click: "Right-clicked", middle_click: "Middle-clicked" };
  function mouseOptions(p) {
    if (!MOUSE_ACTIONS.includes(p.action)) {
      throw new ActError("invalid_request", `Unknown action ${JSON.stringify(p.action)}; the actions are ${MOUSE_ACTIONS.join(", ")}.`);
    }
    const button = { right_click: "right", middle_click: "middle" }[p.action] ?? p.button;
    if (p.action === "drag" && !(Number.isFinite(p.to_x) && Number.isFinite(p.to_y))) throw new ActError("invalid_request", "drag needs to_x and to_y.");
    return pointerOptions({ button, count: { double_click: 2, triple_click: 3 }[p.action] ?? 1, modifiers: p.modifiers });
  }

  // f: {x, y, element (what is at the point), names (modifiers), button, dx, dy, moved ([x, y]
  // scrolled, when known), to_x, to_y, to (what is at the drop point)}.
  function mouseSentence(action, f) {
    const at = `at (${f.x}, ${f.y}) on ${f.element}`;
    const keys = f.names?.length ? ` with ${f.names.join("+")}` : "";
    if (Object.hasOwn(MOUSE_CLICKS, action)) return `${MOUSE_CLICKS[action]} ${at}${keys}`;
    switch (action) {
      case "move":
        return `Moved the mouse to (${f.x}, ${f.y}) over ${f.element}`;
      case "down":
      case "up":
        return `${action === "down" ? "Pressed" : "Released"} the ${f.button} button ${at}${keys}`;
      case "wheel":
        return `Turned the wheel by (${f.dx}, ${f.dy}) ${at}${f.moved ? `; it scrolled (${f.moved[0]}, ${f.moved[1]}) px` : ""}`;
      default:
        return `Dragged from (${f.x}, ${f.y}) on ${f.element} to (${f.to_x}, ${f.to_y}) over ${f.to}${keys}`;
    }
  }

  const quote = (text) => JSON.stringify(String(text));
  // `button "Add to cart" (e12)`, or the description alone when there is no ref.
  const target = (what, ref) => (ref ? `${what} (${ref})` : what);
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  const ordinal = (n) => {
    const tens = n % 100;
    const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th");
    return `${n}${suffix}`;
  };
  const CLICK_NAMES = { 2: "Double-clicked", 3: "Triple-clicked" };
  // "Right-clicked", "Double-clicked", "Control+Shift+clicked"…
  function clicked(f) {
    const o = f.options ?? { button: "left", count: 1, names: [] };
    const verb = o.button !== "left" ? `${capital(o.button)}-clicked` : (CLICK_NAMES[o.count] ?? "Clicked");
    return o.names.length > 0 ? `${o.names.join("+")}+${verb.charAt(0).toLowerCase()}${verb.slice(1)}` : verb;
  }
  // Where a dragged element ended up: `; it is now 4th of 5 in list "Todo"`. place: {index (from
  // 1), count, parent, moved}, or null when it left the page (a page that renders anew).
  function placed(place) {
    if (!place) return "";
    return `; it is ${place.moved ? "now" : "still"} ${ordinal(place.index)} of ${place.count} in ${place.parent}`;
  }

  // The answer's description: what was done, to what, in one sentence.
  function sentence(kind, f) {
    const on = target(f.what, f.ref);
    switch (kind) {
      case "click":
        return `${clicked(f)} ${on}`;
      case "hover":
        return `Hovered over ${on}`;
      case "type":
        return `Typed ${plural([...f.text].length, "character")} into ${on}${f.submit ? " and pressed Enter" : ""}`;
      case "press":
        return `${f.held != null ? `Held ${f.key} for ${f.held} ms (${plural(f.repeats, "repeat")})` : `Pressed ${f.key}`}${f.ref ? ` in ${on}` : ""}${f.noDefault ? `; the page got its key events, but what the browser itself does for ${f.key} needs trusted: true` : ""}`;
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
      case "drag": {
        const to = f.toWhat ? `onto ${target(f.toWhat, f.toRef)}` : `to (${f.x}, ${f.y})${f.over ? ` over ${f.over}` : ""}`;
        return `Dragged ${on} ${to}${placed(f.place)}`;
      }
      default:
        return `Did ${kind} on ${on}`;
    }
  }

  globalThis.__tabpilotActCommon = Object.freeze({
    KINDS,
    NEEDS_REF,
    DIRECTIONS,
    ActError,
    fail,
    checkParams,
    parseKey,
    domHandles,
    sentence,
    pointerOptions,
    repeatTimes,
    ordinal,
    clicked,
    MAX_HOLD_MS,
    MOUSE_ACTIONS,
    mouseOptions,
    mouseSentence,
  });
})();
