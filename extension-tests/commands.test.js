// Command routing: each outcome of execute_javascript and list_tabs, as result frames.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, NO_RECEIVER, realTimers, tick } from "./support/fake-chrome.js";
import { ISOLATED_WORLD_FILES, MAIN_WORLD_FILES } from "./support/page-files.js";

const PAGE = { id: 7, url: "http://127.0.0.1:8000/page.html", title: "Page", active: true, windowId: 1 };
const answer42 = { ok: true, result: 42, result_type: "number", url: PAGE.url, title: "Page" };

function setup({ pilotOn = true, ...options } = {}) {
  const { chrome } = fakeChrome({ tabs: [PAGE], ...options });
  const pilot = { ready: Promise.resolve(), isEnabled: () => pilotOn };
  const commands = createCommands({ chrome, pilot, timers: realTimers, now: () => 1000 });
  return { chrome, commands };
}

const execute = (params = {}, id = "r1") => ({
  type: "command",
  id,
  command: "execute_javascript",
  params: { script: "2 + 2", timeout_ms: 1000, await_promise: true, tab_id: null, ...params },
});

test("a script that runs gives ok with result, result_type and the tab", async () => {
  const { chrome, commands } = setup({ onSend: () => answer42 });
  const result = await commands.run(execute());
  assert.deepEqual(result, {
    type: "result",
    id: "r1",
    ok: true,
    result: 42,
    result_type: "number",
    tab: { id: 7, url: PAGE.url, title: "Page" },
    route: "page",
  });
  assert.deepEqual(chrome.calls.delivered, [
    {
      tabId: 7,
      message: {
        type: "execute",
        id: "r1",
        script: "2 + 2",
        timeout_ms: 1000,
        await_promise: true,
        dialog: "dismiss",
        prompt_text: null,
        deadline: 2000,
      },
      options: { frameId: 0 },
    },
  ]);
});

test("an error from the page keeps its code, message, stack and the tab", async () => {
  const { commands } = setup({
    onSend: () => ({ ok: false, error: { code: "execution_error", message: "test error", stack: "Error: test error\n at x" }, url: PAGE.url, title: "Page" }),
  });
  const result = await commands.run(execute());
  assert.equal(result.ok, false);
  assert.deepEqual(result.error, { code: "execution_error", message: "test error", stack: "Error: test error\n at x" });
  assert.deepEqual(result.tab, { id: 7, url: PAGE.url, title: "Page" });
});

test("without url and title from the page, the tab comes from chrome.tabs.get", async () => {
  const { commands } = setup({ onSend: () => ({ ok: true, result: null, result_type: "undefined" }) });
  const result = await commands.run(execute());
  assert.deepEqual(result.tab, { id: 7, url: PAGE.url, title: "Page" });
  assert.equal(result.result_type, "undefined");
});

test("pilot off refuses with pilot_disabled and never touches a tab", async () => {
  const { chrome, commands } = setup({ pilotOn: false, onSend: () => answer42 });
  for (const frame of [execute(), { type: "command", id: "r2", command: "list_tabs", params: {} }]) {
    const result = await commands.run(frame);
    assert.equal(result.ok, false);
    assert.equal(result.error.code, "pilot_disabled");
    assert.match(result.error.message, /AI Web Pilot/);
    assert.match(result.error.message, /popup/);
  }
  assert.equal(chrome.calls.delivered.length, 0);
});

test("a tab_id that does not exist gives tab_not_found", async () => {
  const { commands } = setup({ onSend: () => answer42 });
  const result = await commands.run(execute({ tab_id: 999 }));
  assert.equal(result.error.code, "tab_not_found");
  assert.match(result.error.message, /999/);
});

test("no active tab gives no_target_tab", async () => {
  const { commands } = setup({ tabs: [{ ...PAGE, active: false }], lastFocused: false });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "no_target_tab");
});

test("with no last focused window, the active tab of a normal window is used", async () => {
  const { commands } = setup({ lastFocused: false, onSend: () => answer42 });
  const result = await commands.run(execute());
  assert.equal(result.ok, true);
  assert.equal(result.tab.id, 7);
});

for (const url of ["chrome://settings/", "chrome-extension://abc/popup.html", "about:blank", ""]) {
  test(`a tab showing ${JSON.stringify(url)} gives tab_not_scriptable naming the url`, async () => {
    const { chrome, commands } = setup({ tabs: [{ ...PAGE, url }], onSend: () => answer42 });
    const result = await commands.run(execute());
    assert.equal(result.error.code, "tab_not_scriptable");
    if (url) assert.ok(result.error.message.includes(url));
    assert.match(result.error.message, /tab_id/);
    // What it advises, the tools can do: browser_navigate opens http and https, not file:.
    assert.match(result.error.message, /Open an http or https page in it with browser_navigate/);
    assert.doesNotMatch(result.error.message, /file/);
    assert.equal(chrome.calls.delivered.length, 0);
  });
}

test("a tab that never answers gives execution_timeout in about timeout_ms", async () => {
  const { commands } = setup({ onSend: () => new Promise(() => {}) });
  const started = Date.now();
  const result = await commands.run(execute({ timeout_ms: 50 }));
  const elapsed = Date.now() - started;
  assert.equal(result.error.code, "execution_timeout");
  assert.match(result.error.message, /^The script did not finish within 50 ms\. Narrow the script or raise timeout_ms/);
  assert.equal(result.tab.id, 7);
  assert.ok(elapsed >= 45 && elapsed < 1000, `took ${elapsed} ms`);
});

test("a late answer after the timeout is dropped, and frees the tab for the next command", async () => {
  let answerLate;
  const { chrome, commands } = setup({
    onSend: (_tab, message, _options, attempt) => {
      if (message.type === "ping") return { ok: true, result: "pong", result_type: "string" };
      return attempt === 1 ? new Promise((resolve) => (answerLate = resolve)) : answer42;
    },
  });
  const result = await commands.run(execute({ timeout_ms: 20 }));
  assert.equal(result.error.code, "execution_timeout");
  answerLate({ ...answer42, result: "late" });
  await new Promise((resolve) => setImmediate(resolve)); // the late answer's promise jobs run
  // The late answer went nowhere: the next command gets its own answer, and is sent at once,
  // without the probe a tab still busy with a timed-out script gets first.
  const next = await commands.run(execute({}, "r2"));
  assert.deepEqual([next.id, next.ok, next.result], ["r2", true, 42]);
  assert.deepEqual(chrome.calls.delivered.map((d) => d.message.type), ["execute", "execute"]);
});

test("until the late answer comes, the next command probes the tab first", async () => {
  const { chrome, commands } = setup({
    onSend: (_tab, message, _options, attempt) => {
      if (message.type === "ping") return { ok: true, result: "pong", result_type: "string" };
      return attempt === 1 ? new Promise(() => {}) : answer42;
    },
  });
  assert.equal((await commands.run(execute({ timeout_ms: 20 }))).error.code, "execution_timeout");
  const next = await commands.run(execute({}, "r2"));
  assert.equal(next.result, 42);
  assert.deepEqual(chrome.calls.delivered.map((d) => d.message.type), ["execute", "ping", "execute"]);
});

test("'Receiving end does not exist' injects MAIN then ISOLATED, looks for frames without them, then sends exactly once more", async () => {
  const { chrome, commands } = setup({
    onSend: (_tab, _msg, _opt, attempt) => {
      if (attempt === 1) throw new Error(NO_RECEIVER);
      return answer42;
    },
  });
  const result = await commands.run(execute());
  assert.equal(result.ok, true);
  assert.equal(result.result, 42);
  assert.equal(chrome.calls.delivered.length, 2);
  assert.deepEqual(
    chrome.calls.executeScript.map((d) => ({ world: d.world, files: d.files, target: d.target })),
    [
      { world: "MAIN", files: MAIN_WORLD_FILES, target: { tabId: 7, frameIds: [0] } },
      { world: "ISOLATED", files: ISOLATED_WORLD_FILES, target: { tabId: 7, frameIds: [0] } },
      { world: "ISOLATED", files: undefined, target: { tabId: 7, allFrames: true } },
    ],
  );
});

// A page loaded while the pilot was off has no content script in any frame; the first command
// gives them to every frame that lacks them, since a snapshot reaches each frame by its own port.
// `frames` maps each frameId to whether its content script is there; `refuses` is a frame that
// refuses the files. Answers the worlds and frames injected, and the command's result.
async function firstCommandIn(frames, refuses = null) {
  const { chrome, commands } = setup({
    onSend: (_tab, _msg, _opt, attempt) => {
      if (attempt === 1) throw new Error(NO_RECEIVER);
      return answer42;
    },
  });
  const inject = chrome.scripting.executeScript;
  chrome.scripting.executeScript = async (details) => {
    await inject(details);
    if (details.func) return Object.entries(frames).map(([frameId, has]) => ({ frameId: Number(frameId), result: has }));
    if (details.target.frameIds.includes(refuses)) throw new Error(`Frame with ID ${refuses} is showing error page`);
    return details.target.frameIds.map((frameId) => ({ frameId, result: undefined }));
  };
  const result = await commands.run(execute());
  const injected = chrome.calls.executeScript.filter((d) => d.files).map((d) => [d.world, d.target.frameIds]);
  return { result, injected, sends: chrome.calls.delivered.length };
}

test("the first command in a page without content scripts injects every frame that lacks them", async () => {
  // Frame 3 has its scripts (it loaded after the switch went on); 5 and 9 have none.
  const { result, injected, sends } = await firstCommandIn({ 0: true, 3: true, 5: false, 9: false });
  assert.equal(result.result, 42);
  assert.deepEqual(injected, [
    ["MAIN", [0]],
    ["ISOLATED", [0]],
    ["MAIN", [5, 9]],
    ["ISOLATED", [5, 9]],
  ]);
  // The command is sent once every frame has them.
  assert.equal(sends, 2);
});

test("a child frame that refuses the scripts leaves the others and the command alone", async () => {
  const { result, injected } = await firstCommandIn({ 0: true, 5: false, 9: false }, 5);
  assert.equal(result.result, 42);
  assert.deepEqual(injected, [
    ["MAIN", [0]],
    ["ISOLATED", [0]],
    ["MAIN", [5, 9]],
    ["MAIN", [5]],
    ["MAIN", [9]],
    ["ISOLATED", [9]],
  ]);
});

test("a second 'Receiving end does not exist' is not retried again", async () => {
  const { chrome, commands } = setup({
    onSend: () => {
      throw new Error(NO_RECEIVER);
    },
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "extension_error");
  assert.equal(chrome.calls.delivered.length, 2);
});

test("any other send failure is never resent: the message may have been delivered", async () => {
  const { chrome, commands } = setup({
    onSend: () => {
      throw new Error("Could not establish connection: the frame was removed");
    },
  });
  const result = await commands.run(execute());
  // The tab is still there, at the same url, and takes a script: its page was replaced.
  assert.equal(result.error.code, "tab_navigated");
  assert.equal(chrome.calls.delivered.length, 1);
  assert.equal(chrome.calls.executeScript.filter((c) => c.files).length, 0); // no re-injection
});

test("an injection Chrome refuses gives tab_not_scriptable", async () => {
  const { chrome, commands } = setup({
    tabs: [{ ...PAGE, url: "https://refusing.example/", refuseInjection: true }],
    onSend: () => {
      throw new Error(NO_RECEIVER);
    },
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "tab_not_scriptable");
  assert.match(result.error.message, /refusing\.example.*Cannot access contents/);
  assert.equal(chrome.calls.delivered.length, 1);
});

test("the Chrome Web Store is refused before anything is sent, saying that Chrome never allows it", async () => {
  const { chrome, commands } = setup({ tabs: [{ ...PAGE, url: "https://chromewebstore.google.com/detail/x" }] });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "tab_not_scriptable");
  assert.match(result.error.message, /Chrome never lets extensions act on the Chrome Web Store/);
  assert.equal(chrome.calls.delivered.length, 0);
});

test("list_tabs gives id, url, title, active and window_id of every tab", async () => {
  const other = { id: 8, url: "chrome://newtab/", title: "New Tab", active: false, windowId: 2 };
  const { commands } = setup({ tabs: [PAGE, other] });
  const result = await commands.run({ type: "command", id: "t", command: "list_tabs", params: {} });
  assert.equal(result.ok, true);
  assert.equal(result.result_type, "array");
  assert.deepEqual(result.result, [
    { id: 7, url: PAGE.url, title: "Page", active: true, window_id: 1 },
    { id: 8, url: "chrome://newtab/", title: "New Tab", active: false, window_id: 2 },
  ]);
});

test("an unknown command gives unknown_command", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { commands } = setup();
  const result = await commands.run({ type: "command", id: "u", command: "format_disk", params: {} });
  assert.deepEqual(result.error.code, "unknown_command");
  assert.equal(result.id, "u");
  assert.equal(console.warn.mock.callCount(), 1);
});

test("an unexpected exception gives extension_error with its message", async (t) => {
  t.mock.method(console, "error", () => {});
  const { chrome, commands } = setup();
  chrome.tabs.query = async () => {
    throw new Error("boom");
  };
  const result = await commands.run(execute());
  assert.deepEqual(result, { type: "result", id: "r1", ok: false, error: { code: "extension_error", message: "boom" } });
});

test("a timeout while injecting cancels the second send", async () => {
  const { chrome, commands } = setup({
    onSend: () => {
      throw new Error(NO_RECEIVER);
    },
  });
  const inject = chrome.scripting.executeScript;
  const injecting = []; // each injection finishes when the test says
  chrome.scripting.executeScript = (details) => new Promise((resolve) => injecting.push(() => resolve(inject(details))));
  const result = await commands.run(execute({ timeout_ms: 10 }));
  assert.equal(result.error.code, "execution_timeout");
  // The injection finishes only after the timeout, and so does anything it leads to.
  while (injecting.length > 0) {
    injecting.shift()();
    await tick();
  }
  assert.equal(chrome.calls.executeScript.length > 0, true);
  assert.equal(chrome.calls.delivered.length, 1);
});

test("commands sent together to a fresh tab share one injection", async () => {
  let injected = false;
  const { chrome, commands } = setup({
    onSend: () => {
      if (!injected) throw new Error(NO_RECEIVER);
      return answer42;
    },
  });
  const inject = chrome.scripting.executeScript;
  chrome.scripting.executeScript = async (details) => {
    await new Promise((r) => setTimeout(r, 10));
    const done = await inject(details);
    if (details.world === "ISOLATED") injected = true;
    return done;
  };
  const results = await Promise.all([commands.run(execute({}, "a")), commands.run(execute({}, "b"))]);
  assert.deepEqual(results.map((r) => r.ok), [true, true]);
  // One MAIN, one ISOLATED, one look for child frames without them.
  assert.equal(chrome.calls.executeScript.length, 3);
  assert.equal(chrome.calls.delivered.length, 4);
});

const ping = (params, id = "p1") => ({ type: "command", id, command: "ping", params });
const pong = { ok: true, result: "pong", result_type: "string", url: PAGE.url, title: "Page" };

test("ping to the worker answers pong without touching a tab", async () => {
  const { chrome, commands } = setup({ onSend: () => pong });
  const result = await commands.run(ping({ to: "worker", tab_id: null }));
  assert.deepEqual(result, { type: "result", id: "p1", ok: true, result: "pong", result_type: "string", tab: null });
  assert.equal(chrome.calls.delivered.length, 0);
});

for (const to of ["content", "page"]) {
  test(`ping to the ${to} sends a ping, never a script, to the tab and answers pong`, async () => {
    const { chrome, commands } = setup({ onSend: () => pong });
    const result = await commands.run(ping({ to, tab_id: 7 }));
    assert.deepEqual(result, {
      type: "result", id: "p1", ok: true, result: "pong", result_type: "string", tab: { id: 7, url: PAGE.url, title: "Page" },
    });
    assert.deepEqual(chrome.calls.delivered, [{ tabId: 7, message: { type: "ping", id: "p1", to }, options: { frameId: 0 } }]);
  });
}

test("ping passes the pilot switch and the same tab checks as a script", async () => {
  const off = setup({ pilotOn: false, onSend: () => pong });
  assert.equal((await off.commands.run(ping({ to: "worker" }))).error.code, "pilot_disabled");
  const { chrome, commands } = setup({ tabs: [{ ...PAGE, url: "chrome://settings/" }], onSend: () => pong });
  assert.equal((await commands.run(ping({ to: "page" }))).error.code, "tab_not_scriptable");
  assert.equal((await commands.run(ping({ to: "page", tab_id: 999 }))).error.code, "tab_not_found");
  assert.equal(chrome.calls.delivered.length + off.chrome.calls.delivered.length, 0);
});

test("ping to an unknown target or from a page that fails is an error, never a pong", async () => {
  const { commands } = setup({ onSend: () => ({ ok: false, error: { code: "extension_error", message: "not paired" } }) });
  const unknown = await commands.run(ping({ to: "script" }));
  assert.equal(unknown.error.code, "extension_error");
  assert.match(unknown.error.message, /worker, content, page/);
  const failed = await commands.run(ping({ to: "page" }));
  assert.deepEqual(failed.error, { code: "extension_error", message: "not paired" });
  assert.equal(failed.tab.id, 7);
});

test("commands to one tab share one port to its content script", async () => {
  const { chrome, commands } = setup({ onSend: () => answer42 });
  for (const id of ["a", "b", "c"]) assert.equal((await commands.run(execute({}, id))).result, 42);
  assert.deepEqual(chrome.calls.connect, [{ tabId: 7, options: { frameId: 0, name: "tabpilot" } }]);
  assert.equal(chrome.calls.delivered.length, 3);
});

test("a page that goes away mid-command fails it once, and the next command opens a new port", async () => {
  let leave;
  const { chrome, commands } = setup({
    onSend: (_tab, _message, _options, attempt) => (attempt === 1 ? new Promise((_, reject) => (leave = reject)) : answer42),
  });
  const first = commands.run(execute({}, "gone"));
  await new Promise((resolve) => setImmediate(resolve));
  leave(new Error("")); // Chrome closes the port without an error when the page navigates
  const result = await first;
  assert.equal(result.error.code, "tab_navigated");
  assert.match(result.error.message, /navigated away or reloaded/);
  assert.equal((await commands.run(execute({}, "next"))).result, 42);
  assert.equal(chrome.calls.connect.length, 2);
  assert.deepEqual(chrome.calls.delivered.map((d) => d.message.id), ["gone", "next"]);
  assert.equal(chrome.calls.executeScript.filter((c) => c.files).length, 0); // no re-injection
});
