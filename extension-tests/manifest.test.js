// The manifest is the one list of the files injected into pages (its content_scripts): the worker
// reads its lists rather than keeping its own (worker/tab/tabs.js), and every file it names exists.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { executorFiles, worldFiles } from "../extension/worker/tab/tabs.js";
import { NO_RECEIVER, fakeChrome, realTimers } from "./support/fake-chrome.js";
import { EXECUTOR_FILES, ISOLATED_WORLD_FILES, MAIN_WORLD_FILES, MANIFEST } from "./support/page-files.js";

const EXTENSION = new URL("../extension/", import.meta.url);
const exists = (path) => existsSync(new URL(path, EXTENSION));

test("every file the manifest names exists", () => {
  const named = [
    MANIFEST.background.service_worker,
    MANIFEST.action.default_popup,
    ...Object.values(MANIFEST.icons),
    ...MANIFEST.content_scripts.flatMap((entry) => entry.js),
  ];
  const missing = named.filter((path) => !exists(path));
  assert.deepEqual(missing, []);
});

test("the manifest has one isolated-world entry and one MAIN-world entry", () => {
  assert.deepEqual(
    MANIFEST.content_scripts.map((entry) => entry.world ?? null),
    [null, "MAIN"],
  );
});

test("the worker's world lists are the manifest's; the executor's are the MAIN world's but for three", () => {
  const { chrome } = fakeChrome();
  assert.deepEqual(worldFiles(chrome), { isolated: ISOLATED_WORLD_FILES, main: MAIN_WORLD_FILES });
  assert.deepEqual(executorFiles(chrome), EXECUTOR_FILES);
  assert.deepEqual(
    MAIN_WORLD_FILES.filter((file) => !EXECUTOR_FILES.includes(file)),
    ["page/page-log.js", "page/files.js", "page/inject.js"],
  );
});

test("a tab opened before the extension loaded gets the manifest's files, page world first", async () => {
  const tab = { id: 7, url: "https://example.com/", title: "Example", active: true, windowId: 1 };
  let sends = 0;
  const { chrome } = fakeChrome({
    tabs: [tab],
    onSend: () => {
      if (++sends === 1) throw new Error(NO_RECEIVER);
      return { ok: true, result: 1, result_type: "number", url: tab.url, title: tab.title };
    },
  });
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  const commands = createCommands({ chrome, pilot, timers: realTimers });
  const frame = { type: "command", id: "c1", command: "execute_javascript", params: { script: "1" } };
  const result = await commands.run(frame);
  assert.equal(result.ok, true);
  assert.deepEqual(
    chrome.calls.executeScript.map((details) => [details.world, details.files]),
    [
      ["MAIN", MAIN_WORLD_FILES],
      ["ISOLATED", ISOLATED_WORLD_FILES],
    ],
  );
});

// Outside tabs.js, which names the page world's own two files, the worker names no file the
// manifest injects: a list kept by hand beside the manifest's would drift from it. A file injected
// on demand only (content/ask-human.js, while a handoff is open) is the worker's own, and exists.
test("no worker module keeps a list of the injected files", () => {
  const worker = new URL("worker/", EXTENSION);
  const listed = new Set(MANIFEST.content_scripts.flatMap((entry) => entry.js));
  const named = [];
  for (const path of readdirSync(worker, { recursive: true }).filter((p) => p.endsWith(".js"))) {
    if (path === "tab/tabs.js") continue;
    const text = readFileSync(new URL(path, worker), "utf8");
    const files = text.matchAll(/["'`](?:content|page|shared)\/[\w-]+\.js["'`]/g);
    for (const [found] of files) {
      const file = found.slice(1, -1);
      if (listed.has(file)) named.push(`${path}: ${found}`);
      else assert.ok(exists(file), `${path} injects ${file}, which does not exist`);
    }
  }
  assert.deepEqual(named, []);
});
