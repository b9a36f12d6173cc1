// The pointer's pure parts in shared/act-common.js: a click's button, count and modifiers, a key
// held, browser_mouse's actions and answers, where a drag left an element. Loaded as the content
// script loads them, with mouse.js and drag.js after act.js (they need no DOM to load).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const read = (name) => readFileSync(new URL(`../extension/${name}`, import.meta.url), "utf8");
const context = vm.createContext({});
for (const file of ["shared/act-common.js", "content/act-keys.js", "content/act-hit.js", "content/act.js", "content/mouse.js", "content/drag.js"]) {
  vm.runInContext(read(file), context, { filename: file });
}
const common = context.__tabpilotActCommon;
const plain = (value) => JSON.parse(JSON.stringify(value));

test("a click's options read into the event fields and the debugger's mask", () => {
  assert.deepEqual(plain(common.pointerOptions({})), {
    button: "left",
    count: 1,
    modifiers: { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false },
    bits: 0,
    names: [],
    code: 0,
    buttons: 1,
  });
  const right = common.pointerOptions({ button: "right", count: 2, modifiers: ["Ctrl", "Shift", "Control"] });
  assert.deepEqual(plain([right.code, right.buttons, right.count, right.bits, right.names]), [2, 2, 2, 10, ["Control", "Shift"]]);
  assert.equal(right.modifiers.ctrlKey && right.modifiers.shiftKey && !right.modifiers.altKey, true);
  assert.deepEqual([common.pointerOptions({ button: "middle" }).code, common.pointerOptions({ button: "middle" }).buttons], [1, 4]);
});

test("a click's answer says the button, the count and the modifiers", () => {
  const said = (options) => common.sentence("click", { what: 'button "Save"', ref: "e7", options: common.pointerOptions(options) });
  assert.equal(said({}), 'Clicked button "Save" (e7)');
  assert.equal(said({ count: 2 }), 'Double-clicked button "Save" (e7)');
  assert.equal(said({ count: 3 }), 'Triple-clicked button "Save" (e7)');
  assert.equal(said({ button: "right" }), 'Right-clicked button "Save" (e7)');
  assert.equal(said({ modifiers: ["Control", "Shift"] }), 'Control+Shift+clicked button "Save" (e7)');
  assert.equal(common.sentence("click", { what: 'button "Save"', ref: "e7" }), 'Clicked button "Save" (e7)');
});

test("a held key repeats after half a second, about 30 times a second, and is capped", () => {
  assert.deepEqual(plain(common.repeatTimes(400)), []);
  assert.deepEqual(plain(common.repeatTimes(600)), [500, 533, 566, 599]);
  assert.equal(common.repeatTimes(10_000).length, 288);
  assert.equal(common.MAX_HOLD_MS, 10_000);
  assert.equal(
    common.sentence("press", { what: 'textbox "Name"', ref: "e2", key: "a", held: 600, repeats: 4 }),
    'Held a for 600 ms (4 repeats) in textbox "Name" (e2)',
  );
  assert.equal(common.sentence("press", { key: "Shift", held: 100, repeats: 1 }), "Held Shift for 100 ms (1 repeat)");
});

test("a drag's answer says where the element ended up, or that it stayed", () => {
  const place = { index: 4, count: 5, parent: 'list "Todo"', moved: true };
  const onto = { what: 'listitem "Task B"', ref: "e3", toWhat: 'listitem "Task D"', toRef: "e5", place };
  assert.equal(common.sentence("drag", onto), 'Dragged listitem "Task B" (e3) onto listitem "Task D" (e5); it is now 4th of 5 in list "Todo"');
  const stayed = { ...onto, place: { ...place, index: 2, moved: false } };
  assert.equal(common.sentence("drag", stayed), 'Dragged listitem "Task B" (e3) onto listitem "Task D" (e5); it is still 2nd of 5 in list "Todo"');
  const gone = { what: 'listitem "Task B"', ref: "e3", x: 40, y: 300, over: 'list "Done"', place: null };
  assert.equal(common.sentence("drag", gone), 'Dragged listitem "Task B" (e3) to (40, 300) over list "Done"');
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(common.ordinal), ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"]);
});

test("browser_mouse's actions imply their button and count, and unknown ones are refused", () => {
  const of = (p) => common.mouseOptions({ x: 1, y: 1, ...p });
  assert.deepEqual([of({ action: "right_click" }).button, of({ action: "middle_click" }).button, of({ action: "double_click" }).count], ["right", "middle", 2]);
  assert.equal(of({ action: "down", button: "right" }).button, "right");
  for (const [p, message] of [
    [{ action: "fly" }, /Unknown action "fly"; the actions are click, double_click/],
    [{ action: "drag" }, /drag needs to_x and to_y/],
    [{ action: "click", modifiers: ["Super"] }, /Unknown modifier "Super"/],
  ]) {
    assert.throws(() => of(p), (err) => err.code === "invalid_request" && message.test(err.message));
  }
});

test("browser_mouse's answer names what was at the point", () => {
  const f = { x: 412, y: 230, element: 'button "Save" (e7)', names: [], button: "left", dx: 0, dy: 120 };
  assert.equal(common.mouseSentence("click", f), 'Clicked at (412, 230) on button "Save" (e7)');
  assert.equal(common.mouseSentence("right_click", { ...f, names: ["Shift"] }), 'Right-clicked at (412, 230) on button "Save" (e7) with Shift');
  assert.equal(common.mouseSentence("move", f), 'Moved the mouse to (412, 230) over button "Save" (e7)');
  assert.equal(common.mouseSentence("down", f), 'Pressed the left button at (412, 230) on button "Save" (e7)');
  assert.equal(common.mouseSentence("wheel", { ...f, moved: [0, 120] }), 'Turned the wheel by (0, 120) at (412, 230) on button "Save" (e7); it scrolled (0, 120) px');
  assert.equal(common.mouseSentence("wheel", f), 'Turned the wheel by (0, 120) at (412, 230) on button "Save" (e7)');
  assert.equal(
    common.mouseSentence("drag", { ...f, to_x: 10, to_y: 20, to: 'list "Done"' }),
    'Dragged from (412, 230) on button "Save" (e7) to (10, 20) over list "Done"',
  );
});

test("mouse.js and drag.js register their message types beside the other families'", () => {
  assert.deepEqual(Object.keys(context.__tabpilotContentTools).sort(), ["drag_place", "mouse", "mouse_at"]);
  assert.equal(typeof context.__tabpilotDrag.dragFrom, "function");
  assert.equal(typeof context.__tabpilotMouse.clickAt, "function");
});
