// Isolated-world relay between the service worker and inject.js (docs/protocol.md §2 and §3).
// The page world is reached through DOM events whose names carry a per-load secret; only strings
// cross between the worlds.
(() => {
  "use strict";

  // The service worker injects this file again into tabs it cannot reach, which can include a tab
  // whose earlier copy is orphaned (extension reloaded) or still starting. The newest copy takes
  // over and the previous one stops taking commands, so that exactly one copy answers each message.
  const FLAG = "__tabpilotContent";
  try {
    globalThis[FLAG]?.retire();
  } catch {}

  // The page world never answered the pairing: a CSP `sandbox` without allow-scripts (an opaque
  // origin) runs no script there at all; otherwise the channel was lost. The service worker then
  // re-injects the page-world files or takes another route (worker/tab/script-routes.js); nothing ran.
  const UNREACHABLE = "page_world_unreachable";
  const unreachable = () =>
    failed(UNREACHABLE, "the page world of this tab is not connected to tabpilot; reload the tab and try again", {
      sandboxed: self.origin === "null",
    });
  const doc = document;
  // The manifest runs this in every frame. A child frame answers only what the worker sends to its
  // own port (a ref it gave out, its part of a snapshot); the tab's console log, dialogs and the
  // worker's wake-up stay the top frame's, as before frames were reached.
  const TOP = globalThis === globalThis.top;
  const randomHex = () => {
    const bytes = new Uint8Array(16); // 128 bits
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  };
  const nonce = randomHex();

  let paired = false;
  let sequence = 0;
  const pending = new Map(); // our own request id -> sendResponse; the page never sees daemon ids

  const fire = (type, detail, cancelable = false) => doc.dispatchEvent(new CustomEvent(type, { detail, cancelable }));
  // A page can make its title or url (a data: url, say) many megabytes long; the answer carries
  // them beside the result, so they are cut to a bounded length.
  const MAX_TITLE_CHARS = 1024;
  const MAX_URL_CHARS = 8192;
  const bounded = (text, max) => (text.length > max ? text.slice(0, max - 1) + "\u2026" : text);
  const where = () => ({ url: bounded(location.href, MAX_URL_CHARS), title: bounded(String(doc.title), MAX_TITLE_CHARS) });
  const failed = (code, message, extra) => ({ ok: false, error: { code, message, ...extra }, ...where() });

  // Answered until paired: covers the order where inject.js runs after us.
  const onMainReady = () => {
    if (!paired) fire("tabpilot:channel", nonce);
  };
  // The page world tells us of a dialog the page opens between commands, before the browser shows
  // it: the page's thread then stops until someone answers, so this is the last moment to tell the
  // worker, which reports it to the next command (protocol.md §3, "Dialogs").
  const onDialog = (event) => {
    if (!TOP) return;
    let report;
    try {
      report = JSON.parse(event.detail);
    } catch {
      return;
    }
    if (!report || (report.phase !== "open" && report.phase !== "closed")) return;
    try {
      chrome.runtime
        .sendMessage({ type: "page_dialog", phase: report.phase, dialog_type: String(report.type ?? ""), message: String(report.message ?? "").slice(0, 2000) })
        .catch(() => {});
    } catch {} // an orphaned copy (the extension was reloaded) has no worker to tell
  };
  // The page world's console log (page/page-log.js), in batches: to the worker, or into the answer
  // of the log_flush under way.
  let collecting = null;
  const onLog = (event) => {
    if (retired || !TOP || typeof event.detail !== "string") return;
    if (collecting) {
      collecting.push(event.detail);
      return;
    }
    try {
      chrome.runtime.sendMessage({ type: "page_log", batch: event.detail }).catch(() => {});
    } catch {
      orphan(); // the extension was reloaded or removed: there is no worker to tell, now or later
    }
  };
  const logFlush = (sendResponse) => {
    if (!paired) {
      sendResponse({ ok: true, result: { batches: [] }, ...where() });
      return;
    }
    collecting = [];
    try {
      fire("tabpilot:logflush:" + nonce, ""); // the page world sends what waits, synchronously
    } finally {
      const batches = collecting;
      collecting = null;
      sendResponse({ ok: true, result: { batches }, ...where() });
    }
  };
  const listen = () => {
    doc.addEventListener("tabpilot:log:" + nonce, onLog);
    doc.addEventListener("tabpilot:res:" + nonce, onResult);
    doc.addEventListener("tabpilot:dialog:" + nonce, onDialog);
    if (!paired && !retired) {
      doc.addEventListener("tabpilot:main-ready", onMainReady);
      doc.addEventListener("tabpilot:ready:" + nonce, onReady);
    }
  };
  const onReady = () => {
    paired = true;
    doc.removeEventListener("tabpilot:main-ready", onMainReady);
    doc.removeEventListener("tabpilot:ready:" + nonce, onReady);
    tellLogState();
  };

  // Whether the page world keeps its console log and reads response bodies (page-log.js): only in
  // the top frame (a child frame's log is not kept), while AI Web Pilot is on, and while the
  // extension is there. storage.local is closed to content scripts (worker/link/pilot.js), so the
  // worker says where the switch stands on the wake port below, when it opens and when it flips.
  // Until its first word the page world logs as usual (the worker keeps nothing while the switch is
  // off); "off" also throws away what waits in the page world.
  let pilotOn = null;
  let orphaned = false;
  const tellLogState = () => {
    // A retired copy is no longer in charge: the page world heeds the newest channel only.
    if (!paired || retired) return;
    let state = null;
    if (!TOP || orphaned || pilotOn === false) state = "off";
    else if (pilotOn === true) state = "on";
    if (state !== null) fire("tabpilot:logstate:" + nonce, state);
  };
  const orphan = () => {
    orphaned = true;
    tellLogState();
  };

  const onResult = (event) => {
    let answer;
    try {
      answer = JSON.parse(event.detail);
    } catch {
      return;
    }
    const respond = answer && pending.get(answer.id);
    if (!respond) return;
    event.preventDefault(); // the receipt: inject.js sends it again otherwise (document.open())
    pending.delete(answer.id);
    // Which route ran and the dialogs answered meanwhile travel beside the result (protocol.md §3).
    const extra = {};
    if (typeof answer.route === "string") extra.route = answer.route;
    if (Array.isArray(answer.dialogs)) extra.dialogs = answer.dialogs;
    if (answer.ok === true) {
      respond({ ok: true, result: answer.result ?? null, result_type: answer.result_type, ...extra, ...where() });
    } else if (typeof answer.error?.code === "string") {
      respond({ ok: false, error: answer.error, ...extra, ...where() });
    } else {
      respond(failed("extension_error", "the page world sent a malformed answer; reload the tab and try again"));
    }
  };

  // Hands one request to the page world; onResult answers it.
  const toPage = (fields, sendResponse) => {
    if (!paired) {
      sendResponse(unreachable());
      return;
    }
    const id = String(++sequence);
    pending.set(id, sendResponse);
    const request = JSON.stringify({ id, ...fields });
    // inject.js cancels the event as its receipt; an uncancelled one went unheard (document.open()
    // drops the page's listeners), and waiting for an answer would only end in a timeout.
    const heard = !fire("tabpilot:req:" + nonce, request, true);
    if (!heard && pending.delete(id)) sendResponse(unreachable());
  };

  const execute = (message, sendResponse) => {
    // A command that waited here behind a busy page (a long loop, say) past its deadline was
    // answered execution_timeout already; starting it now would run it after its caller was told
    // it did not, and a retry would run it twice.
    if (typeof message.deadline === "number" && Date.now() > message.deadline) {
      sendResponse(failed("execution_timeout", "The script was not started: its deadline passed while the tab was busy.", { dropped: true }));
      return;
    }
    const fields = {
      script: message.script,
      timeout_ms: message.timeout_ms,
      await_promise: message.await_promise !== false,
      dialog: message.dialog,
      prompt_text: message.prompt_text,
      deadline: message.deadline,
    };
    if (typeof message.ref === "string") executeOnElement(message.ref, fields, sendResponse);
    else toPage(fields, sendResponse);
  };

  // ---- The page tools (refs.js, snapshot.js, read.js): they answer here, in the
  // isolated world, where the ref map lives. A ref that does not resolve is answered with its code.
  const refFailure = (err) =>
    typeof err?.code === "string" && err instanceof Error && err.data
      ? failed(err.code, err.message, { data: err.data })
      : failed("extension_error", `tabpilot could not read the page: ${err?.message ?? err}`);

  const pageTool = (work, sendResponse) => {
    Promise.resolve()
      .then(work)
      .then(
        (result) => sendResponse({ ok: true, result, ...where() }),
        (err) => sendResponse(refFailure(err)),
      );
  };

  // Where the page world refuses code, the worker's other routes find the element by its path.
  const PATH_CODES = new Set(["csp_blocked", UNREACHABLE]);

  // execute_javascript with a ref: the element goes to the page world without the ref map. The
  // request names a one-time event; inject.js listens for it on the document, and the event is
  // then dispatched on each frame and shadow host on the way (inject.js follows each inward),
  // then on the element. Each dispatch is synchronous, so inject.js holds the element before the
  // request runs (a promise job later). A listener's cancel is its receipt.
  const executeOnElement = (ref, fields, sendResponse) => {
    const refs = globalThis.__tabpilotRefs;
    let element;
    try {
      element = refs.resolveRef(ref);
    } catch (err) {
      sendResponse(refFailure(err));
      return;
    }
    const target = "tabpilot:el:" + randomHex();
    const answer = (result) => {
      if (result?.ok === false && PATH_CODES.has(result.error?.code)) result.error = { ...result.error, path: refs.pathTo(element) };
      sendResponse(result);
    };
    toPage({ ...fields, target }, answer);
    const hand = (node, detail) => node.dispatchEvent(new CustomEvent(target, { detail, cancelable: true, bubbles: false, composed: false }));
    for (const host of refs.hostsOf(element)) hand(host, "host");
    hand(element, "element");
  };

  // A ping runs nothing: it answers here, or crosses to the page world and back.
  const ping = (message, sendResponse) => {
    if (message.to === "page") toPage({ ping: true }, sendResponse);
    else sendResponse({ ok: true, result: "pong", result_type: "string", ...where() });
  };

  // A content tool's result, or its refusal with the refusal's own code: browser_act's (act.js)
  // and each family's own (content/<family>.js, registered in globalThis.__tabpilotContentTools:
  // type -> (message) => result or a promise of it; a refusal is an Error with a string `code`
  // and optional `data`).
  const familyTool = (tool, message, sendResponse) => {
    Promise.resolve()
      .then(() => tool(message))
      .then(
        (result) => sendResponse({ ok: true, result: result ?? null, ...where() }),
        (err) => {
          const code = typeof err?.code === "string" ? err.code : "extension_error";
          sendResponse(failed(code, String(err?.message ?? err), err?.data === undefined ? undefined : { data: err.data }));
        },
      );
  };

  // browser_act's DOM route, and where the debugger route aims (act.js).
  const act = (message, sendResponse) => {
    const tool = globalThis.__tabpilotAct;
    familyTool(message.type === "act" ? tool.run : tool.locate, message, sendResponse);
  };

  const dispatch = (message, sendResponse) => {
    const type = message?.type;
    switch (type) {
      case "execute":
        execute(message, sendResponse);
        break;
      // A ping runs nothing. The worker also sends one before a command to a tab whose earlier
      // script timed out: this relay shares the page's main thread, so an answer means it is free.
      case "ping":
        ping(message, sendResponse);
        break;
      case "act":
      case "locate":
        act(message, sendResponse);
        break;
      case "snapshot":
        pageTool(() => globalThis.__tabpilotSnapshot.snapshot(message), sendResponse);
        break;
      case "read":
        pageTool(() => globalThis.__tabpilotRead.read(message), sendResponse);
        break;
      case "log_flush":
        logFlush(sendResponse);
        break;
      default: {
        const tools = globalThis.__tabpilotContentTools;
        if (typeof type === "string" && tools && Object.hasOwn(tools, type)) {
          familyTool(tools[type], message, sendResponse);
          break;
        }
        console.warn("tabpilot: unknown message type", type);
        sendResponse(failed("extension_error", `unknown message type ${type}`));
      }
    }
  };

  // The service worker keeps one port to this page (protocol.md §2); each request carries a `seq`
  // that its answer repeats. An answer for a port that closed meanwhile has nowhere to go.
  const onConnect = (port) => {
    if (port.name !== "tabpilot") return;
    // Before any answer: tells the worker that what it posts on this port reaches this page.
    port.postMessage({ reached: true });
    port.onMessage.addListener((request) => {
      const seq = request?.seq;
      dispatch(request?.message, (answer) => {
        try {
          port.postMessage({ seq, answer });
        } catch (err) {
          // Too large for Chrome's 64 MiB message limit, or not cloneable: the worker must still
          // hear that the command ended. A port that closed meanwhile throws again, harmlessly.
          try {
            port.postMessage({ seq, answer: failed("result_too_large", `The answer could not be sent back: ${err?.message ?? err}. Return less.`) });
          } catch {}
        }
      });
    });
  };

  // Chrome stops the service worker when it idles, or when told to; the port to it closes then, and
  // opening a new one starts the worker again at once. Without this, a stopped worker comes back
  // only at its 30 s alarm, and every command meanwhile fails with extension_not_connected. The
  // worker posts the pilot switch on it: {pilot: true | false}.
  const WAKE_MIN_MS = 100;
  const WAKE_MAX_MS = 30_000;
  let wakePort = null;
  let wakeDelay = WAKE_MIN_MS;
  let retired = false;
  const holdWorker = () => {
    if (retired || !TOP) return;
    const opened = Date.now();
    try {
      wakePort = chrome.runtime.connect({ name: "tabpilot-wake" });
    } catch {
      orphan(); // the extension was reloaded or removed: this copy is orphaned
      return;
    }
    wakePort.onMessage.addListener((message) => {
      if (typeof message?.pilot !== "boolean") return;
      pilotOn = message.pilot;
      tellLogState();
    });
    wakePort.onDisconnect.addListener(() => {
      void chrome.runtime.lastError; // read, so Chrome does not log it as unchecked
      wakePort = null;
      // A worker that keeps closing the port at once must not be woken in a tight loop.
      wakeDelay = Date.now() - opened < 1000 ? Math.min(wakeDelay * 2, WAKE_MAX_MS) : WAKE_MIN_MS;
      setTimeout(holdWorker, wakeDelay);
    });
  };

  const retire = () => {
    retired = true;
    try {
      wakePort?.disconnect();
    } catch {}
    doc.removeEventListener("tabpilot:main-ready", onMainReady);
    chrome.runtime.onConnect.removeListener(onConnect);
    // The answer listener and open ports stay, so that requests already under way get their answer.
  };

  globalThis[FLAG] = Object.freeze({ retire });
  listen();
  // document.open() (document.write() after load calls it) erases every listener on the document,
  // ours included, so the answer to a script that wrote the page would be lost. It also empties the
  // document, which this observer sees; adding the same listener again is a no-op otherwise.
  new MutationObserver(listen).observe(doc, { childList: true });
  chrome.runtime.onConnect.addListener(onConnect);
  fire("tabpilot:channel", nonce);
  holdWorker();
})();
