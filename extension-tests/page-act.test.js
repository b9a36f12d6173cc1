// browser_act and browser_navigate on the worker's side (background/page-act.js, navigation.js),
// through commands.run with a scripted content script, tab events and debugger.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, realTimers, until } from "./support/fake-chrome.js";

const PAGE = { id: 7, index: 0, url: "https://shop.example/cart", title: "Cart", active: true, windowId: 1 };
const NAV_EVENTS = ["onBeforeNavigate", "onCommitted", "onDOMContentLoaded", "onCompleted", "onErrorOccurred", "onHistoryStateUpdated", "onReferenceFragmentUpdated"];

function event() {
  const listeners = [];
  return { listeners, addListener: (fn) => listeners.push(fn), emit: (...args) => listeners.forEach((fn) => fn(...args)) };
}

// onSend(message, nav) plays the content script; nav(name, details) fires a main-frame event.
function setup({ onSend = () => ({ ok: true, result: { description: "Clicked it" } }), managed = false, debuggerOn = false, status = 200 } = {}) {
  const tabs = [{ ...PAGE }];
  const { chrome, fetch } = fakeChrome({
    tabs,
    storage: debuggerOn ? { debuggerEnabled: true } : {},
    onSend: (_tabId, message) => onSend(message, nav, tabs),
  });
  const calls = { created: [], updated: [], debugger: [], scripts: [], groups: [] };
  chrome.webNavigation = Object.fromEntries(NAV_EVENTS.map((name) => [name, event()]));
  chrome.tabs.onCreated = event();
  const nav = (name, details = {}) => chrome.webNavigation[name].emit({ tabId: 7, frameId: 0, url: tabs[0].url, ...details });
  let next = 100;
  chrome.tabs.create = async (props) => {
    calls.created.push(props);
    const tab = { id: next++, url: "", pendingUrl: props.url, title: "", windowId: 1, openerTabId: props.openerTabId };
    tabs.push(tab);
    chrome.tabs.onCreated.emit(tab);
    return tab;
  };
  chrome.tabs.get = async (id) => {
    const tab = tabs.find((t) => t.id === id);
    if (!tab) throw new Error(`No tab with id: ${id}.`);
    return tab;
  };
  chrome.tabs.update = async (id, props) => {
    calls.updated.push(props);
    return tabs[0];
  };
  chrome.tabs.group = async (options) => {
    calls.groups.push(options);
    return 55;
  };
  chrome.tabGroups = { query: async () => [], update: async (id, props) => calls.groups.push({ id, ...props }) };
  chrome.scripting.executeScript = async (details) => {
    calls.scripts.push(details);
    return [{ frameId: 0, result: details.func.toString().includes("responseStatus") ? { status, title: "" } : false }];
  };
  chrome.debugger = {
    onDetach: event(),
    onEvent: event(),
    attach: async () => {},
    detach: async () => {},
    async sendCommand(target, method, params) {
      calls.debugger.push([method, params]);
      return method === "Page.getLayoutMetrics" ? { cssVisualViewport: { clientWidth: 800, clientHeight: 600 } } : {};
    },
  };
  const commands = createCommands({
    chrome,
    pilot: { ready: Promise.resolve(), isEnabled: () => true },
    timers: realTimers,
    fetch,
    managed: Promise.resolve({ managed }),
    landingUrl: async () => "http://127.0.0.1:7878/",
  });
  // What the content script was sent.
  const sent = () => chrome.calls.delivered.map((d) => d.message);
  const run = (command, params) => commands.run({ type: "command", id: "c1", command, params: { tab_id: 7, ...params } });
  return { run, chrome, calls, sent, nav, tabs };
}

test("an unknown kind is refused before anything reaches the page", async () => {
  const { run, sent } = setup();
  const answer = await run("browser_act", { kind: "fly", ref: "e1" });
  assert.equal(answer.error.code, "invalid_request");
  assert.match(answer.error.message, /Unknown kind "fly"/);
  assert.deepEqual(sent(), []);
});

test("the DOM route answers what was done, and that nothing else happened", async () => {
  const { run, sent } = setup({ onSend: () => ({ ok: true, result: { description: 'Clicked button "Buy" (e2)' }, url: PAGE.url, title: "Cart" }) });
  const answer = await run("browser_act", { kind: "click", ref: "e2", text: null, submit: false, trusted: null });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.deepEqual(answer.result, { description: 'Clicked button "Buy" (e2)', route: "dom", navigated: false, url: PAGE.url, opened: [] });
  assert.deepEqual(sent(), [{ type: "act", kind: "click", ref: "e2", text: null, key: null, direction: null, amount: null, submit: false, values: null }]);
});

test("a navigation the action starts is waited for and reported", async () => {
  const { run } = setup({
    onSend(_message, nav, tabs) {
      setTimeout(() => {
        nav("onBeforeNavigate", { url: "https://shop.example/paid" });
        tabs[0].url = "https://shop.example/paid";
        nav("onCommitted", { url: "https://shop.example/paid" });
        setTimeout(() => nav("onDOMContentLoaded"), 20);
      }, 5);
      return { ok: true, result: { description: "Clicked it" } };
    },
  });
  const started = Date.now();
  const answer = await run("browser_act", { kind: "click", ref: "e2" });
  assert.equal(answer.result.navigated, true);
  assert.equal(answer.result.url, "https://shop.example/paid");
  assert.ok(Date.now() - started >= 20, "waited for the new page's DOM");
});

test("a link to a new tab opens it from the worker, beside its opener, as the AI's", async () => {
  const { run, calls, chrome } = setup({ onSend: () => ({ ok: true, result: { description: "Clicked it", open: "https://shop.example/report" } }) });
  const answer = await run("browser_act", { kind: "click", ref: "e2" });
  assert.deepEqual(calls.created, [{ url: "https://shop.example/report", openerTabId: 7, windowId: 1, index: 1, active: true }]);
  assert.deepEqual(answer.result.opened, [{ id: 100, url: "https://shop.example/report", title: "" }]);
  await until(() => chrome.sessionStore.aiTabs?.includes(100), "the tab remembered");
  await until(() => calls.groups.some((g) => g.title === "tabpilot"), "the tab grouped");
  assert.deepEqual(calls.groups[0], { tabIds: [100], createProperties: { windowId: 1 } });
});

test("a link to something other than a web page is not opened", async () => {
  const { run, calls } = setup({ onSend: () => ({ ok: true, result: { description: "Clicked it", open: "javascript:alert(1)" } }) });
  await run("browser_act", { kind: "click", ref: "e2" });
  assert.deepEqual(calls.created, []);
});

test("trusted input in a person's browser needs the debugger switch", async () => {
  const { run, sent, calls } = setup();
  const answer = await run("browser_act", { kind: "click", ref: "e2", trusted: true });
  assert.equal(answer.error.code, "debugger_disabled");
  assert.match(answer.error.message, /popup switch "Strict pages: allow the debugger"/);
  assert.deepEqual([sent(), calls.debugger], [[], []]);
});

test("the trusted route clicks where the content script locates the element", async () => {
  const { run, sent, calls } = setup({
    debuggerOn: true,
    onSend: () => ({ ok: true, result: { x: 120, y: 45, description: 'button "Go"', doc: "d1" } }),
  });
  const answer = await run("browser_act", { kind: "click", ref: "e1", trusted: true });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.deepEqual([answer.result.route, answer.result.description], ["debugger", 'Clicked button "Go" (e1)']);
  // After the move, right before the press: is the point still on the element?
  assert.deepEqual(sent(), [
    { type: "locate", ref: "e1", kind: "click", direction: null },
    { type: "locate", ref: "e1", kind: "hit", direction: null, x: 120, y: 45 },
  ]);
  const mouse = calls.debugger.filter(([method]) => method === "Input.dispatchMouseEvent").map(([, p]) => [p.type, p.x, p.y, p.button]);
  assert.deepEqual(mouse, [["mouseMoved", 120, 45, "none"], ["mousePressed", 120, 45, "left"], ["mouseReleased", 120, 45, "left"]]);
});

test("in the managed browser a caret key goes the trusted way, with its key code", async () => {
  const { run, sent, calls } = setup({ managed: true });
  const answer = await run("browser_act", { kind: "press", key: "Shift+ArrowDown" });
  assert.equal(answer.result.route, "debugger");
  assert.deepEqual(sent(), []);
  const keys = calls.debugger.filter(([method]) => method === "Input.dispatchKeyEvent").map(([, p]) => [p.type, p.key, p.windowsVirtualKeyCode, p.modifiers]);
  assert.deepEqual(keys, [["rawKeyDown", "ArrowDown", 40, 8], ["keyUp", "ArrowDown", 40, 8]]);
});

test("browser_navigate refuses what it cannot open before anything happens", async () => {
  const { run, calls } = setup();
  const cases = [
    [{ url: "file:///etc/passwd" }, /not file: urls/],
    [{ url: "chrome://settings" }, /not chrome: urls/],
    [{ url: "not a url" }, /is not a url/],
    [{}, /"goto" needs a url/],
    [{ action: "back", url: "https://a.example/" }, /"back" takes no url/],
    [{ action: "sideways" }, /Unknown action "sideways"/],
  ];
  for (const [params, message] of cases) {
    const answer = await run("browser_navigate", params);
    assert.equal(answer.error.code, "invalid_request", JSON.stringify(params));
    assert.match(answer.error.message, message);
  }
  assert.deepEqual(calls.updated, []);
});

function navigating(events, status = 200) {
  const context = setup({ status });
  context.chrome.tabs.update = async (_id, { url }) => {
    setTimeout(() => events(context.nav, url, context.tabs), 1);
    return context.tabs[0];
  };
  return context;
}

test("goto waits for the load and answers the url, title and status", async () => {
  const { run } = navigating((nav, url, tabs) => {
    nav("onBeforeNavigate", { url });
    Object.assign(tabs[0], { url, title: "Paid" });
    nav("onCommitted", { url });
    nav("onCompleted", { url });
  });
  const answer = await run("browser_navigate", { url: "https://shop.example/paid" });
  assert.deepEqual(answer.result, { url: "https://shop.example/paid", title: "Paid", status: 200 });
});

test("each way a load fails has its reason", async () => {
  const cases = [
    ["net::ERR_NAME_NOT_RESOLVED", "dns"],
    ["net::ERR_CONNECTION_REFUSED", "connection_refused"],
    ["net::ERR_CONNECTION_TIMED_OUT", "timeout"],
    ["net::ERR_SSL_PROTOCOL_ERROR", "other"],
  ];
  for (const [error, reason] of cases) {
    const { run } = navigating((nav, url) => {
      nav("onBeforeNavigate", { url });
      nav("onErrorOccurred", { url, error });
    });
    const answer = await run("browser_navigate", { url: "https://down.example/" });
    assert.equal(answer.error.code, "navigation_failed");
    assert.deepEqual(answer.error.data, { reason, url: "https://down.example/", net_error: error });
  }
});

test("an error status fails with http_status; a load past timeout_ms with timeout", async () => {
  const { run } = navigating((nav, url, tabs) => {
    nav("onBeforeNavigate", { url });
    tabs[0].url = url;
    nav("onCommitted", { url });
    nav("onCompleted", { url });
  }, 404);
  const missing = await run("browser_navigate", { url: "https://shop.example/gone" });
  assert.deepEqual(missing.error.data, { reason: "http_status", url: "https://shop.example/gone", status: 404 });
  assert.match(missing.error.message, /browser_read shows/);
  const slow = navigating((nav, url) => nav("onBeforeNavigate", { url }));
  const late = await slow.run("browser_navigate", { url: "https://slow.example/", timeout_ms: 50 });
  assert.deepEqual(late.error.data, { reason: "timeout", url: "https://slow.example/" });
});

test("the page's own navigation, aborted by this one, is not this one's failure", async () => {
  const { run } = navigating((nav, url, tabs) => {
    nav("onBeforeNavigate", { url });
    nav("onErrorOccurred", { url: "https://shop.example/earlier", error: "net::ERR_ABORTED" });
    tabs[0].url = url;
    nav("onCommitted", { url });
    nav("onCompleted", { url });
  });
  const answer = await run("browser_navigate", { url: "https://shop.example/now" });
  assert.equal(answer.ok, true, JSON.stringify(answer));
});

test("a navigation aborted and not replaced fails aborted; one that only reached its DOM has not loaded", async () => {
  const { run } = navigating((nav, url) => {
    nav("onBeforeNavigate", { url });
    nav("onErrorOccurred", { url, error: "net::ERR_ABORTED" });
  });
  const aborted = await run("browser_navigate", { url: "https://shop.example/204" });
  assert.deepEqual(aborted.error.data, { reason: "aborted", url: "https://shop.example/204", net_error: "net::ERR_ABORTED" });
  const half = navigating((nav, url) => {
    nav("onBeforeNavigate", { url });
    nav("onCommitted", { url });
    nav("onDOMContentLoaded", { url });
  });
  const late = await half.run("browser_navigate", { url: "https://shop.example/images", timeout_ms: 100 });
  assert.equal(late.error.data.reason, "timeout");
});

test("a link's url that opens nothing gets its reason, by route", async () => {
  const { deadLink } = await import("../extension/worker/tools/page-act.js");
  assert.match(deadLink("javascript:void(0)", "debugger"), /^; no navigation: its href is a javascript: url, which runs a script/);
  assert.match(deadLink("javascript:void(0)", "dom"), /trusted: true clicks it as a person would$/);
  assert.equal(deadLink("file:///etc/hostname", "dom"), "; no navigation: file: urls cannot be opened from a web page");
  assert.match(deadLink("data:text/html,x", "dom"), /data: url/);
  assert.equal(deadLink("https://example.com/", "dom"), "");
  assert.equal(deadLink("not a url", "dom"), "");
});

test("a trusted drag hands the HTML5 drag Chrome starts to Input.dispatchDragEvent, and says where the element went", async () => {
  let places = 0;
  const { run, calls, chrome } = setup({
    debuggerOn: true,
    onSend: (m) => {
      if (m.type !== "drag_place") return { ok: true, result: { x: 50, y: m.ref === "e4" ? 140 : 60, description: "listitem" } };
      const index = places++ === 0 ? 2 : 4;
      return { ok: true, result: { place: { index, count: 5, parent: 'list "Todo"' }, what: 'listitem "Task B"', to: 'listitem "Task D"' } };
    },
  });
  const send = chrome.debugger.sendCommand;
  chrome.debugger.sendCommand = async (target, method, params) => {
    const answer = await send(target, method, params);
    if (method === "Input.dispatchMouseEvent" && params.type === "mouseMoved" && params.buttons === 1) {
      chrome.debugger.onEvent.emit(target, "Input.dragIntercepted", { data: { items: [], dragOperationsMask: 1 } });
    }
    return answer;
  };
  const answer = await run("browser_act", { kind: "drag", ref: "e2", to_ref: "e4", trusted: true });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.equal(answer.result.description, 'Dragged listitem "Task B" (e2) onto listitem "Task D" (e4); it is now 4th of 5 in list "Todo"');
  const input = calls.debugger.filter(([method]) => method.startsWith("Input.")).map(([method, p]) => [method.slice(6), p.type ?? p.enabled, p.y]);
  assert.deepEqual(input, [
    ["dispatchMouseEvent", "mouseMoved", 60],
    ["dispatchMouseEvent", "mousePressed", 60],
    ["setInterceptDrags", true, undefined],
    ["dispatchMouseEvent", "mouseMoved", 76],
    ["dispatchDragEvent", "dragEnter", 76],
    ["dispatchDragEvent", "dragOver", 92],
    ["dispatchDragEvent", "dragOver", 108],
    ["dispatchDragEvent", "dragOver", 124],
    ["dispatchDragEvent", "dragOver", 140],
    ["setInterceptDrags", false, undefined],
    ["dispatchDragEvent", "dragOver", 140],
    ["dispatchDragEvent", "dragOver", 140],
    ["dispatchDragEvent", "drop", 140],
  ]);
});

test("a trusted drag onto a stale ref moves nothing", async () => {
  const { run, calls } = setup({
    debuggerOn: true,
    onSend: (m) =>
      m.ref === "e4" || m.to_ref === "e4"
        ? { ok: false, error: { code: "stale_ref", message: "The element with ref e4 is no longer in the page." } }
        : { ok: true, result: { x: 50, y: 60, description: "listitem" } },
  });
  const answer = await run("browser_act", { kind: "drag", ref: "e2", to_ref: "e4", trusted: true });
  assert.equal(answer.error.code, "stale_ref");
  assert.deepEqual(calls.debugger.filter(([method]) => method.startsWith("Input.")), []);
});

test("browser_mouse's trusted route asks what is at the point, then presses the button there", async () => {
  const { run, sent, calls } = setup({ debuggerOn: true, onSend: () => ({ ok: true, result: { element: 'button "Save" (e7)' }, url: PAGE.url }) });
  const answer = await run("browser_mouse", { action: "right_click", x: 10, y: 20, modifiers: ["Shift"], trusted: true });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.deepEqual(answer.result, { description: 'Right-clicked at (10, 20) on button "Save" (e7) with Shift', route: "debugger" });
  assert.deepEqual(sent(), [{ type: "mouse_at", x: 10, y: 20, to_x: null, to_y: null }]);
  const mouse = calls.debugger.filter(([method]) => method === "Input.dispatchMouseEvent").map(([, p]) => [p.type, p.button, p.buttons, p.clickCount, p.modifiers]);
  assert.deepEqual(mouse, [
    ["mouseMoved", "none", 0, undefined, undefined],
    ["mousePressed", "right", 2, 1, 8],
    ["mouseReleased", "right", 0, 1, 8],
  ]);
});

test("browser_mouse refuses an unknown action, and trusted input without the switch, before the page hears of it", async () => {
  const { run, sent } = setup();
  const unknown = await run("browser_mouse", { action: "hover", x: 1, y: 1 });
  assert.equal(unknown.error.code, "invalid_request");
  const trusted = await run("browser_mouse", { action: "click", x: 1, y: 1, trusted: true });
  assert.equal(trusted.error.code, "debugger_disabled");
  assert.deepEqual(sent(), []);
});

test("a trusted hover moves the mouse with no button held", async () => {
  const { run, calls } = setup({ debuggerOn: true, onSend: () => ({ ok: true, result: { x: 120, y: 45, description: 'button "Go"', doc: "d1" } }) });
  const answer = await run("browser_act", { kind: "hover", ref: "e1", trusted: true });
  assert.equal(answer.result.description, 'Hovered over button "Go" (e1)');
  const mouse = calls.debugger.filter(([method]) => method === "Input.dispatchMouseEvent").map(([, p]) => [p.type, p.button, p.buttons]);
  assert.deepEqual(mouse, [["mouseMoved", "none", 0]]);
});
