// The routes a script can take when the page world refuses it (docs/protocol.md §4, "Routes"):
// the page's Content-Security-Policy forbids code from strings, or the page world cannot run
// scripts at all (a CSP `sandbox` without allow-scripts). In order:
//   1. "user_scripts": chrome.userScripts.execute, in the extension's USER_SCRIPT world, whose CSP
//      tabpilot sets to allow eval. It shares the page's DOM, not its JavaScript globals. Needs the
//      person to turn on "Allow User Scripts" for tabpilot (Chrome 135+).
//   2. "debugger": chrome.debugger Runtime.evaluate in the page's own world (debugger.js says when
//      it is allowed).
// Both run the same executor and serializer as the page world, so a result, an error code and a
// timeout read the same whichever route ran.
import { DEBUGGER_SWITCH } from "./debugger.js";
import { CommandError } from "../link/errors.js";
import { EXECUTOR_FILES } from "./page-scripts.js";
import { tabInfo } from "./tabs.js";

const USER_SCRIPT_CSP = "script-src 'self' 'unsafe-eval'; object-src 'self'";
// Longest answer, as in inject.js and the daemon's protocol.py.
const MAX_RESULT_CHARS = 16 * 1024 * 1024;
const TERMINATE_MARGIN_MS = 50;

export const USER_SCRIPTS_SETTING = '"Allow User Scripts" for tabpilot (chrome://extensions, tabpilot, Details)';

// Runs in the other world, so it may use nothing from this module: it is sent as its source text.
// `libs` holds what the libraries (page-scripts.js EXECUTOR_FILES) exported there. Answers the JSON
// text of an answer shaped like inject.js's. Dialogs raised in the user-script world are answered
// here; in the page's world the debugger reports them (dialogs.js).
function runInWorld(request, libs) {
  const { execute } = libs.__tabpilotExecutor;
  const { serialize } = libs.__tabpilotSerialize;
  const dialogs = [];
  const accept = request.dialog === "accept";
  const answers = {
    alert: () => undefined,
    confirm: () => accept,
    prompt: (_message, value) =>
      accept ? (typeof request.prompt_text === "string" ? request.prompt_text : String(value ?? "")) : null,
  };
  const saved = {};
  if (request.world === "user_script") {
    for (const type of Object.keys(answers)) {
      saved[type] = globalThis[type];
      globalThis[type] = (message, value) => {
        const answer = answers[type](message, value);
        const record = { type, message: String(message ?? ""), action: accept ? "accepted" : "dismissed" };
        if (type === "prompt" && accept) record.text = answer;
        dialogs.push(record);
        return answer;
      };
    }
  }
  const restore = () => {
    for (const type of Object.keys(saved)) globalThis[type] = saved[type];
  };
  const encode = (answer) => {
    if (dialogs.length > 0) answer.dialogs = dialogs;
    let json;
    try {
      json = JSON.stringify(answer);
    } catch (err) {
      json = JSON.stringify({
        ok: false,
        error: { code: "extension_error", message: "the result could not be encoded as JSON: " + err.message },
      });
    }
    if (json.length > request.max_chars) {
      json = JSON.stringify({
        ok: false,
        error: {
          code: "result_too_large",
          message:
            `The script ran, but its result is ${json.length} characters of JSON, more than the ` +
            `${request.max_chars} a result may have. Return less: a slice, a count or a summary.`,
        },
      });
    }
    return json;
  };
  const options = { awaitPromise: request.await_promise !== false, timeoutMs: request.timeout_ms };
  // execute_javascript with a ref: the element, found by the path content.js gave (its pathTo).
  if (Array.isArray(request.path)) {
    let node = globalThis.document;
    for (const step of request.path) {
      if (!node) break;
      node = step === "shadow" ? node.shadowRoot : step === "frame" ? node.contentDocument : node.children[step];
    }
    if (!node) {
      restore();
      return encode({
        ok: false,
        error: {
          code: "stale_ref",
          message: "The element with that ref is no longer in the page. Take a new snapshot and use its refs.",
        },
      });
    }
    options.callWith = [node];
  }
  return execute(request.script, options).then(
    (outcome) => {
      restore();
      if (!outcome.ok) return encode({ ok: false, error: outcome.error });
      const { result, result_type } = serialize(outcome.value);
      return encode({ ok: true, result, result_type });
    },
    (err) => {
      restore();
      return encode({
        ok: false,
        error: {
          code: "extension_error",
          message: "tabpilot could not run the script: " + String(err?.message ?? err),
        },
      });
    },
  );
}

// The global the libraries see when their text runs in the page's own world: reads go to the real
// global, their exports stay in a private record, so the page never sees them on `window`.
const SHADOW_GLOBAL = `((real) => {
  const own = Object.create(null);
  return new Proxy(real, {
    get: (target, key) => (key in own ? own[key] : Reflect.get(target, key)),
    set: (target, key, value) => ((own[key] = value), true),
  });
})(globalThis)`;

export function createRoutes({ chrome, debug, fetch, now = Date.now }) {
  let libText = null;
  let worldConfigured = null;

  // The library files' text, read once from the extension's own package.
  function libraries() {
    libText ??= Promise.all(
      EXECUTOR_FILES.map((file) => fetch(chrome.runtime.getURL(file)).then((r) => r.text())),
    )
      .then((texts) => texts.join("\n;\n"))
      .catch((err) => {
        libText = null;
        throw err;
      });
    return libText;
  }

  const userScriptsAvailable = () => typeof chrome.userScripts?.execute === "function";

  function requestFor(params, world) {
    return {
      script: params.script,
      timeout_ms: params.timeout_ms,
      await_promise: params.await_promise !== false,
      dialog: params.dialog === "accept" ? "accept" : "dismiss",
      prompt_text: typeof params.prompt_text === "string" ? params.prompt_text : null,
      max_chars: MAX_RESULT_CHARS,
      world,
      path: Array.isArray(params.path) ? params.path : null,
    };
  }

  function parseAnswer(text, route) {
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = null;
    }
    if (!answer || typeof answer !== "object" || typeof answer.ok !== "boolean") {
      throw new CommandError(
        "extension_error",
        `The ${route} route gave no readable answer; the page may have navigated. Retry once it has loaded.`,
      );
    }
    answer.route = route;
    return answer;
  }

  async function viaUserScripts(tab, params) {
    worldConfigured ??= Promise.resolve(chrome.userScripts.configureWorld({ csp: USER_SCRIPT_CSP })).catch((err) => {
      worldConfigured = null;
      throw err;
    });
    await worldConfigured;
    const request = requestFor(params, "user_script");
    const results = await chrome.userScripts.execute({
      target: { tabId: tab.id, frameIds: [0] },
      js: [
        ...EXECUTOR_FILES.map((file) => ({ file })),
        { code: `(${runInWorld})(${JSON.stringify(request)}, globalThis)` },
      ],
      world: "USER_SCRIPT",
      injectImmediately: true,
    });
    return parseAnswer(results?.[0]?.result, "user_scripts");
  }

  async function viaDebugger(tab, params) {
    const request = requestFor(params, "main");
    const run = `return (${runInWorld})(${JSON.stringify(request)}, globalThis);`;
    const expression = `(function (globalThis) {\n${await libraries()}\n;\n${run}\n})(${SHADOW_GLOBAL})`;
    const started = now();
    const timeout = Math.max(1, params.timeout_ms - TERMINATE_MARGIN_MS);
    const stopped = () =>
      new CommandError(
        "execution_timeout",
        `The script did not finish within ${params.timeout_ms} ms and was stopped; the tab is free again. ` +
          "Narrow the script or raise timeout_ms.",
        { tab: tabInfo(tab) },
      );
    let evaluated;
    try {
      evaluated = await debug.send(tab.id, "Runtime.evaluate", {
        expression,
        awaitPromise: true,
        returnByValue: true,
        userGesture: true,
        // Stops a synchronous endless loop, which the page world cannot do; the tab stays usable.
        // A little before the worker's own timer, so that the caller hears it was stopped.
        timeout,
      });
    } catch (err) {
      // Chrome answers a stopped evaluation with "Execution was terminated", or with a bare
      // "Internal error" once the timeout has passed.
      const message = String(err?.message ?? err);
      if (/terminated/i.test(message) || (/Internal error/i.test(message) && now() - started >= timeout))
        throw stopped();
      if (err instanceof CommandError) throw err;
      throw new CommandError("extension_error", `The debugger route failed: ${message}`, { tab: tabInfo(tab) });
    }
    if (evaluated?.exceptionDetails) {
      const text = String(evaluated.exceptionDetails.exception?.description ?? evaluated.exceptionDetails.text ?? "");
      if (/Execution was terminated/i.test(text)) throw stopped();
      throw new CommandError("extension_error", `The debugger route failed: ${text || "no detail"}`, {
        tab: tabInfo(tab),
      });
    }
    // Dialogs the script raises here stop the page; the debugger reports them to dialogs.js, and
    // the command's watch answers them.
    return parseAnswer(evaluated?.result?.value, "debugger");
  }

  // The answer of the first route allowed here, or csp_blocked saying what would let it run.
  // `blocked` is the page world's refusal: {code, message, directive?, sandboxed?}.
  async function fallback(tab, params, blocked) {
    const failures = [];
    if (userScriptsAvailable()) {
      try {
        return await viaUserScripts(tab, params);
      } catch (err) {
        if (err instanceof CommandError) throw err;
        failures.push(`chrome.userScripts failed (${err?.message ?? err})`);
      }
    }
    await debug.reload();
    if (debug.allowed()) return viaDebugger(tab, params);
    throw blockedError(tab, blocked, failures);
  }

  function blockedError(tab, blocked, failures) {
    // The page world names the directive; else Chrome's own words do ('…directive: "script-src …"').
    const said = String(blocked?.message ?? "");
    const directive =
      blocked?.directive ?? (/directive:? "([^"]+)"/.exec(said) ?? /source of script: ([^\n]+?)\.?$/m.exec(said))?.[1];
    const why = blocked?.sandboxed
      ? "its Content-Security-Policy `sandbox` lets no script run in the page"
      : `its Content-Security-Policy forbids running code from strings${directive ? ` (\`${directive}\`)` : ""}`;
    const ways = userScriptsAvailable()
      ? `turn on ${DEBUGGER_SWITCH} in the tabpilot popup`
      : `turn on ${USER_SCRIPTS_SETTING}, or ${DEBUGGER_SWITCH} in the tabpilot popup`;
    return new CommandError(
      "csp_blocked",
      `The page in tab ${tab.id} refused the script: ${why}, so nothing ran. To run scripts on such pages, ${ways}.` +
        (failures.length ? ` (${failures.join("; ")})` : ""),
      { tab: tabInfo(tab) },
    );
  }

  return { fallback };
}
