// browser_act's shared parts (shared/act-common.js) and the DOM route's pure parts (content/act-hit.js, act.js), loaded
// as the content script loads them: classic scripts in one realm, act-common first.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const read = (name) => readFileSync(new URL(`../extension/${name}`, import.meta.url), "utf8");
const context = vm.createContext({});
vm.runInContext(read("shared/act-common.js"), context, { filename: "shared/act-common.js" });
vm.runInContext(read("content/act-keys.js"), context, { filename: "content/act-keys.js" });
vm.runInContext(read("content/act-hit.js"), context, { filename: "content/act-hit.js" });
vm.runInContext(read("content/act.js"), context, { filename: "content/act.js" });
const common = context.__tabpilotActCommon;
const act = context.__tabpilotAct;
const plain = (value) => JSON.parse(JSON.stringify(value));

function refusal(fn) {
  try {
    fn();
  } catch (err) {
    return { code: err.code, message: err.message, data: err.data };
  }
  assert.fail("expected a refusal");
}

test("key names read into the fields of key events and the debugger's modifier bits", () => {
  assert.deepEqual(plain(common.parseKey("Enter")), {
    key: "Enter",
    code: "Enter",
    keyCode: 13,
    text: "\r",
    modifiers: { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false },
    bits: 0,
    name: "Enter",
  });
  const selectAll = common.parseKey("Control+a");
  assert.deepEqual([selectAll.key, selectAll.code, selectAll.keyCode, selectAll.text, selectAll.bits, selectAll.name], ["a", "KeyA", 65, "", 2, "Control+a"]);
  assert.equal(common.parseKey("Ctrl+Shift+Tab").bits, 10);
  assert.equal(common.parseKey("Shift+a").key, "A");
  assert.equal(common.parseKey("Shift+a").text, "A");
  assert.deepEqual([common.parseKey("7").code, common.parseKey("7").keyCode], ["Digit7", 55]);
  assert.deepEqual([common.parseKey("Space").key, common.parseKey("Space").text, common.parseKey("Space").name], [" ", " ", "Space"]);
  assert.equal(common.parseKey("Control++").key, "+");
  assert.equal(common.parseKey("ArrowDown").keyCode, 40);
  assert.equal(common.parseKey("F5").keyCode, 116);
});

test("an unknown key or modifier is refused with the names to use", () => {
  const key = refusal(() => common.parseKey("Enterr"));
  assert.equal(key.code, "invalid_request");
  assert.match(key.message, /Unknown key "Enterr".*Enter, Tab/);
  const modifier = refusal(() => common.parseKey("Hyper+a"));
  assert.match(modifier.message, /Unknown modifier "Hyper".*Alt, Control, Meta and Shift/);
});

test("the DOM route does the browser's own action for typing keys, Enter, Tab, Backspace and select-all only", () => {
  const handles = (k) => common.domHandles(common.parseKey(k));
  assert.deepEqual(["a", "Enter", "Tab", "Shift+Tab", "Backspace", "Space", "Control+a", "Escape"].map(handles), Array(8).fill(true));
  assert.deepEqual(["ArrowDown", "PageDown", "Home", "F5", "Control+c"].map(handles), Array(5).fill(false));
});

test("each kind is checked for what it needs before anything is sent", () => {
  const cases = [
    [{ kind: "fly", ref: "e1" }, /Unknown kind "fly"; the kinds are click, type, press, scroll, hover, select, check, uncheck, drag/],
    [{ kind: "drag", ref: "e1" }, /drag needs to_ref, or to_x and to_y/],
    [{ kind: "drag", ref: "e1", to_ref: "e2", modifiers: ["Hyper"] }, /Unknown modifier "Hyper"/],
    [{ kind: "click", ref: "e1", button: "side" }, /Unknown button "side"/],
    [{ kind: "click", ref: "e1", count: 4 }, /count must be 1, 2 or 3/],
    [{ kind: "press", key: "a", hold_ms: 60_000 }, /hold_ms must be an integer from 0 to 10000/],
    [{ kind: "click" }, /click needs the ref/],
    [{ kind: "type", ref: "e1" }, /type needs the text/],
    [{ kind: "press" }, /press needs a key/],
    [{ kind: "scroll", direction: "sideways" }, /Unknown direction "sideways"/],
    [{ kind: "select", ref: "e1" }, /select needs values/],
  ];
  for (const [params, message] of cases) {
    const error = refusal(() => common.checkParams(params));
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, message);
  }
  for (const params of [{ kind: "type", text: "x" }, { kind: "press", key: "Tab" }, { kind: "scroll" }, { kind: "select", ref: "e2", text: "Blue" }]) {
    common.checkParams(params);
  }
});

test("descriptions read as the contract's examples", () => {
  const s = common.sentence;
  const button = 'button "Add to cart"';
  assert.equal(s("click", { what: button, ref: "e12" }), 'Clicked button "Add to cart" (e12)');
  assert.equal(s("type", { what: 'textbox "Email"', ref: "e3", text: "a@b.c", submit: true }), 'Typed 5 characters into textbox "Email" (e3) and pressed Enter');
  assert.equal(s("type", { what: 'textbox "Email"', ref: null, text: "é" }), 'Typed 1 character into textbox "Email"');
  assert.equal(s("press", { key: "Enter" }), "Pressed Enter");
  assert.match(s("press", { key: "ArrowDown", noDefault: true }), /^Pressed ArrowDown; .*needs trusted: true$/);
  assert.equal(s("scroll", { direction: "down", amount: 600, moved: 600 }), "Scrolled down 600 px");
  assert.equal(s("scroll", { direction: "down", amount: 600, moved: 120 }), "Scrolled down 120 px of the 600 asked: the page is at its bottom");
  assert.equal(s("scroll", { what: 'list "Results"', ref: "e4" }), 'Scrolled list "Results" (e4) into view');
  assert.equal(s("select", { what: 'combobox "Colour"', ref: "e7", labels: ["Blue"] }), 'Selected "Blue" in combobox "Colour" (e7)');
  assert.equal(s("check", { what: 'checkbox "Agree"', ref: "e9", state: true }), 'Checked checkbox "Agree" (e9)');
  assert.equal(s("uncheck", { what: 'checkbox "Agree"', ref: "e9", already: true }), 'Checkbox "Agree" (e9) was already unchecked');
  assert.equal(s("check", { what: 'checkbox "Agree"', ref: "e9", state: false }), 'Clicked checkbox "Agree" (e9), but it is still unchecked');
  assert.equal(s("hover", { what: 'link "Menu"', ref: "e2" }), 'Hovered over link "Menu" (e2)');
});

test("the element in the way is named by tag, id and classes", () => {
  const el = { tagName: "DIV", id: "cookie-banner", classList: ["overlay", "a", "b", "c"] };
  assert.equal(act.nameOf(el), "div#cookie-banner.overlay.a.b");
  assert.equal(act.nameOf({ tagName: "SPAN", id: "", classList: [] }), "span");
  assert.equal(act.nameOf(null), "an unknown element");
});

test("options are picked by value, then label, then label in any case; a missing one lists the options", () => {
  const options = [
    { value: "r", label: "Red", disabled: false },
    { value: "b", label: "Blue", disabled: false },
    { value: "g", label: "Green", disabled: true },
  ];
  assert.deepEqual(plain(act.pickOptions(options, ["b"], false, "it")), [1]);
  assert.deepEqual(plain(act.pickOptions(options, ["Red"], false, "it")), [0]);
  assert.deepEqual(plain(act.pickOptions(options, [" blue "], false, "it")), [1]);
  assert.deepEqual(plain(act.pickOptions(options, ["Red", "b"], true, "it")), [0, 1]);
  const missing = refusal(() => act.pickOptions(options, ["Purple"], false, 'combobox "Colour" (e7)'));
  assert.equal(missing.code, "invalid_request");
  assert.equal(missing.message, 'combobox "Colour" (e7) has no option "Purple"; its options are "Red" (value "r"), "Blue" (value "b"), "Green" (value "g").');
  assert.deepEqual(plain(missing.data.options), options.map(({ value, label }) => ({ value, label })));
  assert.match(refusal(() => act.pickOptions(options, ["Green"], false, "it")).message, /option "Green" of it is disabled/);
  assert.match(refusal(() => act.pickOptions(options, ["r", "b"], false, "it")).message, /it takes one option, not 2/);
  const many = Array.from({ length: 25 }, (_, i) => ({ value: `v${i}`, label: `v${i}`, disabled: false }));
  const long = refusal(() => act.pickOptions(many, ["x"], false, "it"));
  assert.match(long.message, /"v19", and 5 more\.$/);
  assert.equal(long.data.options.length, 20);
});
