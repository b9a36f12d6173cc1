// browser_wait_for's page conditions, in the content script's isolated world (docs/protocol.md,
// "browser_wait_for"): text appearing or gone, an element (a ref, or a CSS selector) reaching a
// state, the DOM staying still. Each is checked at once, then again on each change a
// MutationObserver reports (attributes included, so a class or style toggle is seen), on each
// transition or animation end, resize and frame load, until it holds or the worker says the time
// is up (`wait_stop`), and the page then says what is still false. The worker keeps the clock
// (worker/tools/wait.js). Registers `wait_for` and `wait_stop` in globalThis.__tabpilotContentTools.
(() => {
  "use strict";

  const g = globalThis;

  // ---- pure parts (node tests load them without a DOM) ----

  // Text as a wait compares it: whitespace runs as one space, in any case.
  const normalize = (text) => String(text).replace(/\s+/g, " ").trim().toLowerCase();
  const wordsOf = (text) => String(text).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const commonPrefix = (a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  const SNIPPET_CHARS = 60;
  const MAX_LINES = 5000;

  // A line cut to SNIPPET_CHARS around `at`, marked where it was cut.
  function snippet(line, at = 0) {
    if (line.length <= SNIPPET_CHARS) return line;
    const start = Math.max(0, Math.min(at - 20, line.length - SNIPPET_CHARS));
    const part = line.slice(start, start + SNIPPET_CHARS);
    return (start > 0 ? "\u2026" : "") + part + (start + SNIPPET_CHARS < line.length ? "\u2026" : "");
  }

  // The lines of `text` most like `needle`, at most `max`, best first: a line scores for each word
  // of the needle it holds whole (the word's length and 10 more), or shares a prefix of 3 or more
  // characters with ("Saving" for "Saved"). What a timeout shows, so that an agent sees what the
  // page says instead.
  function similar(text, needle, max = 3) {
    const wanted = [...new Set(wordsOf(needle))];
    if (wanted.length === 0) return [];
    const scored = [];
    const seen = new Set();
    for (const raw of String(text).split("\n").slice(0, MAX_LINES)) {
      const line = raw.replace(/\s+/g, " ").trim();
      const key = line.toLowerCase();
      if (line === "" || seen.has(key)) continue;
      seen.add(key);
      let score = 0;
      let at = -1;
      const words = wordsOf(line);
      for (const want of wanted) {
        let best = 0;
        for (const word of words) {
          const shared = word === want ? want.length + 10 : commonPrefix(word, want);
          if (shared > best && (shared >= 3 || word === want)) {
            best = shared;
            if (at < 0) at = key.indexOf(word);
          }
        }
        score += best;
      }
      if (score > 0) scored.push({ line, score, at, order: scored.length });
    }
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, max).map(({ line, at }) => snippet(line, at));
  }

  // `3 similar: "Saving…", "Saved drafts"`: the texts a timeout names.
  const similarNote = (found) => (found.length === 0 ? "" : `${found.length} similar: ${found.map((s) => JSON.stringify(s)).join(", ")}`);

  const pure = { normalize, similar, similarNote, snippet };
  if (typeof document === "undefined") {
    g.__tabpilotWait = Object.freeze(pure);
    return;
  }

  // ---- the page ----

  class WaitError extends Error {
    constructor(code, message, data) {
      super(message);
      this.code = code;
      if (data !== undefined) this.data = data;
    }
  }
  const refs = () => g.__tabpilotRefs;
  const keys = () => g.__tabpilotActKeys;
  const quote = (text, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}\u2026` : text);
  // At most this share of the page's time goes to checks on a page that changes all the time: a
  // check that took 5 ms waits 15 ms before the next.
  const CHECK_GAP_FACTOR = 3;
  const MAX_CHECK_GAP_MS = 100;
  // For what no observer reports (a shadow root attached later, a style rule a media query turns
  // on): a slow check besides the events.
  const SAFETY_CHECK_MS = 1000;
  // A wait the worker forgot (it was stopped meanwhile) ends by itself this long after its time.
  const ABANDON_AFTER_MS = 10_000;
  const waits = new Map(); // wait id -> {stop() -> what is still false}

  // The document and every shadow root (open or closed) and same-origin frame document under `node`.
  function rootsUnder(node, into) {
    const doc = node.ownerDocument ?? node;
    const walker = doc.createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.currentNode; el; el = walker.nextNode()) {
      if (el.nodeType !== 1) continue;
      const shadow = refs().shadowRootOf(el);
      if (shadow && !into.has(shadow)) {
        into.add(shadow);
        rootsUnder(shadow, into);
      }
      if (el.localName === "iframe" || el.localName === "frame") {
        let inner = null;
        try {
          inner = el.contentDocument; // null when cross-origin
        } catch {}
        if (inner?.documentElement && !into.has(inner)) {
          into.add(inner);
          rootsUnder(inner.documentElement, into);
        }
      }
    }
    return into;
  }

  // The page's visible text, as browser_read gives it (read.js) where shadow roots or frames hold
  // some; innerText, which is quicker, where none do.
  function visibleText(roots) {
    if (!document.documentElement) return "";
    if (roots.size > 1) return g.__tabpilotRead.read({ limit: Number.MAX_SAFE_INTEGER }).text;
    const root = document.body ?? document.documentElement;
    return typeof root.innerText === "string" ? root.innerText : root.textContent ?? "";
  }

  // Rendered with a box, as Playwright's "visible": opacity 0 counts as visible.
  const isVisible = (el) => {
    if (!el.isConnected || el.checkVisibility?.({ visibilityProperty: true }) === false) return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  };
  const nameOf = (el) => el.localName + (el.id ? `#${el.id}` : "") + [...el.classList].slice(0, 2).map((c) => `.${c}`).join("");
  const parentOf = (node) => node.assignedSlot ?? node.parentElement ?? node.getRootNode?.().host ?? null;

  // Why an element is not visible: `display: none on div.modal`, `visibility: hidden`, `0×0`.
  function whyHidden(el) {
    if (!el.isConnected) return "it is not in the page";
    for (let n = el, depth = 0; n && depth < 500; n = parentOf(n), depth++) {
      const style = getComputedStyle(n);
      if (style.display === "none") return `display: none${n === el ? "" : ` on ${nameOf(n)}`}`;
      if (style.contentVisibility === "hidden" && n !== el) return `content-visibility: hidden on ${nameOf(n)}`;
    }
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") return `visibility: ${style.visibility}`;
    const rect = el.getBoundingClientRect();
    return `it has no size (${Math.round(rect.width)}\u00d7${Math.round(rect.height)})`;
  }

  function whyDisabled(el) {
    if (el.matches(":disabled")) return el.hasAttribute("disabled") ? "disabled attribute" : "in a disabled fieldset";
    const marked = el.closest("[aria-disabled='true']");
    return marked === el ? 'aria-disabled="true"' : `aria-disabled="true" on ${nameOf(marked)}`;
  }

  const BECAME = { visible: "became visible", hidden: "became hidden", enabled: "became enabled", attached: "was added to the page", detached: "was removed from the page" };
  const IS = { visible: "is visible", hidden: "is hidden", enabled: "is enabled", attached: "is in the page", detached: "is not in the page" };

  // An element condition: `elements()` -> the matching elements in the page now.
  function elementCondition(state, label, elements, gone) {
    const holds = (els) => {
      if (state === "attached") return els.length > 0;
      if (state === "detached") return els.length === 0;
      if (state === "hidden") return !els.some(isVisible);
      if (state === "visible") return els.some(isVisible);
      return els.some((el) => !keys().isDisabled(el));
    };
    let last = [];
    return {
      check: () => holds((last = elements())),
      met: (already) => `${label(last)} ${(already ? IS : BECAME)[state]}`,
      still() {
        const els = elements();
        const what = label(els);
        if (els.length === 0) return { what: `${what} ${gone}`, why: "", data: { state: "detached" } };
        if (state === "detached") return { what: `${what} is still in the page`, why: "", data: { state: "attached" } };
        if (state === "hidden") return { what: `${what} is still visible`, why: "", data: { state: "visible" } };
        if (state === "enabled") return { what: `${what} is still disabled`, why: whyDisabled(els[0]), data: { state: "disabled" } };
        return { what: `${what} is still hidden`, why: whyHidden(els[0]), data: { state: "hidden" } };
      },
    };
  }

  function forRef(ref, state) {
    let element;
    try {
      element = refs().resolveRef(ref);
    } catch (err) {
      // Removed before the wait began: gone, which is what `detached` and `hidden` wait for.
      if (err?.code === "stale_ref" && (state === "detached" || state === "hidden")) element = null;
      else throw err;
    }
    const what = element ? `${refs().describe(element)} (${ref})` : `ref ${ref}`;
    const condition = elementCondition(state, () => what, () => (element?.isConnected ? [element] : []), "was removed from the page");
    // A ref names one element: once removed it never comes back, so the states that need it fail now.
    const check = condition.check;
    condition.check = () => {
      const holds = check();
      if (!holds && element && !element.isConnected && state !== "detached" && state !== "hidden") {
        throw new WaitError("stale_ref", `The element with ref ${ref} was removed from the page while waiting for it to be ${state}. Take a new snapshot.`, { ref, doc: refs().doc });
      }
      return holds;
    };
    return condition;
  }

  function forSelector(selector, state, roots) {
    try {
      document.createDocumentFragment().querySelector(selector);
    } catch (err) {
      throw new WaitError("invalid_request", `selector ${quote(selector)} is not valid CSS: ${err?.message ?? err}`);
    }
    const elements = () => {
      const found = [];
      for (const root of roots) {
        for (const el of root.querySelectorAll(selector)) {
          found.push(el);
          if (found.length >= 200) return found;
        }
      }
      return found;
    };
    const label = (els) => `selector ${quote(selector)}${els.length > 0 ? ` (${refs().describe(els[0])})` : ""}`;
    return elementCondition(state, label, elements, "matches nothing");
  }

  function forText(text, gone, roots) {
    const wanted = normalize(text);
    const shown = quote(text);
    let whole = "";
    return {
      check: () => normalize((whole = visibleText(roots))).includes(wanted) !== gone,
      met: (already) => (gone ? `text ${shown} ${already ? "is not on the page" : "disappeared"}` : `text ${shown} ${already ? "is on the page" : "appeared"}`),
      still() {
        whole = visibleText(roots);
        if (gone) {
          const line = whole.split("\n").find((l) => normalize(l).includes(wanted)) ?? "";
          return { what: `text ${shown} is still on the page`, why: line ? `in ${JSON.stringify(snippet(line.trim(), normalize(line).indexOf(wanted)))}` : "", data: {} };
        }
        const found = similar(whole, text);
        const hidden = normalize(document.documentElement?.textContent ?? "").includes(wanted);
        const why = [similarNote(found), hidden ? "it is in the page's DOM but not visible" : ""].filter(Boolean).join("; ");
        return { what: `text ${shown} not found`, why: why || "nothing similar is visible", data: { similar: found } };
      },
    };
  }

  // Watches every root for changes and calls `changed(records)`; the returned function stops it.
  function watchRoots(roots, changed) {
    const options = { subtree: true, childList: true, characterData: true, attributes: true };
    const observer = new MutationObserver((records) => {
      // New shadow roots and frames come with the nodes that hold them.
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          const before = roots.size;
          rootsUnder(node, roots);
          if (roots.size > before) for (const root of roots) observer.observe(root, options);
        }
      }
      changed(records);
    });
    for (const root of roots) observer.observe(root, options);
    const onEvent = (event) => {
      // A frame that loaded brings a document of its own.
      if (event.type === "load" && event.target?.localName?.endsWith("frame")) {
        const before = roots.size;
        rootsUnder(event.target, roots);
        if (roots.size > before) for (const root of roots) observer.observe(root, options);
      }
      changed([]);
    };
    const events = ["transitionend", "animationend", "load"];
    for (const type of events) document.addEventListener(type, onEvent, true);
    addEventListener("resize", onEvent);
    return () => {
      observer.disconnect();
      for (const type of events) document.removeEventListener(type, onEvent, true);
      removeEventListener("resize", onEvent);
    };
  }

  // Runs `check` now, and on each change no sooner than a few times its own cost after the last.
  function throttled(check) {
    let cost = 0;
    let last = -Infinity;
    let timer = null;
    const run = () => {
      timer = null;
      const begun = performance.now();
      try {
        check();
      } finally {
        last = performance.now();
        cost = last - begun;
      }
    };
    const schedule = () => {
      if (timer !== null) return;
      const wait = Math.min(MAX_CHECK_GAP_MS, cost * CHECK_GAP_FACTOR) - (performance.now() - last);
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    };
    schedule.cancel = () => clearTimeout(timer);
    return schedule;
  }

  function domStable(message, roots, finish) {
    const quiet = message.value;
    let changes = 0;
    let lastChange = null;
    let timer = setTimeout(() => finish({ description: `DOM stable (no change for ${quiet} ms)` }), quiet);
    const stop = watchRoots(roots, (records) => {
      if (records.length === 0) return;
      changes += records.length;
      const target = records[records.length - 1].target;
      lastChange = { at: performance.now(), what: `${records[records.length - 1].type} on ${target.nodeType === 1 ? nameOf(target) : target.parentElement ? nameOf(target.parentElement) : "the page"}` };
      clearTimeout(timer);
      timer = setTimeout(() => finish({ description: `DOM stable (no change for ${quiet} ms)` }), quiet);
    });
    return {
      stop() {
        clearTimeout(timer);
        stop();
      },
      still: () => ({
        what: "DOM not stable",
        why: lastChange ? `${changes} changes, the last ${Math.round(performance.now() - lastChange.at)} ms ago (${lastChange.what})` : "",
        data: { changes },
      }),
    };
  }

  // wait_for {id, condition, value, state, until}: resolves {description, already} once the
  // condition holds, or {stopped: true} once wait_stop ended it.
  function waitFor(message) {
    return new Promise((resolve, reject) => {
      const roots = rootsUnder(document, new Set([document]));
      const cleanups = [];
      let ended = false;
      let still = () => null;
      const end = (settle) => {
        if (ended) return;
        ended = true;
        waits.delete(message.id);
        for (const cleanup of cleanups) cleanup();
        settle();
      };
      const finish = (result) => end(() => resolve(result));
      const failNow = (err) => end(() => reject(err));
      waits.set(message.id, {
        stop() {
          const said = still();
          finish({ stopped: true });
          return said;
        },
      });
      const left = Math.max(0, (Number(message.until) || Date.now()) - Date.now());
      const abandon = setTimeout(() => finish({ stopped: true }), left + ABANDON_AFTER_MS);
      cleanups.push(() => clearTimeout(abandon));
      try {
        if (message.condition === "dom_stable") {
          const watch = domStable(message, roots, finish);
          cleanups.push(watch.stop);
          still = watch.still;
          return;
        }
        const condition =
          message.condition === "ref"
            ? forRef(message.value, message.state)
            : message.condition === "selector"
              ? forSelector(message.value, message.state, roots)
              : forText(message.value, message.condition === "text_gone", roots);
        still = () => condition.still();
        // A wait sent again after a navigation finds what it waits for as it appeared meanwhile.
        if (condition.check()) {
          const first = message.first !== false;
          finish({ description: condition.met(first), already: first });
          return;
        }
        const check = throttled(() => {
          try {
            if (!ended && condition.check()) finish({ description: condition.met(false), already: false });
          } catch (err) {
            failNow(err);
          }
        });
        const unwatch = watchRoots(roots, check);
        const safety = setInterval(check, SAFETY_CHECK_MS);
        cleanups.push(unwatch, () => clearInterval(safety), check.cancel);
      } catch (err) {
        failNow(err);
      }
    });
  }

  // wait_stop {id}: the wait ends; the answer says what was still false ({what, why, data}), or
  // null when no such wait is under way in this document.
  const waitStop = (message) => waits.get(message.id)?.stop() ?? null;

  const tools = (g.__tabpilotContentTools ??= {});
  tools.wait_for = waitFor;
  tools.wait_stop = waitStop;
  g.__tabpilotWait = Object.freeze(pure);
})();
