"""storage_state.py: Playwright's storageState format and named files; chrome.cookies conversion
(tests/chrome_cookies.py, the oracle of the extension's)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tabpilot.errors import InvalidRequest, StorageStateNotFound
from tabpilot.tools.storage_state import (
    MAX_EXPIRES,
    Cookie,
    parse_storage_state,
    read_storage_state,
    storage_path,
    write_storage_state,
)
from tests.chrome_cookies import from_chrome_cookie, to_chrome_cookie, to_chrome_set_details

FIXTURE = Path(__file__).parent / "fixtures" / "storage_state_cases.json"
CASES = json.loads(FIXTURE.read_text())["cases"]
IDS = [c["case"] for c in CASES]


def dump(cookie: Cookie) -> dict[str, Any]:
    return cookie.model_dump(mode="json", by_alias=True, exclude_none=True)


def cookie(**fields: Any) -> dict[str, Any]:
    base = {
        "name": "sid",
        "value": "v",
        "domain": "app.test",
        "path": "/",
        "expires": -1,
        "httpOnly": True,
        "secure": False,
        "sameSite": "Lax",
    }
    return {**base, **fields}


# ---- the cases extension-tests/storage-state.test.js checks too -------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_chrome_cookie_to_playwright(case: dict[str, Any]) -> None:
    assert dump(from_chrome_cookie(case["chrome"])) == case["playwright"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_playwright_cookie_to_chrome_set_details(case: dict[str, Any]) -> None:
    parsed = parse_storage_state({"cookies": [case["playwright"]], "origins": []}).cookies[0]
    assert to_chrome_set_details(parsed, case.get("storeId")) == case["set"]


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["round_trip"]], ids=[c["case"] for c in CASES if c["round_trip"]]
)
def test_chrome_round_trip(case: dict[str, Any]) -> None:
    assert (
        to_chrome_cookie(from_chrome_cookie(case["chrome"]), case.get("storeId")) == case["chrome"]
    )


def test_playwright_file_round_trip_is_exact() -> None:
    data = {
        "cookies": [c["playwright"] for c in CASES],
        "origins": [
            {
                "origin": "http://127.0.0.1:8000",
                "localStorage": [{"name": "token", "value": "t"}, {"name": "", "value": ""}],
            }
        ],
    }
    assert parse_storage_state(data).to_json() == data


# ---- validation ------------------------------------------------------------------------------


def test_a_cookie_given_by_url_is_folded_as_playwright_does() -> None:
    state = parse_storage_state(
        {"cookies": [{"name": "a", "value": "b", "url": "https://shop.test:8443/cart/items?x=1"}]}
    )
    assert dump(state.cookies[0]) == {
        "name": "a",
        "value": "b",
        "domain": "shop.test",
        "path": "/cart/",
        "expires": -1,
        "httpOnly": False,
        "secure": True,
        "sameSite": "Lax",
    }
    assert state.to_json()["origins"] == []


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"cookies": [cookie(sameSite="lax")]}, "`cookies[0].sameSite` Input should be 'Strict'"),
        ({"cookies": [cookie(domain="")]}, "`cookies[0]` a cookie needs `url`, or `domain` and"),
        (
            {"cookies": [{"name": "a", "value": "b", "url": "https://x.test/", "path": "/"}]},
            "`cookies[0]` give either `url` or `domain` and `path`, not both",
        ),
        (
            {"cookies": [{"name": "a", "value": "b", "url": "file:///etc/passwd"}]},
            "`cookies[0]` `url` must be an http(s) URL",
        ),
        ({"cookies": [cookie(expires=-5)]}, "`expires` must be -1 (a session cookie)"),
        ({"cookies": [cookie(expires=0)]}, "`expires` must be -1"),
        ({"cookies": [cookie(expires=MAX_EXPIRES + 1)]}, "`expires` must be -1"),
        ({"cookies": [cookie(path="app")]}, "`path` must start with '/'"),
        ({"cookies": [cookie(name="", value="")]}, "`name` and `value` are both empty"),
        ({"cookies": [cookie(value="a; b")]}, "`value` holds ';', which no browser accepts"),
        ({"cookies": [cookie(name="a\nb")]}, "`name` holds '\\n'"),
        ({"cookies": [cookie(name="a=b")]}, "`name` holds '='"),
        ({"cookies": [cookie(sameSite="None")]}, "`sameSite` 'None' needs `secure`: true"),
        ({"cookies": [cookie(partitionKey="https://a.test")]}, "`partitionKey` needs `secure`"),
        ({"cookies": [cookie(name="__Secure-id")]}, "has a prefix that needs `secure`: true"),
        (
            {"cookies": [cookie(name="__Host-id", secure=True, domain=".app.test")]},
            "needs a host-only `domain`",
        ),
        ({"cookies": [cookie(name="__Host-id", secure=True, path="/app")]}, "and `path` '/'"),
        (
            {"cookies": [cookie(partitionKey="site.test")]},
            "`partitionKey` must be a top-level site",
        ),
        (
            {"cookies": [cookie(httpOnly="yes")]},
            "`cookies[0].httpOnly` Input should be a valid boolean",
        ),
        (
            {"cookies": [cookie(hostOnly=True)]},
            "`cookies[0].hostOnly` is not a field of Playwright's storage state",
        ),
        ({"cookies": [{"value": "v", "url": "http://a.test/"}]}, "`cookies[0].name` is required"),
        (
            {"origins": [{"origin": "http://a.test/path", "localStorage": []}]},
            "`origins[0].origin` String should match pattern",
        ),
        ({"origins": [{"origin": "http://a.test"}]}, "`origins[0].localStorage` is required"),
        (
            {"origins": [{"origin": "http://a.test", "localStorage": [{"name": "k", "value": 1}]}]},
            "`origins[0].localStorage[0].value` Input should be a valid string",
        ),
        ({"cookie": []}, "`cookie` is not a field"),
    ],
)
def test_bad_input_names_the_field(data: dict[str, Any], expected: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        parse_storage_state(data)
    assert err.value.code == "invalid_request"
    assert err.value.status == 400
    assert expected in err.value.message
    assert err.value.message.startswith("Invalid storage state: ")
    assert err.value.message.endswith("BrowserContext.storage_state() writes it.")


def test_not_an_object() -> None:
    with pytest.raises(InvalidRequest, match="must be a JSON object with `cookies` and `origins`"):
        parse_storage_state([])


def test_many_errors_are_cut_to_five() -> None:
    with pytest.raises(InvalidRequest, match=r"\(and 2 more\)"):
        parse_storage_state({"cookies": [cookie(sameSite="x") for _ in range(7)]})


def test_playwright_extras_load() -> None:
    # Newer Playwright files may carry IndexedDB and the ancestor bit; they must still load.
    state = parse_storage_state(
        {
            "cookies": [
                cookie(partitionKey="https://a.test", secure=True, _crHasCrossSiteAncestor=False)
            ],
            "origins": [{"origin": "https://a.test", "localStorage": [], "indexedDB": []}],
        }
    )
    assert state.cookies[0].crHasCrossSiteAncestor is False
    assert state.origins[0].indexedDB == []


# ---- named files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "file"),
    [
        ("login", "login.json"),
        ("login.json", "login.json"),
        ("a.b-c_9", "a.b-c_9.json"),
        ("x" * 100, "x" * 100 + ".json"),
    ],
)
def test_storage_path(tmp_path: Path, name: str, file: str) -> None:
    assert storage_path(tmp_path, name) == tmp_path / "storage" / file


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "it is empty"),
        ("../token", "path separator"),
        ("a/b", "path separator"),
        ("a\\b", "path separator"),
        ("/etc/passwd", "path separator"),
        (".bashrc", "starts with '.'"),
        ("..", "starts with '.'"),
        ("a..b", "holds '..'"),
        ("x" * 101, "101 characters long"),
        ("a b", "only letters, digits"),
        ("-rf", "only letters, digits"),
        (".json", "starts with '.'"),
        ("ü", "only letters, digits"),
        ("a\0b", "path separator"),
    ],
)
def test_bad_storage_names(tmp_path: Path, name: str, why: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        storage_path(tmp_path, name)
    assert why in err.value.message
    assert "Give a short name such as 'login'" in err.value.message


def test_write_is_private_and_reads_back(tmp_path: Path) -> None:
    os.umask(0o022)
    state = parse_storage_state(
        {
            "cookies": [c["playwright"] for c in CASES],
            "origins": [
                {"origin": "http://app.test", "localStorage": [{"name": "ü", "value": "€"}]}
            ],
        }
    )
    path = write_storage_state(tmp_path, "login", state)
    assert path == tmp_path / "storage" / "login.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text(encoding="utf-8")) == state.to_json()
    assert read_storage_state(tmp_path, "login.json") == state
    assert os.listdir(path.parent) == ["login.json"]  # no temporary file left behind


def test_overwrite_replaces_and_tightens_a_loose_directory(tmp_path: Path) -> None:
    (tmp_path / "storage").mkdir(mode=0o755)
    os.chmod(tmp_path / "storage", 0o755)
    write_storage_state(tmp_path, "s", parse_storage_state({"cookies": [cookie()]}))
    write_storage_state(tmp_path, "s", parse_storage_state({}))
    assert read_storage_state(tmp_path, "s").cookies == []
    assert stat.S_IMODE((tmp_path / "storage").stat().st_mode) == 0o700


def test_read_missing(tmp_path: Path) -> None:
    with pytest.raises(StorageStateNotFound) as missing:
        read_storage_state(tmp_path, "nope")
    assert missing.value.code == "storage_state_not_found" and missing.value.status == 404
    assert str(tmp_path / "storage" / "nope.json") in str(missing.value)
    assert "Save one first with browser_context_save_storage" in str(missing.value)


def test_read_refuses_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    (tmp_path / "storage").mkdir()
    (tmp_path / "storage" / "link.json").symlink_to(target)
    with pytest.raises(InvalidRequest, match="Cannot read storage state 'link'"):
        read_storage_state(tmp_path, "link")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{not json", "is not valid JSON"),
        (b"\xff\xfe", "is not valid JSON"),
        (b"[]", "must be a JSON object"),
        (b'{"cookies": [{"name": 1}]}', "`cookies[0].name`"),
    ],
)
def test_read_bad_file(tmp_path: Path, content: bytes, expected: str) -> None:
    (tmp_path / "storage").mkdir()
    (tmp_path / "storage" / "bad.json").write_bytes(content)
    with pytest.raises(InvalidRequest, match=expected.replace("[", r"\[").replace("]", r"\]")):
        read_storage_state(tmp_path, "bad")


# ---- Playwright itself, when installed (it is not a test dependency) ---------------------------

#: Why the two checks against Playwright may not run: make test installs Chromium (so its absence
#: is a failure here), but not Playwright, a large package tabpilot itself never uses.
PLAYWRIGHT_OPTIONAL = (
    "Playwright is optional: `pip install playwright` to check the files against Playwright's "
    "own storageState loader on /usr/bin/chromium"
)


def test_playwright_loads_a_written_file(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_OPTIONAL)
    state = parse_storage_state(
        {
            "cookies": [
                cookie(name="sid", value="s3cret", domain="app.test"),
                cookie(
                    name="theme",
                    value="dark",
                    domain=".app.test",
                    httpOnly=False,
                    expires=1900000000,
                    sameSite="Strict",
                ),
            ],
            "origins": [
                {"origin": "http://app.test", "localStorage": [{"name": "token", "value": "t1"}]}
            ],
        }
    )
    path = write_storage_state(tmp_path, "login", state)
    seen: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            context = browser.new_context(storage_state=str(path))
            page = context.new_page()

            def serve(route: Any) -> None:
                seen.append(route.request.headers.get("cookie", ""))
                route.fulfill(status=200, content_type="text/html", body="<p>app</p>")

            page.route("http://app.test/**", serve)
            page.goto("http://app.test/")
            assert page.evaluate("localStorage.getItem('token')") == "t1"
            assert page.evaluate("document.cookie") == "theme=dark"  # sid is HttpOnly
            # What Playwright saves back parses here, and keeps host-only apart from domain cookies.
            back = parse_storage_state(context.storage_state())
        finally:
            browser.close()
    assert sorted(seen[0].split("; ")) == ["sid=s3cret", "theme=dark"]
    by_name = {c.name: c for c in back.cookies}
    assert by_name["sid"].domain == "app.test" and by_name["sid"].expires == -1
    assert by_name["theme"].domain == ".app.test" and by_name["theme"].expires > 0
    assert back.origins[0].localStorage[0].value == "t1"


@pytest.mark.parametrize(
    ("url", "domain", "path"),
    [
        ("http://[::1]:8080/a", "[::1]", "/"),
        ("https://user@Shop.TEST/x/y", "shop.test", "/x/"),
        ("http://127.0.0.1:9", "127.0.0.1", "/"),
    ],
)
def test_url_hosts(url: str, domain: str, path: str) -> None:
    folded = parse_storage_state({"cookies": [{"name": "a", "value": "b", "url": url}]}).cookies[0]
    assert (folded.domain, folded.path) == (domain, path)


def test_chrome_sets_and_lists_each_case_as_converted(tmp_path: Path) -> None:
    """extension/shared/storage-state.js in a real service worker: chrome.cookies.set with each
    case's details, then chrome.cookies.getAll, gives back the case's Playwright cookie."""
    sync_api = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_OPTIONAL)
    ext = tmp_path / "ext"
    ext.mkdir()
    lib = Path(__file__).parents[1] / "extension" / "shared" / "storage-state.js"
    (ext / "storage-state.js").write_text(lib.read_text())
    (ext / "sw.js").write_text('import * as s from "./storage-state.js";\nglobalThis.s = s;\n')
    manifest = {
        "manifest_version": 3,
        "name": "cookies",
        "version": "1",
        "permissions": ["cookies"],
        "host_permissions": ["<all_urls>"],
        "background": {"service_worker": "sw.js", "type": "module"},
    }
    (ext / "manifest.json").write_text(json.dumps(manifest))
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tmp_path / "profile",
            executable_path="/usr/bin/chromium",
            headless=True,
            args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}"],
        )
        try:
            worker = (
                context.service_workers[0]
                if context.service_workers
                else (context.wait_for_event("serviceworker", timeout=10_000))
            )
            listed = worker.evaluate(
                """async (cookies) => {
                  const out = [];
                  for (const c of cookies) {
                    await chrome.cookies.set(s.toChromeSetDetails(c));
                    const query = { name: c.name };
                    if (c.partitionKey) query.partitionKey = { topLevelSite: c.partitionKey };
                    out.push((await chrome.cookies.getAll(query)).map(s.fromChromeCookie));
                  }
                  return out;
                }""",
                [c["playwright"] for c in CASES],
            )
        finally:
            context.close()
    for case, got in zip(CASES, listed, strict=True):
        want = case["playwright"]
        assert len(got) == 1, case["case"]
        (cookie_back,) = got
        # Chrome caps expiry at 400 days and always reports a partitioned cookie's ancestor bit.
        assert (cookie_back.pop("expires") == -1) == (want["expires"] == -1), case["case"]
        if "partitionKey" in want:
            assert cookie_back.pop("_crHasCrossSiteAncestor") == want.get(
                "_crHasCrossSiteAncestor", True
            )
        expected = {
            k: v for k, v in want.items() if k not in ("expires", "_crHasCrossSiteAncestor")
        }
        assert cookie_back == expected, case["case"]
