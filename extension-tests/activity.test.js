// The recent activity the popup shows: what is recorded for each answered command, the 20-entry
// bound, the storage.session mirror, and that none of it can hold up or break a result frame.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { ACTIVITY_KEY, createActivity, SAVE_DELAY_MS } from "../extension/worker/link/activity.js";
import { ask, PAGE, startBackground } from "./support/activity.js";
import { FakeWebSocket, fakeChrome, manualTimers, results, until } from "./support/fake-chrome.js";
import { workerSummaries } from "./support/worker.js";


const execute = (id, script = "document.title") => ({
  type: "command",
  id,
  command: "execute_javascript",
  params: { script, timeout_ms: 1000, await_promise: true, tab_id: null },
});
const ok = (id) => ({ type: "result", id, ok: true, result: "Example", result_type: "string", tab: { id: 7, url: PAGE.url, title: "Example" }, route: "page" });
const failed = (id, code) => ({ type: "result", id, ok: false, error: { code, message: "no" }, tab: { id: 7, url: PAGE.url, title: "Example" } });

function clock(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

// The activity alone, with a clock the test moves and timers it fires: timers.runUntilIdle()
// makes the throttled write to storage.session, and any it leads to.
async function activityWith(options = {}) {
  const { chrome } = fakeChrome(options);
  const time = clock();
  const timers = manualTimers();
  const activity = createActivity({ chrome, summaries: workerSummaries(), now: time.now, timers });
  await activity.ready;
  return { chrome, activity, time, timers };
}

test("an ok and a failed command are recorded with time, command, script, tab, outcome and duration", async () => {
  const { activity, time } = await activityWith();
  const first = activity.begin(execute("c1"));
  time.t += 12;
  first(ok("c1"));
  const secondStart = time.t;
  const second = activity.begin(execute("c2", "throw new Error('x')"));
  time.t += 3;
  second(failed("c2", "execution_error"));

  assert.deepEqual(await activity.list(), [
    {
      id: "c2",
      time: secondStart,
      command: "execute_javascript",
      script: "throw new Error('x')",
      tab: { id: 7, url: PAGE.url, title: "Example" },
      outcome: "execution_error",
      duration_ms: 3,
    },
    {
      id: "c1",
      time: secondStart - 12,
      command: "execute_javascript",
      script: "document.title",
      tab: { id: 7, url: PAGE.url, title: "Example" },
      outcome: "ok",
      duration_ms: 12,
    },
  ]);
});

test("list_tabs is recorded without script or tab; an unknown command is not recorded", async () => {
  const { activity } = await activityWith();
  activity.begin({ type: "command", id: "t", command: "list_tabs", params: {} })({ type: "result", id: "t", ok: true, result: [], tab: null });
  activity.begin({ type: "command", id: "u", command: "set_pilot", params: {} })(failed("u", "unknown_command"));
  const entries = await activity.list();
  assert.equal(entries.length, 1);
  assert.equal(entries[0].command, "list_tabs");
  assert.equal(entries[0].script, null);
  assert.equal(entries[0].tab, null);
  assert.equal(entries[0].outcome, "ok");
});

test("only the 20 newest are kept, newest first", async () => {
  const { activity, chrome, timers } = await activityWith();
  for (let i = 0; i < 25; i++) activity.begin(execute(`c${i}`, `${i}`))(ok(`c${i}`));
  const entries = await activity.list();
  assert.deepEqual(
    entries.map((e) => e.script),
    Array.from({ length: 20 }, (_, i) => `${24 - i}`),
  );
  assert.deepEqual(timers.pendingDelays(), [SAVE_DELAY_MS]); // one write, later
  await timers.runUntilIdle();
  assert.equal(chrome.sessionStore[ACTIVITY_KEY].length, 20);
});

test("scripts are cut to their first 300 characters", async () => {
  const { activity } = await activityWith();
  const long = "x".repeat(299) + "yz" + "w".repeat(1000);
  activity.begin(execute("long", long))(ok("long"));
  const [entry] = await activity.list();
  assert.equal(entry.script, "x".repeat(299) + "y");
});

test("the list is mirrored to storage.session and loaded back by a restarted worker", async () => {
  const { activity, chrome, timers } = await activityWith();
  activity.begin(execute("before"))(ok("before"));
  await timers.runUntilIdle();
  assert.equal(chrome.sessionStore[ACTIVITY_KEY][0].id, "before");
  assert.equal(chrome.calls.storageSet.length, 0, "nothing goes to storage.local, which is on disk");

  // A new worker: same storage.session, fresh memory. What it answers before the load is newer.
  const restarted = createActivity({ chrome, summaries: workerSummaries(), now: Date.now, timers });
  restarted.begin(execute("after"))(failed("after", "pilot_disabled"));
  assert.deepEqual(
    (await restarted.list()).map((e) => [e.id, e.outcome]),
    [
      ["after", "pilot_disabled"],
      ["before", "ok"],
    ],
  );
  await timers.runUntilIdle();
  assert.deepEqual(
    chrome.sessionStore[ACTIVITY_KEY].map((e) => e.id),
    ["after", "before"],
  );
});

test("junk in storage.session is ignored", async () => {
  const { activity } = await activityWith({ session: { [ACTIVITY_KEY]: [null, 3, { time: "x" }, { time: 1, command: "list_tabs" }] } });
  assert.deepEqual(await activity.list(), [{ time: 1, command: "list_tabs" }]);
});

test("clear empties the list in memory and in storage.session", async () => {
  const { activity, chrome } = await activityWith();
  activity.begin(execute("c1"))(ok("c1"));
  await activity.clear();
  assert.deepEqual(await activity.list(), []);
  assert.deepEqual(chrome.sessionStore[ACTIVITY_KEY], []);
});

// Through the whole background, as the daemon and the popup see it.

const start = startBackground;

beforeEach(() => {
  FakeWebSocket.instances = [];
});

test("the popup's get_activity lists answered commands, refusals included, and clear_activity empties it", async () => {
  const { chrome, ws } = await start();
  ws.receive(execute("c1"));
  await results(ws, 1);
  await chrome.storage.local.set({ pilotEnabled: false });
  ws.receive({ type: "command", id: "c2", command: "list_tabs", params: {} });
  await results(ws, 2);

  const { entries } = await ask(chrome, { type: "get_activity" });
  assert.deepEqual(
    entries.map((e) => [e.id, e.command, e.outcome]),
    [
      ["c2", "list_tabs", "pilot_disabled"],
      ["c1", "execute_javascript", "ok"],
    ],
  );
  assert.deepEqual(entries[1].tab, { id: 7, url: PAGE.url, title: "Example" });
  assert.ok(entries[1].duration_ms >= 0);

  const none = { entries: [], kept: { entries: [], dropped: null } };
  assert.deepEqual(await ask(chrome, { type: "clear_activity" }), none);
  assert.deepEqual(await ask(chrome, { type: "get_activity" }), none);
});

test("a content script may neither read nor clear the activity", async () => {
  const { chrome, ws } = await start();
  ws.receive(execute("c1"));
  await results(ws, 1);
  const page = { url: PAGE.url, tab: PAGE };
  assert.match((await ask(chrome, { type: "get_activity" }, page)).error, /extension's own pages/);
  assert.match((await ask(chrome, { type: "clear_activity" }, page)).error, /extension's own pages/);
  assert.match((await ask(chrome, { type: "clear_kept" }, page)).error, /extension's own pages/);
  assert.equal((await ask(chrome, { type: "get_activity" })).entries.length, 1);
});

test("the result frame goes out before the activity is written to storage", async () => {
  const { chrome, ws } = await start();
  const sentBeforeWrite = [];
  const set = chrome.storage.session.set;
  chrome.storage.session.set = async (items) => {
    sentBeforeWrite.push(ws.frames("result").length);
    return set(items);
  };
  ws.receive(execute("c1"));
  await results(ws, 1);
  await until(() => sentBeforeWrite.length === 1, "the write to storage.session");
  assert.deepEqual(sentBeforeWrite, [1]);
});

test("a failing storage.session breaks neither the result frame nor the popup's list", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { chrome, ws } = await start({ sessionFails: true });
  ws.receive(execute("c1"));
  const [result] = await results(ws, 1);
  assert.deepEqual(result, ok("c1"));
  await until(() => chrome.calls.sessionSet.length === 1, "the write to be tried");
  assert.ok(console.warn.mock.calls.some((c) => /could not save the recent activity/.test(c.arguments[0])));
  assert.deepEqual((await ask(chrome, { type: "get_activity" })).entries.map((e) => e.id), ["c1"]);
});

test("a storage.session that throws synchronously does not break the result frame either", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { chrome, ws } = await start();
  chrome.storage.session.set = () => {
    throw new TypeError("storage.session is not available");
  };
  ws.receive(execute("c1"));
  ws.receive(execute("c2"));
  const got = await results(ws, 2);
  assert.deepEqual(got, [ok("c1"), ok("c2")]);
});

test("a burst of commands costs one write, and those during a write one more, not one each", async () => {
  const { activity, chrome, timers } = await activityWith();
  let writes = 0;
  const set = chrome.storage.session.set.bind(chrome.storage.session);
  // A write that takes a turn of the event loop, as a real one does.
  chrome.storage.session.set = (items) => {
    writes++;
    return new Promise((resolve) => setImmediate(() => resolve(set(items))));
  };
  for (let i = 0; i < 25; i++) activity.begin(execute(`burst-${i}`))(ok(`burst-${i}`));
  assert.equal(writes, 0, "nothing is written at once");
  const first = timers.fireNext();
  await until(() => writes === 1, "the first write");
  // The first write is now under way.
  for (let i = 25; i < 50; i++) activity.begin(execute(`burst-${i}`))(ok(`burst-${i}`));
  await first;
  await timers.runUntilIdle(); // the write for those, and nothing after it
  assert.equal(writes, 2);
  assert.equal(chrome.sessionStore[ACTIVITY_KEY][0].id, "burst-49");
  assert.equal(chrome.sessionStore[ACTIVITY_KEY].length, 20);
});
