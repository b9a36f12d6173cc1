// background/proxy-auth.js: a proxy's challenge is answered with managed.json's credentials, a
// site's never, and a proxy that keeps refusing them gets a cancel rather than an endless loop.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createBackground } from "../extension/worker/main.js";
import { MAX_ANSWERS_PER_REQUEST, createProxyAuth } from "../extension/worker/link/proxy-auth.js";
import { FakeWebSocket, fakeChrome, realTimers } from "./support/fake-chrome.js";

const CREDENTIALS = { username: "proxy-user", password: "proxy-secret" };
const proxyChallenge = (requestId = "r1") => ({
  requestId,
  url: "http://site.test/",
  isProxy: true,
  challenger: { host: "127.0.0.1", port: 3128 },
  realm: "tabpilot-test",
  scheme: "basic",
});

// The listener as Chrome holds it: added with its filter and extra info, answered via callback.
function setup(managed) {
  const added = [];
  const chrome = { webRequest: { onAuthRequired: { addListener: (...args) => added.push(args) } } };
  createProxyAuth({ chrome, managed: Promise.resolve(managed) });
  assert.equal(added.length, 1);
  const [listener, filter, extra] = added[0];
  const ask = (details) =>
    new Promise((resolve) => {
      const returned = listener(details, resolve);
      assert.equal(returned, undefined); // a returned Promise would stall the request in Chrome
    });
  return { filter, extra, ask };
}

test("it listens for every URL with asyncBlocking", () => {
  const { filter, extra } = setup({ proxyAuth: CREDENTIALS });
  assert.deepEqual(filter, { urls: ["<all_urls>"] });
  assert.deepEqual(extra, ["asyncBlocking"]);
});

test("a proxy's challenge is answered with managed.json's credentials", async () => {
  const { ask } = setup({ proxyAuth: CREDENTIALS });
  assert.deepEqual(await ask(proxyChallenge()), { authCredentials: CREDENTIALS });
});

test("a site's own 401 is not answered: Chrome handles it as usual", async () => {
  const { ask } = setup({ proxyAuth: CREDENTIALS });
  assert.deepEqual(await ask({ ...proxyChallenge(), isProxy: false, challenger: { host: "site.test", port: 80 } }), {});
  assert.deepEqual(await ask({ ...proxyChallenge("r2"), isProxy: undefined }), {});
});

test("without credentials in managed.json a proxy's challenge is not answered", async () => {
  for (const managed of [{ proxyAuth: null }, {}, null]) {
    const { ask } = setup(managed);
    assert.deepEqual(await ask(proxyChallenge()), {});
  }
});

test(`the same request is answered ${MAX_ANSWERS_PER_REQUEST} times at most, then cancelled`, async () => {
  const { ask } = setup({ proxyAuth: CREDENTIALS });
  for (let i = 0; i < MAX_ANSWERS_PER_REQUEST; i++) {
    assert.deepEqual(await ask(proxyChallenge("again")), { authCredentials: CREDENTIALS });
  }
  assert.deepEqual(await ask(proxyChallenge("again")), { cancel: true });
  assert.deepEqual(await ask(proxyChallenge("again")), { cancel: true });
  // Another request starts its own count.
  assert.deepEqual(await ask(proxyChallenge("fresh")), { authCredentials: CREDENTIALS });
});

test("a managed.json that fails to load leaves the challenge unanswered, not pending", async () => {
  const added = [];
  const chrome = { webRequest: { onAuthRequired: { addListener: (...args) => added.push(args) } } };
  createProxyAuth({ chrome, managed: Promise.reject(new Error("unreadable")) });
  const answer = await new Promise((resolve) => added[0][0](proxyChallenge(), resolve));
  assert.deepEqual(answer, {});
});

test("the background adds the listener in its first turn, and it answers once managed.json is read", async () => {
  const { chrome, fetch } = fakeChrome({ managed: { managed: true, proxy_auth: CREDENTIALS } });
  const added = [];
  // Every webRequest event the background listens to; only onAuthRequired's listeners are kept.
  chrome.webRequest = new Proxy({}, { get: (_, name) => ({ addListener: (...args) => name === "onAuthRequired" && added.push(args) }) });
  const timers = { ...realTimers, setTimeout: (fn, ms) => setTimeout(fn, ms).unref(), setInterval: (fn, ms) => setInterval(fn, ms).unref() };
  const background = createBackground({ chrome, WebSocket: FakeWebSocket, fetch, timers });
  assert.equal(added.length, 1);
  assert.deepEqual(added[0][2], ["asyncBlocking"]);
  const answer = await new Promise((resolve) => added[0][0](proxyChallenge(), resolve));
  assert.deepEqual(answer, { authCredentials: CREDENTIALS });
  await background.ready;
});

test("a Chrome that refuses the listener leaves the rest of the worker running", (t) => {
  t.mock.method(console, "warn", () => {});
  const chrome = { webRequest: { onAuthRequired: { addListener: () => { throw new Error("needs webRequestAuthProvider"); } } } };
  assert.doesNotThrow(() => createProxyAuth({ chrome, managed: Promise.resolve({}) }));
  assert.equal(console.warn.mock.callCount(), 1);
  assert.doesNotMatch(String(console.warn.mock.calls[0].arguments), /proxy-secret/);
});
