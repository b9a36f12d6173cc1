// shared/storage-state.js: chrome.cookies <-> Playwright storageState cookies, on the cases the daemon's
// storage_state.py is tested on too (tests/fixtures/storage_state_cases.json).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { fromChromeCookie, toChromeCookie, toChromeSetDetails } from "../extension/shared/storage-state.js";

const { cases } = JSON.parse(readFileSync(new URL("../tests/fixtures/storage_state_cases.json", import.meta.url), "utf8"));

test("the shared fixture has cases of every kind", () => {
  assert.ok(cases.length >= 8);
  assert.ok(cases.some((c) => c.chrome.partitionKey));
  assert.ok(cases.some((c) => c.chrome.hostOnly) && cases.some((c) => !c.chrome.hostOnly));
  assert.ok(cases.some((c) => c.chrome.session) && cases.some((c) => !c.chrome.session));
});

for (const c of cases) {
  test(`chrome -> playwright: ${c.case}`, () => {
    assert.deepEqual(fromChromeCookie(c.chrome), c.playwright);
  });
  test(`playwright -> chrome.cookies.set: ${c.case}`, () => {
    assert.deepEqual(toChromeSetDetails(c.playwright, c.storeId), c.set);
  });
  if (c.round_trip) {
    test(`round trip: ${c.case}`, () => {
      assert.deepEqual(toChromeCookie(fromChromeCookie(c.chrome), c.storeId), c.chrome);
    });
  }
}

test("a session cookie never carries an expirationDate to chrome.cookies.set", () => {
  const cookie = fromChromeCookie({ name: "a", value: "b", domain: "h.test", hostOnly: true, path: "/", session: true, expirationDate: 5 });
  assert.equal(cookie.expires, -1);
  assert.equal("expirationDate" in toChromeSetDetails(cookie), false);
});

test("a host-only cookie is set without a domain, a domain cookie with one", () => {
  const base = { name: "a", value: "b", path: "/", expires: -1, httpOnly: false, secure: false, sameSite: "Lax" };
  assert.equal("domain" in toChromeSetDetails({ ...base, domain: "shop.test" }), false);
  assert.equal(toChromeSetDetails({ ...base, domain: ".shop.test" }).domain, ".shop.test");
});
