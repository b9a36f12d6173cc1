// The routes after the page world (background/routes.js), the debugger's switch (debugger.js) and
// dialogs left open (dialogs.js), through commands.run as the daemon's frames reach them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, realTimers, tick } from "./support/fake-chrome.js";
import { EXECUTOR_FILES, ISOLATED_WORLD_FILES, MAIN_WORLD_FILES } from "./support/page-files.js";

const PAGE = { id: 7, url: "https://strict.example/", title: "Strict", active: true, windowId: 1 };
const WHERE = { url: PAGE.url, title: "Strict" };
const CSP = { ok: false, error: { code: "csp_blocked", message: "refused", directive: "script-src 'self'" }, route: "page", ...WHERE };

function event() {
  const listeners = [];
  return { listeners, addListener: (fn) => listeners.push(fn), emit: (...a) => listeners.forEach((fn) => fn(...a)) };
}

// chrome.userScripts and chrome.debugger as Chrome offers them, recording what they were asked.
function withRoutes(chrome, { userScripts = false, debuggerApi = true, evaluate, dialogShowing = false } = {}) {
  const calls = { userScripts: [], configure: [], debugger: [], detach: [] };
  if (userScripts) {
    chrome.userScripts = {
      async configureWorld(details) {
        calls.configure.push(details);
      },
      async execute(details) {
        calls.userScripts.push(details);
        return [{ frameId: 0, result: JSON.stringify({ ok: true, result: 3, result_type: "number" }) }];
      },
    };
  }
  if (debuggerApi) {
    chrome.debugger = {
      onDetach: event(),
      onEvent: event(),
      async attach(target, version) {
        calls.debugger.push(["attach", target.tabId, version]);
      },
      async detach(target) {
        calls.detach.push(target.tabId);
      },
      async sendCommand(target, method, params) {
        calls.debugger.push([method, target.tabId, params]);
        if (method === "Runtime.evaluate") return evaluate(params);
        if (method === "Page.handleJavaScriptDialog" && !dialogShowing) throw new Error('{"code":-32602,"message":"No dialog is showing"}');
        return {};
      },
    };
  }
  return calls;
}

function setup({ onSend = () => CSP, storage = {}, managed = null, ...options } = {}) {
  const { chrome, fetch: fetchManaged } = fakeChrome({ tabs: [PAGE], onSend, storage });
  const calls = withRoutes(chrome, {
    evaluate: () => ({ result: { type: "string", value: JSON.stringify({ ok: true, result: 2, result_type: "number" }) } }),
    ...options,
  });
  // The extension's own files: managed.json when given, and the two libraries the debugger sends.
  const fetch = async (url) => {
    if (url.endsWith("/managed.json")) return managed ? { ok: true, json: async () => managed } : fetchManaged(url);
    return { ok: true, text: async () => `/* ${url.split("/").pop()} */` };
  };
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  const commands = createCommands({ chrome, pilot, timers: realTimers, fetch, managed: Promise.resolve(managed ?? {}), now: () => 1000 });
  return { chrome, commands, calls };
}

const execute = (params = {}) => ({
  type: "command",
  id: "r1",
  command: "execute_javascript",
  params: { script: "1 + 1", timeout_ms: 1000, await_promise: true, tab_id: null, ...params },
});

test("with no other route allowed, csp_blocked names the directive and both ways to allow one", async () => {
  const { commands, calls } = setup({ debuggerApi: true });
  const result = await commands.run(execute());
  assert.equal(result.ok, false);
  assert.equal(result.error.code, "csp_blocked");
  assert.match(result.error.message, /script-src 'self'/);
  assert.match(result.error.message, /Allow User Scripts/);
  assert.match(result.error.message, /Strict pages: allow the debugger/);
  assert.deepEqual(calls.debugger, [], "the debugger is never attached while its switch is off");
});

test("a sandboxed page that runs no script says so", async () => {
  const sandboxed = { ok: false, error: { code: "page_world_unreachable", message: "x", sandboxed: true }, ...WHERE };
  const { chrome, commands } = setup({ onSend: () => sandboxed });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "csp_blocked");
  assert.match(result.error.message, /sandbox/);
  assert.deepEqual(chrome.calls.executeScript, [], "a sandboxed page is not injected again");
});

test("a lost page-world channel is injected again and the script sent once more", async () => {
  let sends = 0;
  const lost = { ok: false, error: { code: "page_world_unreachable", message: "x", sandboxed: false }, ...WHERE };
  const { chrome, commands } = setup({ onSend: () => (++sends === 1 ? lost : { ok: true, result: 2, result_type: "number", route: "page", ...WHERE }) });
  const result = await commands.run(execute());
  assert.equal(result.ok, true);
  assert.equal(result.route, "page");
  assert.equal(sends, 2);
  assert.deepEqual(chrome.calls.executeScript.map((d) => [d.world, d.files]), [
    ["MAIN", MAIN_WORLD_FILES],
    ["ISOLATED", ISOLATED_WORLD_FILES],
  ]);
});

test("with user scripts allowed, the script runs in the USER_SCRIPT world, whose CSP allows eval", async () => {
  const { commands, calls } = setup({ userScripts: true });
  const result = await commands.run(execute({ dialog: "accept", prompt_text: "yes" }));
  assert.equal(result.ok, true);
  assert.equal(result.result, 3);
  assert.equal(result.route, "user_scripts");
  assert.match(calls.configure[0].csp, /'unsafe-eval'/);
  const [details] = calls.userScripts;
  assert.equal(details.world, "USER_SCRIPT");
  assert.deepEqual(details.target, { tabId: 7, frameIds: [0] });
  assert.deepEqual(details.js.slice(0, 5), EXECUTOR_FILES.map((file) => ({ file })));
  assert.match(details.js[5].code, /"script":"1 \+ 1"/);
  assert.match(details.js[5].code, /"dialog":"accept","prompt_text":"yes"/);
});

test("the debugger route runs once the person turned its switch on, and says so", async () => {
  const { commands, calls } = setup({ storage: { debuggerEnabled: true } });
  const result = await commands.run(execute());
  assert.equal(result.ok, true);
  assert.equal(result.result, 2);
  assert.equal(result.route, "debugger");
  assert.deepEqual(calls.debugger[0], ["attach", 7, "1.3"]);
  assert.equal(calls.debugger[1][0], "Page.enable");
  const [method, tabId, params] = calls.debugger[2];
  assert.equal(method, "Runtime.evaluate");
  assert.equal(tabId, 7);
  assert.equal(params.returnByValue, true);
  assert.ok(params.timeout > 0 && params.timeout < 1000, "the debugger stops a loop before the worker's timer fires");
  assert.match(params.expression, /serialize\.js \*\/[\s\S]*executor\.js \*\//);
});

test("the managed browser may use the debugger without the switch", async () => {
  const { commands } = setup({ managed: { managed: true, pilot_default: true } });
  const result = await commands.run(execute());
  assert.equal(result.route, "debugger");
});

test("turning the switch off lets go of every tab the debugger holds", async () => {
  const { chrome, commands, calls } = setup({ storage: { debuggerEnabled: true } });
  await commands.run(execute());
  await chrome.storage.local.set({ debuggerEnabled: false });
  assert.deepEqual(calls.detach, [7]);
  const result = await commands.run(execute());
  assert.equal(result.error.code, "csp_blocked");
});

test("a loop the debugger stopped answers execution_timeout, saying the tab is free", async () => {
  const { commands } = setup({
    storage: { debuggerEnabled: true },
    evaluate: () => ({ exceptionDetails: { text: "Uncaught", exception: { description: "Error: Execution was terminated" } } }),
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "execution_timeout");
  assert.match(result.error.message, /stopped; the tab is free again/);
});

test("a dialog the page left open fails the next command with dialog_open where only a person can answer", async () => {
  const { commands } = setup({ onSend: () => ({ ok: true, result: 1, result_type: "number", ...WHERE }) });
  commands.dialogs.report(7, { phase: "open", dialog_type: "alert", message: "Saved!" });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "dialog_open");
  assert.match(result.error.message, /alert dialog \("Saved!"\)/);
  commands.dialogs.report(7, { phase: "closed", dialog_type: "alert" });
  assert.equal((await commands.run(execute())).ok, true);
});

test("where the debugger holds the tab, the next command answers a dialog left open and reports it", async () => {
  const { commands, calls } = setup({ storage: { debuggerEnabled: true }, dialogShowing: true });
  assert.equal((await commands.run(execute())).route, "debugger"); // the strict page: now held
  commands.dialogs.report(7, { phase: "open", dialog_type: "prompt", message: "Name?" });
  const result = await commands.run(execute({ dialog: "accept", prompt_text: "Ada" }));
  assert.equal(result.ok, true);
  assert.deepEqual(result.dialogs, [{ type: "prompt", message: "Name?", action: "accepted", before: true, text: "Ada" }]);
  assert.deepEqual(calls.debugger.find(([method]) => method === "Page.handleJavaScriptDialog"), [
    "Page.handleJavaScriptDialog", 7, { accept: true, promptText: "Ada" },
  ]);
});

test("a dialog the debugger sees is recorded like the page world's report", async () => {
  const { chrome, commands } = setup({ managed: { managed: true }, dialogShowing: true });
  assert.equal((await commands.run(execute())).route, "debugger");
  chrome.debugger.onEvent.emit({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "alert", message: "Hi", defaultPrompt: "" });
  const result = await commands.run(execute());
  assert.deepEqual(result.dialogs, [{ type: "alert", message: "Hi", action: "dismissed", before: true }]);
});

test("a dialog the page opens while a script runs fails it at once where only a person can answer", async () => {
  let release;
  const { commands } = setup({ onSend: () => new Promise((resolve) => (release = resolve)) });
  const pending = commands.run(execute({ timeout_ms: 5000 }));
  await tick();
  await tick();
  commands.dialogs.report(7, { phase: "open", dialog_type: "confirm", message: "Leave?" });
  const result = await pending;
  assert.equal(result.error.code, "dialog_open");
  assert.match(result.error.message, /raised while the script ran/);
  release({ ok: true, result: 1, result_type: "number", ...WHERE });
});

test("a report of a dialog already answered does not fail the next command in a held tab", async () => {
  const { commands } = setup({ storage: { debuggerEnabled: true }, dialogShowing: false });
  assert.equal((await commands.run(execute())).route, "debugger"); // the strict page: now held
  commands.dialogs.report(7, { phase: "open", dialog_type: "alert", message: "late report" });
  const result = await commands.run(execute());
  assert.equal(result.ok, true);
  assert.equal(result.dialogs, undefined);
  // Nor the one after: the stale report is gone.
  assert.equal((await commands.run(execute())).ok, true);
});
