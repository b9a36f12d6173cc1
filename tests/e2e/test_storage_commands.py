"""storage_export and storage_import (extension/worker/tools/storage.js) in a real Chromium.

The daemon sends these commands once contexts have their faces; until then the module runs here in
an extension page of the `browser` fixture, which has the service worker's chrome.* APIs: the real
chrome.cookies, chrome.scripting, chrome.debugger and tabs. The popup switch is flipped as a person
does, in the real popup.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.e2e.acting import in_extension
from tests.e2e.harness import POPUP_URL, set_popup_switch

# Runs one command of the module as the worker would: `args` = [command, params, managed, tab ids
# to discard first (the test driver would load a discarded tab again once it has the page)]. The
# debugger is used as debugger.js's send does (attach once, then the command), on the tabs the
# import opens only, so that the fixture's other tabs stay as they are.
RUN = """
const [command, params, managed, discard = []] = args;
const discarded = [];
for (const id of discard) discarded.push((await chrome.tabs.discard(id)).id);
const { createStorage } = await import("/worker/tools/storage.js");
const timers = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t) };
const held = new Map();
const debug = {
  async send(tabId, method, params) {
    if (!held.has(tabId)) held.set(tabId, chrome.debugger.attach({ tabId }, "1.3"));
    await held.get(tabId);
    return chrome.debugger.sendCommand({ tabId }, method, params);
  },
};
const flag = Promise.resolve({ managed });
const storage = createStorage({ chrome, debug, managed: flag, timers });
const tabsBefore = (await chrome.tabs.query({})).length;
let answer;
try {
  answer = { ok: true, ...(await storage[command](params)) };
} catch (err) {
  answer = { ok: false, code: err.code, message: err.message };
}
answer.discarded = discarded;
answer.tabs_left = (await chrome.tabs.query({})).length - tabsBefore;
answer.cookies_now = await chrome.cookies.getAll({ partitionKey: {} });
return answer;
"""

# Two tabs, loaded: one to discard, one showing an error page; `args` = [url of each].
OPEN_STALE_TABS = """
const loaded = (id) => new Promise((resolve) => {
  const heard = (tabId, change) => {
    if (tabId === id && change.status === "complete") {
      chrome.tabs.onUpdated.removeListener(heard);
      resolve();
    }
  };
  chrome.tabs.onUpdated.addListener(heard);
});
const [pageUrl, deadUrl] = args;
const stale = await chrome.tabs.create({ url: pageUrl, active: false });
const broken = await chrome.tabs.create({ url: deadUrl, active: false });
await Promise.all([loaded(stale.id), loaded(broken.id)]);
return [stale.id, broken.id];
"""

SET_COOKIES = """
const [url] = args;
await chrome.cookies.set({ url, name: "tp_sid", value: "s3cr3t", httpOnly: true });
await chrome.cookies.set({
  url: "https://widget.test/", name: "tp_chip", value: "1",
  secure: true, sameSite: "no_restriction",
  partitionKey: { topLevelSite: "https://shop.test" },
});
"""


# An HttpOnly session cookie of the test pages' host, as Playwright writes it.
HOST_COOKIE = {
    "name": "",
    "value": "",
    "domain": "127.0.0.1",
    "path": "/",
    "expires": -1,
    "httpOnly": True,
    "secure": False,
    "sameSite": "Lax",
}


def run(
    driver: webdriver.Chrome,
    command: str,
    params: dict[str, Any],
    managed: bool,
    discard: tuple[int, ...] = (),
) -> Any:
    return in_extension(driver, RUN, command, params, managed, discard)


def test_export_in_a_persons_chrome_follows_the_popup_switch(
    browser: webdriver.Chrome, pages: str
) -> None:
    browser.get(f"{pages}/index.html")
    browser.execute_script("localStorage.setItem('tp_token', 'e2e')")
    assert in_extension(browser, SET_COOKIES, pages + "/") is None
    stale, broken = in_extension(
        browser, OPEN_STALE_TABS, f"{pages}/other.html", "http://127.0.0.1:1/"
    )
    closing = [stale, broken]
    previous = browser.current_window_handle
    try:
        browser.switch_to.new_window("tab")
        browser.get(POPUP_URL)
        label = browser.find_element(By.CSS_SELECTOR, "label:has(#export-toggle)").text
        assert label == "Let the AI save this browser's cookies"
        assert "HttpOnly" in browser.find_element(By.ID, "export-help").text
        assert not browser.find_element(By.ID, "export-toggle").is_selected(), "off by default"
        browser.close()
        browser.switch_to.window(previous)

        refused = run(browser, "storage_export", {}, managed=False)
        assert (refused["ok"], refused["code"]) == (False, "export_disabled"), refused
        assert "tabpilot popup" in refused["message"]

        set_popup_switch(browser, "export-toggle", True)
        answer = run(browser, "storage_export", {}, managed=False, discard=(stale,))
        # Chrome may give a discarded tab a new id.
        closing = [*answer["discarded"], broken]
        assert answer["ok"], answer
        discarded = closing[0]
        state = answer["result"]
        by_name = {c["name"]: c for c in state["cookies"]}
        assert by_name["tp_sid"] == {**HOST_COOKIE, "name": "tp_sid", "value": "s3cr3t"}
        assert by_name["tp_chip"]["partitionKey"] == "https://shop.test"
        origin = f"http://{urlsplit(pages).netloc}"
        assert {"origin": origin, "localStorage": [{"name": "tp_token", "value": "e2e"}]} in state[
            "origins"
        ]
        assert {
            "tab_id": discarded,
            "url": f"{pages}/other.html",
            "reason": "discarded by Chrome",
        } in (state["skipped"])
        assert {
            "tab_id": broken,
            "url": "http://127.0.0.1:1/",
            "reason": "error page: the page failed to load",
        } in state["skipped"]
        assert f"{pages}/index.html" in [p["url"] for p in state["pages"]]
        urls = [p["url"] for p in state["pages"]] + [s["url"] for s in state["skipped"]]
        assert all(u.startswith("http") for u in urls), "extension pages are not pages"
    finally:
        set_popup_switch(browser, "export-toggle", False)
        in_extension(browser, "await chrome.tabs.remove(args);", *closing)
        browser.execute_script("localStorage.removeItem('tp_token')")


def test_import_replaces_the_cookies_and_writes_origins_that_are_not_open(
    browser: webdriver.Chrome, pages: str
) -> None:
    port = urlsplit(pages).port
    other = f"http://localhost:{port}"
    state = {
        "cookies": [
            {**HOST_COOKIE, "name": "tp_new", "value": "n3w"},
            {**HOST_COOKIE, "name": "tp_expired", "value": "x", "expires": 1000},
        ],
        "origins": [
            {"origin": other, "localStorage": [{"name": "tp_imported", "value": "yes"}]},
            # Nothing answers there: the blank page comes from the debugger, not the network.
            {
                "origin": "https://storage-import.invalid",
                "localStorage": [{"name": "k", "value": "v"}],
            },
        ],
    }
    assert in_extension(browser, SET_COOKIES, pages + "/") is None

    human = run(browser, "storage_import", state, managed=False)
    assert (human["ok"], human["code"]) == (False, "invalid_request"), human
    assert "managed context" in human["message"]
    assert {c["name"] for c in human["cookies_now"]} >= {"tp_sid", "tp_chip"}, "nothing changed"

    answer = run(browser, "storage_import", state, managed=True)
    try:
        assert answer["ok"], answer
        assert answer["result"]["cookies"] == 1
        assert answer["result"]["origins"] == 2
        assert [(r["name"], r["domain"]) for r in answer["result"]["refused"]] == [
            ("tp_expired", "127.0.0.1")
        ]
        assert answer["tabs_left"] == 0, "every tab the import opened is closed"
        # Every cookie was replaced, the partitioned one too.
        assert [(c["name"], c["httpOnly"]) for c in answer["cookies_now"]] == [("tp_new", True)]
        browser.get(f"{other}/other.html")
        assert browser.execute_script("return localStorage.getItem('tp_imported')") == "yes"
    finally:
        browser.execute_script("localStorage.removeItem('tp_imported')")
        browser.get(f"{pages}/index.html")
        in_extension(
            browser, "await chrome.cookies.remove({ url: args[0], name: 'tp_new' });", pages
        )
