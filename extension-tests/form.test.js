// browser_fill_form's pure parts: what a field takes (content/form.js, loaded as the content script
// loads it, after act-common and act-keys), and the worker's params check and popup summary
// (worker/tools/form.js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { checkFormParams, fillSummary, MAX_FIELDS } from "../extension/worker/tools/form.js";

const read = (name) => readFileSync(new URL(`../extension/${name}`, import.meta.url), "utf8");
const context = vm.createContext({});
for (const file of ["shared/act-common.js", "content/act-keys.js", "content/act-hit.js", "content/act.js", "content/form.js"]) {
  vm.runInContext(read(file), context, { filename: file });
}
const form = context.__tabpilotForm;
const textTypes = context.__tabpilotActKeys.TEXT_TYPES;

function refusal(fn) {
  try {
    fn();
  } catch (err) {
    return { code: err.code, message: err.message };
  }
  assert.fail("expected a refusal");
}

test("the content script registers fill_form as a family's message type", () => {
  assert.equal(typeof context.__tabpilotContentTools.fill_form, "function");
});

test("what a field takes follows its tag, type and role", () => {
  const kind = (el) => form.kindOf({ role: null, editable: false, textTypes, ...el });
  const cases = [
    [{ tag: "INPUT", type: "text" }, "text"],
    [{ tag: "INPUT", type: "email" }, "text"],
    [{ tag: "INPUT", type: "date" }, "text"],
    [{ tag: "INPUT", type: "number" }, "text"],
    [{ tag: "INPUT", type: "color" }, "text"],
    [{ tag: "INPUT", type: "password" }, "secret"],
    [{ tag: "INPUT", type: "range" }, "range"],
    [{ tag: "INPUT", type: "checkbox" }, "check"],
    [{ tag: "INPUT", type: "radio" }, "check"],
    [{ tag: "INPUT", type: "text", role: "combobox" }, "combobox"],
    [{ tag: "INPUT", type: "file" }, null],
    [{ tag: "INPUT", type: "submit" }, null],
    [{ tag: "TEXTAREA" }, "text"],
    [{ tag: "SELECT" }, "select"],
    [{ tag: "DIV", role: "switch" }, "check"],
    [{ tag: "DIV", role: "checkbox" }, "check"],
    [{ tag: "DIV", role: "combobox" }, "combobox"],
    [{ tag: "UL", role: "listbox" }, "listbox"],
    [{ tag: "DIV", editable: true }, "text"],
    [{ tag: "BUTTON" }, null],
    [{ tag: "DIV" }, null],
  ];
  for (const [el, want] of cases) assert.equal(kind(el), want, JSON.stringify(el));
});

test("a value of the wrong type for its field is refused with what the field takes", () => {
  assert.equal(form.valuesFor("text", "Ada", "it"), "Ada");
  assert.equal(form.valuesFor("check", false, "it"), false);
  assert.deepEqual([...form.valuesFor("select", "Red", "it")], ["Red"]);
  assert.deepEqual([...form.valuesFor("listbox", ["a", "b"], "it")], ["a", "b"]);
  assert.deepEqual(refusal(() => form.valuesFor("text", true, 'textbox "Name" (e1)')), {
    code: "invalid_request",
    message: 'textbox "Name" (e1) takes a string, not the boolean true.',
  });
  assert.deepEqual(refusal(() => form.valuesFor("check", "yes", "it")), {
    code: "invalid_request",
    message: 'it takes true or false, not the string "yes".',
  });
  assert.equal(refusal(() => form.valuesFor("range", ["1"], "it")).message, "it takes a string, not a list.");
  assert.equal(refusal(() => form.valuesFor("select", true, "it")).message, "it takes an option's label or value, or a list of them, not the boolean true.");
  assert.equal(refusal(() => form.valuesFor("combobox", [], "it")).code, "invalid_request");
});

test("an option is matched by its exact name, else in other case and spacing", () => {
  assert.equal(form.matchName(["France", "france"], "france"), 1);
  assert.equal(form.matchName(["New  York", "Paris"], "new york"), 0);
  assert.equal(form.matchName(["Paris"], "Lyon"), -1);
});

test("the worker refuses params wrong as a whole, as the daemon's model does", () => {
  const refused = (params) => refusal(() => checkFormParams(params)).code;
  assert.equal(refused({}), "invalid_request");
  assert.equal(refused({ fields: [] }), "invalid_request");
  assert.equal(refused({ fields: "e1=x" }), "invalid_request");
  assert.equal(refused({ fields: Array.from({ length: MAX_FIELDS + 1 }, (_, i) => ({ ref: `e${i}`, value: "x" })) }), "invalid_request");
  assert.equal(refused({ fields: [{ ref: "", value: "x" }] }), "invalid_request");
  assert.equal(refused({ fields: [{ ref: "e1", value: 3 }] }), "invalid_request");
  assert.equal(refused({ fields: [{ ref: "e1", value: [1] }] }), "invalid_request");
  assert.equal(refused({ fields: [{ ref: "e1", value: "x" }], submit: 5 }), "invalid_request");
  checkFormParams({ fields: [{ ref: "e1", value: "x" }, { ref: "e2", value: true }, { ref: "e3", value: ["a"] }], submit: "e4" });
});

test("the popup says how many fields were filled and whether the form was sent, never a value", () => {
  const result = { ok: true, result: { fields: [{ ok: true, value: "secret" }, { ok: false }], submit: { clicked: false } } };
  assert.equal(fillSummary({}, result), "filled 1 of 2 fields");
  result.result.fields[1].ok = true;
  result.result.submit.clicked = true;
  assert.equal(fillSummary({}, result), "filled 2 of 2 fields and submitted");
  assert.equal(fillSummary({}, { ok: false }), "tried to fill a form");
});
