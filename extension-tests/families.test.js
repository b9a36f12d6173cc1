// The tool families (extension/worker/tools/): each family file's create…Tools(deps) answers
// {handlers, summaries}, and the dispatcher (worker/commands.js) and the popup's Recent activity
// (worker/link/activity.js) only gather them.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { createTabMachinery } from "../extension/worker/tab/machinery.js";
import { fakeChrome, manualTimers } from "./support/fake-chrome.js";
import { workerCommands } from "./support/worker.js";

const TOOLS = new URL("../extension/worker/tools/", import.meta.url);

// Every create…Tools factory that a file in worker/tools/ exports, by file.
async function factories() {
  const found = [];
  const files = readdirSync(TOOLS).filter((name) => name.endsWith(".js"));
  for (const file of files.sort()) {
    const module = await import(new URL(file, TOOLS));
    for (const [name, value] of Object.entries(module)) {
      if (/^create\w+Tools$/.test(name) && typeof value === "function") found.push({ file, name, create: value });
    }
  }
  return found;
}

test("each family's summaries are of commands that family handles", () => {
  const { families } = workerCommands();
  for (const [name, family] of Object.entries(families)) {
    const extra = Object.keys(family.summaries).filter((command) => !Object.hasOwn(family.handlers, command));
    assert.deepEqual(extra, [], `family ${name}`);
    for (const [command, summarize] of Object.entries(family.summaries)) {
      assert.ok(summarize === null || typeof summarize === "function", `${name}: ${command}`);
    }
  }
});

test("no command is handled by two families", () => {
  const owners = new Map();
  for (const [name, family] of Object.entries(workerCommands().families)) {
    for (const command of Object.keys(family.handlers)) {
      assert.equal(owners.get(command), undefined, `${command} is in ${owners.get(command)} and ${name}`);
      owners.set(command, name);
    }
  }
});

test("every family file in worker/tools/ is gathered by the dispatcher", async () => {
  const { chrome, fetch } = fakeChrome();
  const timers = manualTimers();
  const base = { chrome, fetch, timers, pilot: { ready: Promise.resolve(), isEnabled: () => true }, now: Date.now };
  const machinery = createTabMachinery({ chrome, timers });
  const deps = { ...base, managed: Promise.resolve({}), landingUrl: async () => "", ...machinery };
  const { handlers, families } = workerCommands();
  const found = await factories();
  assert.equal(found.length, Object.keys(families).length, found.map((f) => `${f.file}: ${f.name}`).join(", "));
  for (const { file, create } of found) {
    const family = create(deps);
    assert.equal(typeof family.handlers, "object", `${file}: handlers`);
    assert.equal(typeof family.summaries, "object", `${file}: summaries`);
    const missing = Object.keys(family.handlers).filter((command) => !Object.hasOwn(handlers, command));
    assert.deepEqual(missing, [], `${file}'s commands are not dispatched`);
  }
});

test("the popup records every command but ping, and words all but two", () => {
  const recorded = Object.keys(workerCommands().summaries).sort();
  assert.deepEqual(recorded, [
    "browser_act",
    "browser_ask_human",
    "browser_close",
    "browser_console_messages",
    "browser_downloads",
    "browser_emulate",
    "browser_fill_form",
    "browser_find",
    "browser_mouse",
    "browser_navigate",
    "browser_network_requests",
    "browser_network_rules",
    "browser_read",
    "browser_snapshot",
    "browser_tabs",
    "browser_take_screenshot",
    "browser_upload",
    "browser_wait_for",
    "eval_define_function",
    "execute_javascript",
    "list_tabs",
    "storage_export",
    "storage_import",
  ]);
  // With no words of their own: the popup shows the script, or words of its own.
  const silent = Object.entries(workerCommands().summaries).filter(([, summarize]) => summarize === null);
  assert.deepEqual(silent.map(([command]) => command).sort(), ["execute_javascript", "list_tabs"]);
});

test("command-names.mjs prints the commands the dispatcher handles", () => {
  const script = fileURLToPath(new URL("./support/command-names.mjs", import.meta.url));
  const printed = JSON.parse(execFileSync(process.execPath, [script], { encoding: "utf8" }));
  assert.deepEqual(printed, Object.keys(workerCommands().handlers).sort());
  assert.ok(printed.includes("execute_javascript") && printed.includes("browser_snapshot"));
});
