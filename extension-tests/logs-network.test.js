// background/network-log.js: browser_network_requests in the worker, from chrome.webRequest's
// events, and the bodies the page world sends.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, realTimers } from "./support/fake-chrome.js";

const PAGE = { id: 7, url: "http://127.0.0.1:8000/app.html", title: "App", active: true, windowId: 1 };

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), emit: (...args) => listeners.forEach((fn) => fn(...args)) };
}

function setup({ flushed = [] } = {}) {
  const state = { enabled: true };
  const { chrome } = fakeChrome({
    tabs: [PAGE],
    onSend: (_tabId, message) => (message.type === "log_flush" ? { ok: true, result: { batches: flushed.splice(0) } } : undefined),
  });
  chrome.webNavigation = { onCommitted: event() };
  chrome.webRequest = Object.fromEntries(["onBeforeRequest", "onBeforeRedirect", "onCompleted", "onErrorOccurred"].map((name) => [name, event()]));
  const commands = createCommands({ chrome, pilot: { ready: Promise.resolve(), isEnabled: () => state.enabled }, timers: realTimers, now: () => 1000 });
  let clock = 1000;
  let ids = 0;
  const web = chrome.webRequest;
  // One request from start to end: `outcome` is {status, headers?, fromCache?} or {error}.
  const request = (url, { method = "GET", type = "xmlhttprequest", tabId = 7, ...outcome } = {}) => {
    const requestId = String(++ids);
    web.onBeforeRequest.emit({ requestId, url, method, type, tabId, frameId: 0, timeStamp: clock });
    clock += 10;
    if (outcome.error) web.onErrorOccurred.emit({ requestId, tabId, error: outcome.error, timeStamp: clock });
    else if (outcome.status) {
      web.onCompleted.emit({ requestId, tabId, statusCode: outcome.status, fromCache: outcome.fromCache === true, responseHeaders: outcome.headers ?? [], timeStamp: clock });
    }
    return requestId;
  };
  const query = (params = {}) => commands.run({ type: "command", id: "n1", command: "browser_network_requests", params: { tab_id: null, ...params } });
  return { chrome, commands, request, query, web, state };
}

test("a request's whole course: status, duration, size, cache, failure, redirect", async () => {
  const { request, query, web } = setup();
  request("http://127.0.0.1:8000/api/items", { status: 200, headers: [{ name: "Content-Length", value: "20" }] });
  request("http://127.0.0.1:8000/api/cached", { status: 200, fromCache: true });
  request("http://127.0.0.1:9/refused", { error: "net::ERR_CONNECTION_REFUSED" });
  web.onBeforeRequest.emit({ requestId: "r", url: "http://127.0.0.1:8000/old", method: "GET", type: "xmlhttprequest", tabId: 7, frameId: 0, timeStamp: 2000 });
  web.onBeforeRedirect.emit({ requestId: "r", tabId: 7, statusCode: 301, redirectUrl: "http://127.0.0.1:8000/new", timeStamp: 2005 });
  web.onBeforeRequest.emit({ requestId: "r", url: "http://127.0.0.1:8000/new", method: "GET", type: "xmlhttprequest", tabId: 7, frameId: 0, timeStamp: 2006 });
  request("http://127.0.0.1:8000/pending");
  const { result } = await query();
  const rows = result.requests.map((r) => [r.url.replace(/^http:\/\/[^/]+/, ""), r.type, r.status, r.duration, r.size, r.from_cache, r.failed]);
  assert.deepEqual(rows, [
    ["/api/items", "xhr", 200, 10, 20, false, null],
    ["/api/cached", "xhr", 200, 10, null, true, null],
    ["/refused", "xhr", null, 10, null, false, "net::ERR_CONNECTION_REFUSED"],
    ["/old", "xhr", 301, 5, null, false, null],
    ["/new", "xhr", null, null, null, false, null],
    ["/pending", "xhr", null, null, null, false, null],
  ]);
  assert.equal(result.requests[3].redirect_to, "http://127.0.0.1:8000/new");
});

test("filters: url (substring or pattern), type, status; static resources hidden and counted", async () => {
  const { request, query } = setup();
  request("http://127.0.0.1:8000/app.html", { type: "main_frame", status: 200 });
  request("http://127.0.0.1:8000/logo.png", { type: "image", status: 200 });
  request("http://127.0.0.1:8000/gone.png", { type: "image", status: 404 });
  request("http://127.0.0.1:8000/site.css", { type: "stylesheet", status: 200 });
  request("http://127.0.0.1:8000/api/a", { status: 500 });
  request("http://127.0.0.1:8000/api/b", { status: 201 });
  request("http://nowhere.invalid/x", { error: "net::ERR_NAME_NOT_RESOLVED" });
  const urls = async (params) => (await query(params)).result.requests.map((r) => r.url.replace(/^http:\/\/[^/]+/, ""));
  const all = await query();
  assert.equal(all.result.hidden, 2);
  assert.deepEqual(await urls({}), ["/app.html", "/gone.png", "/api/a", "/api/b", "/x"]);
  assert.deepEqual(await urls({ include_static: true }), ["/app.html", "/logo.png", "/gone.png", "/site.css", "/api/a", "/api/b", "/x"]);
  assert.deepEqual(await urls({ type: "image" }), ["/logo.png", "/gone.png"]);
  assert.deepEqual(await urls({ type: "document" }), ["/app.html"]);
  assert.deepEqual(await urls({ status: "failed" }), ["/gone.png", "/api/a", "/x"]); // no answer, or an HTTP error
  assert.deepEqual(await urls({ status: "4xx" }), ["/gone.png"]);
  assert.deepEqual(await urls({ status: "500" }), ["/api/a"]);
  assert.deepEqual(await urls({ url: "/api/" }), ["/api/a", "/api/b"]);
  assert.deepEqual(await urls({ url: "*/api/?" }), []);
  assert.deepEqual(await urls({ url: "http://127.0.0.1:8000/*.png", include_static: true }), ["/logo.png", "/gone.png"]);
  for (const params of [{ status: "teapot" }, { type: "gif" }, { include_body: 0 }, { limit: 5000 }]) {
    assert.equal((await query(params)).error.code, "invalid_request", JSON.stringify(params));
  }
});

test("a main_frame request belongs to the page it commits; other tabs and the switch off are not kept", async () => {
  const { chrome, request, query, state } = setup();
  state.enabled = false;
  request("http://127.0.0.1:8000/while-off", { status: 200 });
  state.enabled = true;
  request("http://127.0.0.1:8000/old-page-call", { status: 200 });
  request("http://127.0.0.1:8000/next.html", { type: "main_frame", status: 200 });
  request("http://127.0.0.1:8000/background", { status: 200, tabId: -1 });
  chrome.webNavigation.onCommitted.emit({ tabId: 7, frameId: 0, documentId: "d2", url: "http://127.0.0.1:8000/next.html" });
  request("http://127.0.0.1:8000/new-page-call", { status: 200 });
  const { result } = await query();
  assert.deepEqual(result.requests.map((r) => r.url.slice(21)), ["/next.html", "/new-page-call"]);
  assert.equal((await query({ all_pages: true })).result.total, 3);
});

test("include_body matches the page world's body to its request, capped; an unknown # is request_not_found", async () => {
  const flushed = [];
  const { request, query, commands } = setup({ flushed });
  request("http://127.0.0.1:8000/app.html", { type: "main_frame", status: 200 });
  request("http://127.0.0.1:8000/api/items", { status: 200 });
  request("http://127.0.0.1:8000/api/items", { method: "POST", status: 200 });
  const body = (method, text) => ({ type: "body", source: "fetch", method, url: "http://127.0.0.1:8000/api/items", status: 200, body: text, size: text.length, truncated: false, time: 5000 });
  const batch = JSON.stringify({ entries: [body("GET", "[1,2,3]")], dropped: 0 });
  commands.messages.page_log({ batch }, { tab: { id: 7 }, frameId: 0, documentId: "d1" });
  flushed.push(JSON.stringify({ entries: [body("POST", '{"saved":true}')], dropped: 0 }));
  const got = await query({ include_body: 2 });
  assert.deepEqual(got.result.body, { text: "[1,2,3]", size: 7, truncated: false, cap: 65536, source: "fetch" });
  assert.equal(got.result.request.seq, 2);
  assert.equal((await query({ include_body: 3 })).result.body.text, '{"saved":true}');
  const page = await query({ include_body: 1 });
  assert.equal(page.result.body.text, null);
  assert.match(page.result.body.note, /fetch and XHR/);
  const missing = await query({ include_body: 99 });
  assert.equal(missing.error.code, "request_not_found");
  assert.match(missing.error.message, /browser_network_requests/);
});

test("include_body gives quick fetches of one url each its own body, even when they end out of order", async () => {
  const flushed = [];
  const { request, query, web } = setup({ flushed });
  const url = "http://127.0.0.1:8000/api/next";
  request("http://127.0.0.1:8000/app.html", { type: "main_frame", status: 200 });
  request(url, { status: 200 }); // #2: 1010 to 1020
  request(url, { status: 200 }); // #3: 1020 to 1030
  request(url, { error: "net::ERR_CONNECTION_RESET" }); // #4: no answer, no body
  // #5 starts first and ends last; #6 starts after it and ends before it. The page reads a body a
  // few ms after its request ends.
  const start = (requestId, timeStamp) => web.onBeforeRequest.emit({ requestId, url, method: "GET", type: "xmlhttprequest", tabId: 7, frameId: 0, timeStamp });
  const end = (requestId, timeStamp) => web.onCompleted.emit({ requestId, tabId: 7, statusCode: 200, fromCache: false, responseHeaders: [], timeStamp });
  start("slow", 2000);
  start("fast", 2010);
  end("fast", 2100);
  end("slow", 2300);
  start("pending", 2301.5); // under way when the page reads #5's body: it cannot take it
  const body = (text, time) => ({ type: "body", source: "fetch", method: "GET", url, status: 200, body: text, size: text.length, truncated: false, time });
  flushed.push(JSON.stringify({ entries: [body("one", 1021), body("two", 1032), body("fast", 2101), body("slow", 2302)], dropped: 0 }));
  const texts = [];
  for (const seq of [2, 3, 4, 5, 6, 7]) texts.push((await query({ include_body: seq })).result.body.text);
  assert.deepEqual(texts, ["one", "two", null, "slow", "fast", null]);
});

test("tabpilot's own files, which a snapshot makes the page import, are not the page's requests", async () => {
  const { chrome, request, query } = setup();
  request(chrome.runtime.getURL("vendor/dom-accessibility-api/index.mjs"), { type: "script", status: 200 });
  request("http://127.0.0.1:8000/api/items", { status: 200 });
  const { result } = await query({ include_static: true });
  assert.deepEqual(result.requests.map((r) => r.url), ["http://127.0.0.1:8000/api/items"]);
});
