// The truthful activity list (worker/link/activity.js): exports and handoffs kept until the person
// clears them, however many commands follow; the daemon's own refusals listed, folded into one
// entry with a count; every list bounded, and a bound that drops entries says so.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  ACTIVITY_KEY,
  createActivity,
  KEPT_KEY,
  MAX_ENTRIES,
  MAX_KEPT,
} from "../extension/worker/link/activity.js";
import { ask, startBackground } from "./support/activity.js";
import { FakeWebSocket, fakeChrome, manualTimers, results, until } from "./support/fake-chrome.js";
import { workerSummaries } from "./support/worker.js";


const command = (id, name, params = {}) => ({ type: "command", id, command: name, params });
const script = (id, source = "1") => command(id, "execute_javascript", { script: source, timeout_ms: 1000 });
const ok = (id, result = 2) => ({ type: "result", id, ok: true, result, tab: null });
const failed = (id, code) => ({ type: "result", id, ok: false, error: { code, message: "no" }, tab: null });
const exported = (id) => ({ type: "result", id, ok: true, result: { cookies: [{}, {}, {}], origins: [{}] }, tab: null });
const refusedFrame = (count, commands, code = "pilot_disabled") => ({ type: "refused", code, count, commands });

// browser_ask_human's family is not here yet: its entries are kept by their command's name.
const summaries = () => ({ ...workerSummaries(), browser_ask_human: (params) => `asked you: ${params.message}` });

async function activityWith(options = {}) {
  const { chrome } = fakeChrome(options);
  const time = { t: 1_700_000_000_000 };
  const timers = manualTimers();
  const activity = createActivity({ chrome, summaries: summaries(), now: () => time.t, timers });
  await activity.ready;
  return { chrome, activity, time, timers };
}

function run(activity, frame, result) {
  activity.begin(frame)(result);
}

test("an export stays kept after 25 more scripts have pushed it out of the recent list", async () => {
  const { activity, chrome, timers, time } = await activityWith();
  const exportedAt = time.t;
  run(activity, command("x1", "storage_export"), exported("x1"));
  for (let i = 0; i < 25; i++) {
    time.t += 10;
    run(activity, script(`s${i}`), ok(`s${i}`));
  }
  const recent = await activity.list();
  assert.equal(recent.length, MAX_ENTRIES);
  assert.ok(!recent.some((e) => e.command === "storage_export"), "the recent list holds the 20 newest only");

  const { entries, dropped } = await activity.kept();
  assert.equal(dropped, null);
  assert.deepEqual(
    entries.map((e) => [e.id, e.time, e.command, e.outcome, e.summary]),
    [["x1", exportedAt, "storage_export", "ok", "saved this browser's cookies and storage (3 cookies, 1 site)"]],
  );

  // Mirrored to storage.session, and loaded back by a restarted worker.
  await timers.runUntilIdle();
  assert.equal(chrome.sessionStore[KEPT_KEY].entries[0].id, "x1");
  const restarted = createActivity({ chrome, summaries: summaries(), timers });
  assert.deepEqual((await restarted.kept()).entries.map((e) => e.id), ["x1"]);
});

test("handoffs are kept by their command's name; other commands are not", async () => {
  const { activity } = await activityWith();
  run(activity, command("h1", "browser_ask_human", { message: "Please log in" }), ok("h1", { answer: "done" }));
  run(activity, command("n1", "browser_navigate", { url: "https://example.com/" }), ok("n1"));
  run(activity, command("i1", "storage_import", {}), ok("i1", { cookies: 1, origins: 0 }));
  const { entries } = await activity.kept();
  assert.deepEqual(
    entries.map((e) => [e.id, e.summary]),
    [["h1", "asked you: Please log in"]],
  );
});

test("each Clear empties its own list: the recent one keeps the exports, the kept one the commands", async () => {
  const { activity, chrome } = await activityWith();
  run(activity, command("x1", "storage_export"), exported("x1"));
  run(activity, script("s1"), ok("s1"));

  await activity.clear();
  assert.deepEqual(await activity.list(), []);
  assert.deepEqual((await activity.kept()).entries.map((e) => e.id), ["x1"]);
  assert.deepEqual(chrome.sessionStore[KEPT_KEY].entries.map((e) => e.id), ["x1"]);

  run(activity, script("s2"), ok("s2"));
  await activity.clearKept();
  assert.deepEqual(await activity.kept(), { entries: [], dropped: null });
  assert.deepEqual(chrome.sessionStore[KEPT_KEY], { entries: [], dropped: null });
  assert.deepEqual((await activity.list()).map((e) => e.id), ["s2"]);
  assert.deepEqual(chrome.sessionStore[ACTIVITY_KEY].map((e) => e.id), ["s2"]);
});

test("past MAX_KEPT the oldest kept entries go, and the list says how many and until when", async () => {
  const { activity, time } = await activityWith();
  const times = [];
  for (let i = 0; i < MAX_KEPT + 5; i++) {
    time.t += 1000;
    times.push(time.t);
    run(activity, command(`x${i}`, "storage_export"), exported(`x${i}`));
  }
  const { entries, dropped } = await activity.kept();
  assert.equal(entries.length, MAX_KEPT);
  assert.equal(entries[0].id, `x${MAX_KEPT + 4}`);
  assert.equal(entries.at(-1).id, "x5");
  assert.deepEqual(dropped, { count: 5, time: times[4] });
});

test("a refused export repeated is one kept entry with a count, so a loop of them pushes nothing out", async () => {
  const { activity, time } = await activityWith();
  run(activity, command("x0", "storage_export"), exported("x0"));
  for (let i = 1; i <= 3 * MAX_KEPT; i++) {
    time.t += 1;
    run(activity, command(`x${i}`, "storage_export"), failed(`x${i}`, "export_disabled"));
  }
  const { entries, dropped } = await activity.kept();
  assert.equal(dropped, null);
  assert.deepEqual(
    entries.map((e) => [e.id, e.outcome, e.refused ?? false, e.count ?? 1, e.time]),
    [
      ["x1", "export_disabled", true, 3 * MAX_KEPT, time.t],
      ["x0", "ok", false, 1, entries[1].time],
    ],
  );
});

test("refusal codes are marked as refusals; other failures are not", async () => {
  const { activity } = await activityWith();
  run(activity, script("a"), failed("a", "pilot_disabled"));
  run(activity, script("b"), failed("b", "site_blocked"));
  run(activity, script("c"), failed("c", "execution_error"));
  const entries = await activity.list();
  assert.deepEqual(
    entries.map((e) => [e.id, e.outcome, e.refused ?? false]),
    [
      ["c", "execution_error", false],
      ["b", "site_blocked", true],
      ["a", "pilot_disabled", true],
    ],
  );
});

test("the daemon's refusals are one entry with a count and the latest time, however many arrive", async () => {
  const { activity, chrome, timers, time } = await activityWith();
  run(activity, script("before"), ok("before"));
  const first = time.t + 5;
  time.t = first;
  activity.refused(refusedFrame(30, { execute_javascript: 28, browser_snapshot: 2 }));
  for (let i = 0; i < 100; i++) {
    time.t += 7;
    activity.refused(refusedFrame(1, { browser_read: 1 }));
  }
  const entries = await activity.list();
  assert.equal(entries.length, 2, "one entry for 130 refusals, and the command before them");
  const [folded, before] = entries;
  assert.equal(before.id, "before");
  assert.deepEqual(
    [folded.outcome, folded.refused, folded.daemon, folded.count, folded.time, folded.summary],
    ["pilot_disabled", true, true, 130, time.t, "refused 130 commands while AI Web Pilot was off"],
  );
  assert.deepEqual(folded.commands, { execute_javascript: 28, browser_snapshot: 2, browser_read: 100 });

  // A command in between ends the fold: the next refusals are a new entry.
  run(activity, script("between"), ok("between"));
  activity.refused(refusedFrame(1, { browser_navigate: 1 }));
  activity.refused(refusedFrame(2, { browser_act: 2 }, "site_blocked"));
  assert.deepEqual(
    (await activity.list()).map((e) => [e.outcome, e.count ?? 1, e.summary ?? e.script]),
    [
      ["site_blocked", 2, "refused 2 commands on sites you ruled out"],
      ["pilot_disabled", 1, "refused 1 command while AI Web Pilot was off"],
      ["ok", 1, "1"],
      ["pilot_disabled", 130, "refused 130 commands while AI Web Pilot was off"],
      ["ok", 1, "1"],
    ],
  );
  await timers.runUntilIdle();
  assert.equal(chrome.sessionStore[ACTIVITY_KEY].length, 5);
});

test("junk in a refused frame is ignored, and its command names are bounded", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { activity } = await activityWith();
  for (const junk of [
    { type: "refused" },
    refusedFrame(0, {}),
    refusedFrame(-3, {}),
    refusedFrame("7", {}),
    refusedFrame(1.5, {}),
    { type: "refused", code: 5, count: 1 },
  ]) {
    activity.refused(junk);
  }
  assert.deepEqual(await activity.list(), []);

  const names = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`tool_${i}`, 1]));
  activity.refused(refusedFrame(53, { ...names, __proto__: 1, "<b>x</b>": 1, tool_0: -4, [JSON.parse('"__proto__"')]: 1 }));
  const [entry] = await activity.list();
  assert.equal(entry.count, 53);
  assert.equal(Object.keys(entry.commands).length, 31, "30 names and other");
  assert.equal(entry.commands.other, 21);
  assert.equal(Object.getPrototypeOf(entry.commands), Object.prototype);
});

// Through the whole background, as the daemon and the popup see it.

beforeEach(() => {
  FakeWebSocket.instances = [];
});

const start = () => startBackground({ storage: { pilotEnabled: true, exportEnabled: true } });

test("the popup gets both lists; a refused frame from the daemon is listed; clear_kept empties the kept one", async () => {
  const { chrome, ws } = await start();
  ws.receive(command("x1", "storage_export"));
  await results(ws, 1);
  for (let i = 0; i < 25; i++) ws.receive(script(`s${i}`));
  await results(ws, 26);
  ws.receive(refusedFrame(37, { execute_javascript: 37 }));

  const answer = await ask(chrome, { type: "get_activity" });
  assert.equal(answer.entries.length, MAX_ENTRIES);
  assert.deepEqual(
    [answer.entries[0].summary, answer.entries[0].count],
    ["refused 37 commands while AI Web Pilot was off", 37],
  );
  // The fake browser has no page to read storage from: what is kept is the attempt, whatever came of it.
  assert.deepEqual(
    answer.kept.entries.map((e) => [e.id, e.command]),
    [["x1", "storage_export"]],
  );

  const cleared = await ask(chrome, { type: "clear_kept" });
  assert.deepEqual(cleared.kept, { entries: [], dropped: null });
  assert.equal(cleared.entries.length, MAX_ENTRIES, "the recent list stays");
  await until(async () => (await ask(chrome, { type: "get_activity" })).kept.entries.length === 0, "kept empty");
});

test("an export the daemon refused itself is kept too, folded with the same refusals", async () => {
  const { activity } = await activityWith();
  activity.refused(refusedFrame(3, { execute_javascript: 1, storage_export: 2 }));
  activity.refused(refusedFrame(1, { storage_export: 1 }));
  activity.refused(refusedFrame(1, { execute_javascript: 1 }));
  const { entries } = await activity.kept();
  assert.deepEqual(
    entries.map((e) => [e.command, e.outcome, e.refused, e.count, e.summary]),
    [["storage_export", "pilot_disabled", true, 3, "refused storage_export while AI Web Pilot was off"]],
  );
});
