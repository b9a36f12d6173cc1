// The manifest declares no content script: the files injected into pages are listed once, in
// worker/tab/page-scripts.js, which registers them only while AI Web Pilot is on; the worker's other
// modules use that list rather than keeping their own, and every file it names exists.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { EXECUTOR_FILES as WORKER_EXECUTOR_FILES, PAGE_SCRIPTS } from "../extension/worker/tab/page-scripts.js";
import { NO_RECEIVER, fakeChrome, realTimers } from "./support/fake-chrome.js";
import { EXECUTOR_FILES, ISOLATED_WORLD_FILES, MAIN_WORLD_FILES, readExtension } from "./support/page-files.js";

const EXTENSION = new URL("../extension/", import.meta.url);
const exists = (path) => existsSync(new URL(path, EXTENSION));
const MANIFEST = JSON.parse(readExtension("manifest.json"));

test("every file the manifest and the page scripts name exists", () => {
  const named = [
    MANIFEST.background.service_worker,
    MANIFEST.action.default_popup,
    ...Object.values(MANIFEST.icons),
    ...ISOLATED_WORLD_FILES,
    ...MAIN_WORLD_FILES,
  ];
  const missing = named.filter((path) => !exists(path));
  assert.deepEqual(missing, []);
});

// A static content script runs in every page the person opens, whatever the switch says.
test("the manifest declares no content script, and keeps what registering them needs", () => {
  assert.equal(MANIFEST.content_scripts, undefined);
  assert.ok(MANIFEST.permissions.includes("scripting"));
  assert.deepEqual(MANIFEST.host_permissions, ["<all_urls>"]);
  // matchOriginAsFallback in registerContentScripts came with Chrome 119.
  assert.ok(Number(MANIFEST.minimum_chrome_version) >= 119);
});

test("the registered scripts are the two worlds' lists, in every frame, at document_start", () => {
  assert.deepEqual(
    PAGE_SCRIPTS.map((s) => [s.id, s.world, s.js]),
    [
      ["tabpilot-content", "ISOLATED", ISOLATED_WORLD_FILES],
      ["tabpilot-page", "MAIN", MAIN_WORLD_FILES],
    ],
  );
  for (const script of PAGE_SCRIPTS) {
    assert.deepEqual(script.matches, ["<all_urls>"]);
    assert.equal(script.allFrames, true);
    assert.equal(script.matchOriginAsFallback, true);
    assert.equal(script.runAt, "document_start");
  }
  assert.equal(ISOLATED_WORLD_FILES.at(-1), "content/content.js");
  assert.equal(MAIN_WORLD_FILES.at(-1), "page/inject.js");
});

test("the executor's files are the MAIN world's but for three", () => {
  assert.deepEqual(WORKER_EXECUTOR_FILES, EXECUTOR_FILES);
  assert.deepEqual(
    MAIN_WORLD_FILES.filter((file) => !EXECUTOR_FILES.includes(file)),
    ["page/page-log.js", "page/files.js", "page/inject.js"],
  );
});

test("a tab opened before the switch went on gets the same files on its first command, page world first", async () => {
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
    chrome.calls.executeScript.filter((details) => details.files).map((details) => [details.world, details.files]),
    [
      ["MAIN", MAIN_WORLD_FILES],
      ["ISOLATED", ISOLATED_WORLD_FILES],
    ],
  );
});

// Outside page-scripts.js, the worker names no injected file: a list kept by hand beside it would
// drift from it. A file injected on demand only (content/ask-human.js, while a handoff is open) is
// the worker's own, and exists.
test("no other worker module keeps a list of the injected files", () => {
  const worker = new URL("worker/", EXTENSION);
  const listed = new Set([...ISOLATED_WORLD_FILES, ...MAIN_WORLD_FILES]);
  const named = [];
  for (const path of readdirSync(worker, { recursive: true }).filter((p) => p.endsWith(".js"))) {
    if (path === "tab/page-scripts.js") continue;
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
