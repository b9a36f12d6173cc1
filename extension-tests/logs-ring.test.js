// The per-tab ring behind the console and network logs (background/tab-log.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { createTabLog } from "../extension/worker/tools/logs-ring.js";

test("entries get increasing sequence numbers per tab, and the newest `limit` come back oldest first", () => {
  const log = createTabLog();
  for (let i = 1; i <= 5; i++) log.add(7, { text: `m${i}` });
  log.add(8, { text: "other tab" });
  const answer = log.query(7, { limit: 2 });
  assert.deepEqual(
    answer.entries.map((e) => [e.seq, e.text]),
    [
      [4, "m4"],
      [5, "m5"],
    ],
  );
  assert.equal(answer.matched, 5);
  assert.equal(answer.last_seq, 5);
  assert.equal(log.query(8).entries[0].seq, 1);
});

test("a ring of 1,000 keeps the last 1,000 of 1,500 and counts the evicted", () => {
  const log = createTabLog();
  for (let i = 1; i <= 1500; i++) log.add(7, { text: `m${i}` });
  const answer = log.query(7, { limit: 5000 });
  assert.equal(answer.entries.length, 1000);
  assert.equal(answer.entries[0].text, "m501");
  assert.equal(answer.entries.at(-1).text, "m1500");
  assert.equal(answer.evicted, 500);
  assert.equal(log.find(7, 500), null);
  assert.equal(log.find(7, 501).text, "m501");
});

test("`since` asks only for what is new, and survives a clear", () => {
  const log = createTabLog();
  log.add(7, { text: "a" });
  log.add(7, { text: "b" });
  const first = log.query(7);
  log.add(7, { text: "c" });
  assert.deepEqual(
    log.query(7, { since: first.last_seq }).entries.map((e) => e.text),
    ["c"],
  );
  assert.equal(log.clear(7), 3);
  log.add(7, { text: "d" });
  const after = log.query(7, { since: first.last_seq });
  assert.deepEqual(
    after.entries.map((e) => [e.seq, e.text]),
    [[4, "d"]],
  );
  assert.equal(after.evicted, 0);
});

test("a navigation starts a new page: the current page by default, every page on request", () => {
  const log = createTabLog();
  log.add(7, { text: "old" });
  const page = log.newPage(7, "https://next.example/");
  log.add(7, { text: "new" });
  assert.deepEqual(
    log.query(7).entries.map((e) => e.text),
    ["new"],
  );
  assert.deepEqual(log.query(7).page, page);
  const all = log.query(7, { allPages: true }).entries;
  assert.deepEqual(
    all.map((e) => [e.text, e.page]),
    [
      ["old", 1],
      ["new", 2],
    ],
  );
});

test("an entry may be added to the page it belongs to, not the current one", () => {
  const log = createTabLog();
  const first = log.page(7);
  log.newPage(7, "https://next.example/");
  log.add(7, { text: "late from the old page" }, first);
  assert.equal(log.query(7).entries.length, 0);
  assert.equal(log.query(7, { allPages: true }).entries[0].page, 1);
});

test("match filters before the limit; limit 0 answers only the counts", () => {
  const log = createTabLog();
  for (let i = 1; i <= 10; i++) log.add(7, { n: i });
  const even = log.query(7, { match: (e) => e.n % 2 === 0, limit: 3 });
  assert.deepEqual(
    even.entries.map((e) => e.n),
    [6, 8, 10],
  );
  assert.equal(even.matched, 5);
  const counts = log.query(7, { limit: 0 });
  assert.equal(counts.entries.length, 0);
  assert.equal(counts.matched, 10);
});

test("a dropped tab starts again from nothing", () => {
  const log = createTabLog();
  log.add(7, { text: "a" });
  log.drop(7);
  assert.equal(log.query(7).matched, 0);
  assert.equal(log.add(7, { text: "b" }).seq, 1);
});
