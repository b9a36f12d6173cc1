// The content script ⇄ page world channel (docs/protocol.md §3): content.js in one realm (the
// isolated world) and the lib files + inject.js in another (the main world), sharing one document.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { MAIN_WORLD_FILES, readFiles } from "./support/page-files.js";

const read = (path) => readFileSync(new URL(`../extension/${path}`, import.meta.url), "utf8");
const CONTENT = read("content/content.js");
const MAIN_FILES = readFiles(MAIN_WORLD_FILES);
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const tick = () => new Promise((resolve) => setImmediate(resolve));

function fakeChrome() {
  const listeners = new Set();
  const onConnect = { addListener: (fn) => listeners.add(fn), removeListener: (fn) => listeners.delete(fn) };
  // Like chrome.tabs.connect: every onConnect listener gets the port, and what crosses is JSON.
  const connect = (name = "tabpilot") => {
    const fromWorker = new Set();
    const answers = new Map();
    const port = {
      name,
      onMessage: { addListener: (fn) => fromWorker.add(fn), removeListener: (fn) => fromWorker.delete(fn) },
      onDisconnect: { addListener() {}, removeListener() {} },
      postMessage(reply) {
        const { seq, answer } = JSON.parse(JSON.stringify(reply));
        answers.get(seq)?.(answer);
        answers.delete(seq);
      },
    };
    for (const listener of listeners) listener(port);
    let seq = 0;
    const post = (message) =>
      new Promise((resolve) => {
        answers.set(++seq, resolve);
        const request = JSON.parse(JSON.stringify({ seq, message }));
        for (const fn of fromWorker) fn(request);
      });
    return { post, heard: () => fromWorker.size };
  };
  // One message on a fresh port, as the service worker sends its first one to a page.
  const send = (message) => connect().post(message);
  // Ports to the service worker, as chrome.runtime.connect opens them; stopWorker() closes them all,
  // as Chrome does when it stops the worker.
  const ports = [];
  const connectToWorker = ({ name }) => {
    const onDisconnect = new Set();
    const onMessage = new Set();
    const port = {
      name,
      open: true,
      onDisconnect: { addListener: (fn) => onDisconnect.add(fn) },
      onMessage: { addListener: (fn) => onMessage.add(fn) },
      // What the worker posts on it: the pilot switch, {pilot: true | false}.
      post: (message) => onMessage.forEach((fn) => fn(JSON.parse(JSON.stringify(message)))),
      disconnect: () => (port.open = false),
      drop: () => {
        port.open = false;
        onDisconnect.forEach((fn) => fn(port));
      },
    };
    ports.push(port);
    return port;
  };
  const stopWorker = () => ports.filter((p) => p.open).forEach((p) => p.drop());
  // Runtime messages to the worker (the console log's batches); gone() makes the extension go, as
  // when it is reloaded or removed: an orphaned content script's calls throw.
  const messages = [];
  let gone = false;
  const sendMessage = (message) => {
    if (gone) throw new Error("Extension context invalidated.");
    messages.push(message);
    return Promise.resolve();
  };
  const connectOrThrow = (options) => {
    if (gone) throw new Error("Extension context invalidated.");
    return connectToWorker(options);
  };
  return {
    runtime: { id: "extension", onConnect, connect: connectOrThrow, sendMessage, lastError: undefined },
    messages,
    goAway: () => {
      gone = true;
      stopWorker();
    },
    listeners,
    connect,
    send,
    ports,
    stopWorker,
  };
}

// One page: a shared document, an isolated realm and a main realm, loaded in either order; a
// child frame's (`child`) has a top window other than its own.
function makePage({ child = false } = {}) {
  const document = new EventTarget();
  document.title = "Test page";
  const nonces = [];
  const warnings = [];
  const chrome = fakeChrome();
  const crypto = {
    getRandomValues(bytes) {
      globalThis.crypto.getRandomValues(bytes);
      nonces.push(hex(bytes)); // test-only view of the secret, to aim forgeries just beside it
      return bytes;
    },
  };
  // The content script's clock and timers are the test's: a timer fires when the test says, so
  // no test waits on the wall clock for the content script to have acted.
  const clock = { now: 0, timers: [] };
  clock.fire = () => clock.timers.shift().fn();
  const isolated = vm.createContext({
    document, CustomEvent, crypto, chrome, location: { href: "http://localhost/test" },
    Date: { now: () => clock.now },
    setTimeout: (fn, ms) => clock.timers.push({ fn, ms }),
    self: { origin: "http://localhost" }, MutationObserver: class { observe() {} },
    console: { warn: (...args) => warnings.push(args.join(" ")) },
  });
  vm.runInContext(child ? "globalThis.top = {}" : "globalThis.top = globalThis", isolated);
  const main = vm.createContext({ document, EventTarget, Event, CustomEvent, console, setTimeout, clearTimeout });
  return {
    document, chrome, nonces, warnings, main, clock,
    loadContent: () => vm.runInContext(CONTENT, isolated, { filename: "content/content.js" }),
    loadMain: () => MAIN_FILES.forEach(([path, code]) => vm.runInContext(code, main, { filename: path })),
    execute: (script, extra = {}) =>
      chrome.send({ type: "execute", id: "r1", script, timeout_ms: 1000, await_promise: true, ...extra }),
  };
}

function pairedPage(order = "content first") {
  const page = makePage();
  if (order === "content first") {
    page.loadContent();
    page.loadMain();
  } else {
    page.loadMain();
    page.loadContent();
  }
  return page;
}

const WHERE = { url: "http://localhost/test", title: "Test page" };
// A script's answer also says which route ran it (docs/protocol.md §3).
const RAN = { route: "page", ...WHERE };

for (const order of ["content first", "main first"]) {
  test(`pairs and round-trips a request when the ${order.split(" ")[0]} world loads first`, async () => {
    const page = pairedPage(order);
    assert.deepEqual(await page.execute("2 + 2"), { ok: true, result: 4, result_type: "number", ...RAN });
    assert.deepEqual(await page.execute("({name: 'test', value: 42})"), {
      ok: true, result: { name: "test", value: 42 }, result_type: "object", ...RAN,
    });
  });
}

test("errors, promises and serialized values come back in the answer", async () => {
  const page = pairedPage();
  const thrown = await page.execute("throw new Error('test error')");
  assert.equal(thrown.ok, false);
  assert.equal(thrown.error.code, "execution_error");
  assert.equal(thrown.error.message, "test error");
  assert.match(thrown.error.stack, /Error: test error/);
  assert.deepEqual(await page.execute("undefined"), { ok: true, result: null, result_type: "undefined", ...RAN });
  assert.deepEqual(await page.execute("Promise.resolve(42)", { await_promise: false }), {
    ok: true, result: "[object Promise]", result_type: "promise", ...RAN,
  });
  assert.deepEqual(await page.execute("const a = {}; a.self = a; return a;"), {
    ok: true, result: { self: "[Circular]" }, result_type: "object", ...RAN,
  });
  assert.equal((await page.execute("Promise.reject(new Error('fail'))")).error.code, "promise_rejected");
});

test("the libraries are taken off the page's globals", () => {
  const page = pairedPage();
  assert.equal(vm.runInContext("typeof __tabpilotSerialize + typeof __tabpilotReturns + typeof __tabpilotExecutor", page.main), "undefinedundefinedundefined");
  // Nothing at all: a second copy of the files finds the first through events on the document.
  const left = vm.runInContext("Object.getOwnPropertyNames(globalThis).filter((name) => /tabpilot/i.test(name))", page.main);
  assert.deepEqual([...left], []);
});

test("without a paired page world the answer says so, for the worker to take another route", async () => {
  const page = makePage();
  page.loadContent();
  const answer = await page.execute("1");
  assert.equal(answer.ok, false);
  assert.equal(answer.error.code, "page_world_unreachable");
  assert.equal(answer.error.sandboxed, false);
  assert.match(answer.error.message, /reload the tab/);
});

test("a request nobody hears (listeners lost to document.open) fails at once", async () => {
  const page = makePage();
  // Play inject.js for the handshake only, then go away, as document.open() would make it.
  page.document.addEventListener("tabpilot:channel", (event) => {
    page.document.dispatchEvent(new CustomEvent(`tabpilot:ready:${event.detail}`));
  }, { once: true });
  page.loadContent();
  const answer = await page.execute("1");
  assert.equal(answer.error.code, "page_world_unreachable");
  assert.match(answer.error.message, /reload the tab/);
});

test("an unknown message type is logged and answered", async () => {
  const page = pairedPage();
  const answer = await page.chrome.send({ type: "bogus" });
  assert.deepEqual(answer, { ok: false, error: { code: "extension_error", message: "unknown message type bogus" }, ...WHERE });
  assert.match(page.warnings.join("\n"), /unknown message type/);
});

test("a page listening on the well-known names after pairing learns nothing", async () => {
  const page = pairedPage();
  const [nonce] = page.nonces;
  const heard = [];
  for (const name of ["tabpilot:channel", "tabpilot:main-ready", "tabpilot:req", "tabpilot:res", "tabpilot:ready"]) {
    page.document.addEventListener(name, (event) => heard.push(`${event.type} ${event.detail}`));
  }
  // The page asks for the handshake again and offers its own secret.
  page.document.dispatchEvent(new CustomEvent("tabpilot:main-ready", { detail: "" }));
  page.document.dispatchEvent(new CustomEvent("tabpilot:channel", { detail: "f".repeat(32) }));
  assert.deepEqual(await page.execute("'still private'"), { ok: true, result: "still private", result_type: "string", ...RAN });
  await tick();
  assert.deepEqual(heard, ["tabpilot:main-ready ", `tabpilot:channel ${"f".repeat(32)}`]);
  assert.ok(!heard.join(" ").includes(nonce));
});

test("a forged answer on a wrong event name is not accepted", async () => {
  const page = pairedPage();
  const [nonce] = page.nonces;
  let answer;
  page.execute("new Promise((resolve) => { globalThis.release = resolve; })").then((a) => (answer = a));
  await tick();
  const forged = JSON.stringify({ id: "1", ok: true, result: "forged", result_type: "string" });
  const near = [...nonce.slice(0, -1), nonce.at(-1) === "0" ? "1" : "0"].join("");
  for (const name of ["tabpilot:res", "tabpilot:res:", `tabpilot:res:${near}`, `tabpilot:res:${nonce.toUpperCase()}`]) {
    page.document.dispatchEvent(new CustomEvent(name, { detail: forged }));
  }
  await tick();
  assert.equal(answer, undefined);
  vm.runInContext("release('real')", page.main);
  await tick();
  assert.deepEqual(answer, { ok: true, result: "real", result_type: "string", ...RAN });
});

test("re-injecting both sides into a paired tab leaves exactly one runner", async () => {
  const page = pairedPage();
  page.loadMain(); // the service worker injects the page-world files, then content.js
  page.loadContent();
  assert.equal(page.chrome.listeners.size, 1);
  const counter = "globalThis.runs = (globalThis.runs || 0) + 1";
  assert.equal((await page.execute(counter)).result, 1);
  assert.equal((await page.execute(counter)).result, 2);
});

test("a second inject.js stands down while the first still waits for its partner", async () => {
  const page = makePage();
  page.loadMain();
  page.loadMain();
  page.loadContent();
  const counter = "globalThis.runs = (globalThis.runs || 0) + 1";
  assert.equal((await page.execute(counter)).result, 1);
  assert.equal((await page.execute(counter)).result, 2);
});

test("many requests in flight each get their own answer", async () => {
  const page = pairedPage();
  const scripts = Array.from({ length: 50 }, (_, i) => `await new Promise((r) => setTimeout(r, ${50 - i})); return ${i};`);
  const answers = await Promise.all(scripts.map((script) => page.execute(script)));
  assert.deepEqual(answers.map((a) => a.result), scripts.map((_, i) => i));
});

test("a ping is answered by the content script, or by the page world, and runs nothing", async () => {
  const page = pairedPage();
  page.main.ran = false;
  // A script smuggled into a ping is not passed on, let alone run.
  const script = "globalThis.ran = true";
  for (const to of ["content", "page"]) {
    assert.deepEqual(await page.chrome.send({ type: "ping", id: "p", to, script }), {
      ok: true, result: "pong", result_type: "string", ...WHERE,
    });
  }
  await tick();
  assert.equal(page.main.ran, false);
  // The channel still runs scripts after pings.
  assert.deepEqual(await page.execute("2 + 2"), { ok: true, result: 4, result_type: "number", ...RAN });
});

test("a ping to the page world of an unpaired tab fails with the reload hint", async () => {
  const page = makePage();
  page.loadContent(); // no inject.js: nothing in the page world answers
  const answer = await page.chrome.send({ type: "ping", id: "p1", to: "page" });
  assert.equal(answer.ok, false);
  assert.equal(answer.error.code, "page_world_unreachable");
  assert.match(answer.error.message, /reload the tab/);
});

test("one port carries many requests, each answered under its own seq", async () => {
  const page = pairedPage();
  const port = page.chrome.connect();
  const answers = await Promise.all([
    port.post({ type: "execute", id: "a", script: "new Promise((r) => setTimeout(() => r('slow'), 5))", timeout_ms: 1000 }),
    port.post({ type: "execute", id: "b", script: "'fast'", timeout_ms: 1000 }),
    port.post({ type: "ping", id: "c", to: "page" }),
  ]);
  assert.deepEqual(answers.map((a) => a.result), ["slow", "fast", "pong"]);
});

test("a port of another name is left alone", () => {
  const page = pairedPage();
  assert.equal(page.chrome.connect("something-else").heard(), 0);
  assert.equal(page.chrome.connect().heard(), 1);
});

test("the content script holds a port to the worker and reopens it when the worker stops", () => {
  const page = pairedPage();
  const { ports, stopWorker } = page.chrome;
  const { clock } = page;
  assert.deepEqual(ports.map((p) => [p.name, p.open]), [["tabpilot-wake", true]]);
  clock.now += 5000; // the worker ran a while, then Chrome stopped it
  stopWorker(); // opening the next port is what starts the worker again
  assert.deepEqual(clock.timers.map((t) => t.ms), [100]); // soon: the shortest delay
  clock.fire();
  assert.deepEqual(ports.map((p) => p.open), [false, true]);
  assert.equal(ports[1].name, "tabpilot-wake");
});

test("a child frame's content script leaves the worker's wake-up to the top frame", () => {
  const page = makePage({ child: true });
  page.loadContent();
  page.loadMain();
  assert.deepEqual(page.chrome.ports, []);
  assert.equal(page.chrome.connect().heard(), 1); // and still answers what is sent to its own port
});

test("a worker that keeps dropping the port at once is woken less and less often", () => {
  const page = pairedPage();
  const { ports, stopWorker } = page.chrome;
  const { clock } = page;
  stopWorker(); // at once: the delay doubles
  assert.deepEqual(clock.timers.map((t) => t.ms), [200]);
  assert.equal(ports.length, 1); // nothing opens before the timer fires
  clock.fire();
  assert.equal(ports.length, 2);
  stopWorker();
  assert.deepEqual(clock.timers.map((t) => t.ms), [400]);
  stopWorker(); // nothing open: no extra port, no extra timer
  assert.equal(clock.timers.length, 1);
  assert.equal(ports.length, 2);
  clock.fire();
  clock.now += 1000; // this port lived a second: the next stop is an ordinary one
  stopWorker();
  assert.deepEqual(clock.timers.map((t) => t.ms), [100]);
  assert.equal(ports.length, 3);
});

test("a ping is answered at once, so the worker knows the page is free", async () => {
  const page = pairedPage();
  const answer = await page.chrome.send({ type: "ping" });
  assert.equal(answer.ok, true);
});

test("a result over 16 MiB of JSON is refused in the page as result_too_large", async () => {
  const page = pairedPage();
  const big = await page.execute("'x'.repeat(17 * 1024 * 1024)");
  assert.equal(big.ok, false);
  assert.equal(big.error.code, "result_too_large");
  assert.match(big.error.message, /16777216/);
  const fits = await page.execute("'x'.repeat(10 * 1000 * 1000).length");
  assert.deepEqual([fits.ok, fits.result], [true, 10_000_000]);
  const whole = await page.execute("'y'.repeat(10 * 1000 * 1000)");
  assert.equal(whole.result.length, 10_000_000);
});

test("the pilot switch the worker posts on the wake port turns the page world's log off and on", async () => {
  const page = pairedPage();
  const [wake] = page.chrome.ports;
  const logged = async (text) => {
    vm.runInContext(`console.log(${JSON.stringify(text)})`, page.main);
    await new Promise((resolve) => setTimeout(resolve, 40)); // a batch leaves within 20 ms
    return page.chrome.messages.filter((m) => m.type === "page_log" && m.batch.includes(text)).length;
  };
  wake.post({ pilot: true });
  assert.equal(await logged("while on"), 1);
  wake.post({ pilot: false });
  assert.equal(await logged("while off"), 0);
  wake.post({ pilot: true });
  assert.equal(await logged("on again"), 1);
  assert.equal(page.chrome.messages.some((m) => m.batch.includes("while off")), false);
});

test("injected again, the page world logs each message once and heeds the newest channel only", async () => {
  const page = pairedPage();
  page.chrome.ports[0].post({ pilot: true });
  page.loadMain(); // the service worker injects both sides again
  page.loadContent();
  const newest = page.chrome.ports.at(-1);
  newest.post({ pilot: true });
  const logged = async (text) => {
    vm.runInContext(`console.log(${JSON.stringify(text)})`, page.main);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const batches = page.chrome.messages.filter((m) => m.type === "page_log").map((m) => JSON.parse(m.batch));
    return batches.flatMap((b) => b.entries).filter((e) => e.text === text).length;
  };
  assert.equal(await logged("once"), 1);
  page.chrome.ports[0].post({ pilot: true }); // the retired copy's word is not heard
  newest.post({ pilot: false });
  assert.equal(await logged("off"), 0);
});
