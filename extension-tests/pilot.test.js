// The AI Web Pilot switch: its first value, the badge, and change notices.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createPilot } from "../extension/worker/link/pilot.js";
import { fakeChrome, tick } from "./support/fake-chrome.js";

test("a normal install starts with the switch off and stores that", async () => {
  const { chrome, fetch } = fakeChrome();
  const pilot = createPilot({ chrome, fetch });
  await pilot.ready;
  assert.equal(pilot.isEnabled(), false);
  assert.equal(chrome.store.pilotEnabled, false);
  assert.equal(chrome.calls.badge.at(-1), "");
});

test('managed.json {"pilot_default": true} starts it on when nothing is stored', async () => {
  const { chrome, fetch } = fakeChrome({ managed: { pilot_default: true } });
  const pilot = createPilot({ chrome, fetch });
  await pilot.ready;
  assert.equal(pilot.isEnabled(), true);
  assert.equal(chrome.store.pilotEnabled, true);
  assert.equal(chrome.calls.badge.at(-1), "ON");
});

test("a stored value wins over managed.json", async () => {
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: false }, managed: { pilot_default: true } });
  const pilot = createPilot({ chrome, fetch });
  await pilot.ready;
  assert.equal(pilot.isEnabled(), false);
});

test("managed.json without pilot_default true leaves it off", async () => {
  const { chrome, fetch } = fakeChrome({ managed: { pilot_default: "yes" } });
  const pilot = createPilot({ chrome, fetch });
  await pilot.ready;
  assert.equal(pilot.isEnabled(), false);
});

test("a change in storage updates the copy, the badge and notifies", async () => {
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: false } });
  const pilot = createPilot({ chrome, fetch });
  await pilot.ready;
  const seen = [];
  pilot.onChange((enabled) => seen.push(enabled));
  await chrome.storage.local.set({ pilotEnabled: true });
  await tick();
  assert.equal(pilot.isEnabled(), true);
  assert.equal(chrome.calls.badge.at(-1), "ON");
  await chrome.storage.local.set({ pilotEnabled: false });
  assert.deepEqual(seen, [true, false]);
  assert.equal(chrome.calls.badge.at(-1), "");
});

test("storage is closed to content scripts, so only the popup and the worker write the switch", async () => {
  const { chrome, fetch } = fakeChrome();
  await createPilot({ chrome, fetch }).ready;
  assert.equal(chrome.calls.accessLevel, "TRUSTED_CONTEXTS");
});
