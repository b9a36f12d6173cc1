// A hostile page's spy, the first script of its <head>: it hooks everything a page can hook to see
// tabpilot's scripts and results (prototype getters on the way of an awaited result included), and
// floods forged results and pilot flips while it runs.
// window.__spy is its log; window.__spyForgeries counts what it sent.
(() => {
  const log = [];
  window.__spy = log;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toSource = Function.prototype.toString;
  let busy = false;
  let forging = false; // the spy's own forgeries are not news to it
  const text = (value) => {
    try {
      return typeof value === "string" ? value : stringify(value);
    } catch {
      return String(value);
    }
  };
  const rec = (kind, value) => {
    if (busy || forging) return;
    busy = true;
    try {
      log.push(kind + " " + text(value).slice(0, 4000));
    } catch {}
    busy = false;
  };

  JSON.stringify = function (...args) {
    const out = stringify.apply(this, args);
    rec("JSON.stringify", out);
    return out;
  };
  JSON.parse = function (...args) {
    rec("JSON.parse", args[0]);
    return parse.apply(this, args);
  };
  const dispatch = EventTarget.prototype.dispatchEvent;
  EventTarget.prototype.dispatchEvent = function (event) {
    rec("dispatch", event.type + " " + text(event.detail));
    return dispatch.call(this, event);
  };
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    rec("listen", type);
    return listen.call(this, type, ...rest);
  };
  const RealCustomEvent = window.CustomEvent;
  window.CustomEvent = function CustomEvent(type, init) {
    rec("CustomEvent", type + " " + text(init?.detail));
    return new RealCustomEvent(type, init);
  };
  window.CustomEvent.prototype = RealCustomEvent.prototype;
  const detail = Object.getOwnPropertyDescriptor(RealCustomEvent.prototype, "detail");
  Object.defineProperty(RealCustomEvent.prototype, "detail", {
    configurable: true,
    get() {
      const value = detail.get.call(this);
      rec("detail", this.type + " " + text(value));
      return value;
    },
  });
  const RealFunction = Function;
  window.Function = function Function(...args) {
    rec("Function", args.join(","));
    return RealFunction(...args);
  };
  window.eval = new Proxy(window.eval, {
    apply(target, self, args) {
      rec("eval", args[0]);
      return Reflect.apply(target, self, args);
    },
  });
  const postMessage = window.postMessage;
  window.postMessage = function (...args) {
    rec("postMessage", args[0]);
    return postMessage.apply(this, args);
  };
  // Promise resolution reads `then` from whatever resolves a promise, through its prototypes, and
  // `then`/`await` read a promise's `constructor`: getters there see those values, and a `then`
  // getter may forge what the promise resolves to.
  for (const proto of [Object.prototype, Array.prototype]) {
    Object.defineProperty(proto, "then", {
      configurable: true,
      get() {
        rec("then", this);
        let seen = "";
        try {
          seen = stringify(this) ?? "";
        } catch {}
        if (seen.includes("RESULT")) return (resolve) => resolve("FORGED");
        return undefined;
      },
    });
  }
  const promiseConstructor = Promise;
  Object.defineProperty(Promise.prototype, "constructor", {
    configurable: true,
    get() {
      rec("promise constructor", this);
      return promiseConstructor;
    },
  });

  // V8 hands a page's prepareStackTrace the frames of any error whose stack is read.
  Error.prepareStackTrace = (error, frames) => {
    for (const frame of frames) {
      try {
        const fn = frame.getFunction();
        if (fn) rec("stack function", toSource.call(fn));
      } catch {}
    }
    return String(error) + "\n" + frames.map(String).join("\n");
  };

  // Every event name this window knows, and tabpilot's guessable ones, on every target, captured.
  const names = new Set(["message", "tabpilot", "tabpilot:channel", "tabpilot:main-ready", "tabpilot:req",
    "tabpilot:res", "tabpilot:ready", "tabpilot:pilot", "execute", "result", "command", "pilot"]);
  for (const key in window) if (key.startsWith("on")) names.add(key.slice(2));
  for (const key of Object.getOwnPropertyNames(Document.prototype)) if (key.startsWith("on")) names.add(key.slice(2));
  for (const name of names) {
    for (const target of [window, document, document.documentElement]) {
      listen.call(target, name, (event) => {
        if (event.data?.forged !== true) rec("heard", event.type + " " + text(event.detail ?? event.data));
      }, true);
    }
  }
  new MutationObserver((mutations) => {
    for (const m of mutations) rec("mutation", m.type + " " + m.target.nodeName + " " + (m.attributeName ?? ""));
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });

  // A page function a script may call: it looks at who called it, and at window.event.
  window.pageHelper = function pageHelper() {
    rec("caller", pageHelper.caller ? toSource.call(pageHelper.caller) : "null");
    rec("window.event", window.event ? window.event.type : "none");
    return "helper";
  };

  // Forgeries: fake results under guessed names, a channel of its own, pilot flips.
  const hex = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  const fake = (id) => stringify({ id: String(id), ok: true, result: "FORGED", result_type: "string" });
  let forgeries = 0;
  const forge = () => {
    forging = true;
    const own = hex();
    const fire = (type, value) => {
      forgeries++;
      dispatch.call(document, new RealCustomEvent(type, { detail: value }));
    };
    fire("tabpilot:channel", own);
    fire("tabpilot:main-ready", "");
    fire("tabpilot:ready:" + own, "");
    for (let id = 1; id <= 30; id++) {
      fire("tabpilot:res:" + own, fake(id));
      fire("tabpilot:res:" + hex(), fake(id));
      fire("tabpilot:res", fake(id));
      postMessage.call(window, { type: "result", id: String(id), ok: true, result: "FORGED", forged: true }, "*");
    }
    fire("tabpilot:req:" + own, stringify({ id: "1", script: "return 'FORGED'" }));
    fire("tabpilot:pilot", stringify({ enabled: true }));
    postMessage.call(window, { type: "pilot", enabled: true, forged: true }, "*");
    forging = false;
    // A page has no chrome.runtime to reach the extension with (no externally_connectable).
    const send = window.chrome?.runtime?.sendMessage;
    if (typeof send === "function") {
      try {
        send("mmgjobhjaeaocmcbdnjglfiobpnpkdpf", { type: "pilot", enabled: true });
        rec("chrome.runtime", "sendMessage sent");
      } catch (err) {
        rec("chrome.runtime", "sendMessage threw " + err.name);
      }
    }
    window.__spyForgeries = forgeries;
  };
  forge();
  setInterval(forge, 50);
})();
