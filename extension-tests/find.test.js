// worker/tools/find.js: browser_find's query, its regex guard, and its search of a snapshot's lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

import { checkFind, contextOf, createFindTools, parseLines, safeRegex, search } from "../extension/worker/tools/find.js";

const world = vm.createContext({});
vm.runInContext(readFileSync(new URL("../extension/content/snapshot-format.js", import.meta.url), "utf8"), world);
const { format } = world.__tabpilotSnapshotFormat;

// The 300-product page's tree, as content/snapshot.js walks it: a name and a price each, and one
// "Add to cart" button; some prices hold "137" too.
function shop(count = 300) {
  const products = [];
  for (let i = 1; i <= count; i++) {
    const price = `$${(i * 37) % 300}.${String((i * 13) % 100).padStart(2, "0")}`;
    products.push({ role: "listitem", children: [`Item ${i}`, price, { role: "button", name: "Add to cart", ref: `e${i + 1}` }] });
  }
  return [
    { role: "banner", children: [{ role: "link", name: "Home", ref: "e1", url: "/" }, { role: "searchbox", name: "Search", ref: "e500", children: ["lamp"] }] },
    { role: "main", ref: "e400", children: [{ role: "heading", name: "Products", props: ["level=1"] }, { role: "list", ref: "e401", children: products }] },
  ];
}

// browser_find on a fake browser_snapshot that formats the tree as the content script does.
async function find(params, items = shop()) {
  let asked;
  const call = async (command, snapParams) => {
    asked = { command, ...snapParams };
    const written = format(items, { maxChars: snapParams.max_chars, collapse: snapParams.collapse !== false });
    return { result: { snapshot: written.text, truncated: written.truncated }, tab: { id: 7, url: "https://shop.test/", title: "Shop" } };
  };
  const { handlers } = createFindTools({ call });
  const answer = await handlers.browser_find(params);
  return { ...answer, asked };
}

test("text finds the item by its whole name, with the row's other fields and its button's ref as context", async () => {
  const { result, asked, tab } = await find({ text: "item 137" });
  assert.deepEqual(asked, { command: "browser_snapshot", tab_id: undefined, max_chars: 1_000_000, collapse: false });
  assert.equal(tab.id, 7);
  assert.deepEqual(result, {
    total: 1,
    matches: [{ line: "text: Item 137", ref: null, context: 'in listitem: "$269.81", button "Add to cart" [ref=e138]' }],
  });
});

test("a number finds every line holding it: the item and the prices", async () => {
  const { result } = await find({ text: "137" });
  assert.deepEqual(
    result.matches.map((m) => m.line),
    ["text: $137.13", "text: Item 137"],
  );
});

test("role and name find controls; the matches are capped at limit, the total counts them all", async () => {
  const { result } = await find({ role: "button", name: "add to", limit: 2 });
  assert.equal(result.total, 300);
  assert.deepEqual(result.matches[1], { line: 'button "Add to cart" [ref=e3]', ref: "e3", context: 'in listitem: "Item 2", "$74.26"' });
  const link = (await find({ role: "link" })).result.matches[0];
  assert.deepEqual(link, { line: 'link "Home" [ref=e1]', ref: "e1", url: "/" });
  const box = (await find({ text: "lamp" })).result.matches[0];
  assert.equal(box.line, 'searchbox "Search" [ref=e500]: lamp');
});

test("a match outside any list item or row has the nearest heading above as context", async () => {
  const items = [{ role: "heading", name: "Shipping", props: ["level=2"] }, "Free over $50", { role: "button", name: "Details", ref: "e9" }];
  const { result } = await find({ regex: "free\\s+over" }, items);
  assert.deepEqual(result.matches, [{ line: "text: Free over $50", ref: null, context: 'under heading "Shipping" [level=2]' }]);
});

test("a container found by its role reads with what it holds", async () => {
  const { result } = await find({ role: "listitem", limit: 1 });
  assert.equal(result.matches[0].line, 'listitem: "Item 1", "$37.13", button "Add to cart" [ref=e2]');
  assert.equal(result.matches[0].context, 'under heading "Products" [level=1]');
});

test("the lines parse back into roles, names, texts and refs", () => {
  const lines = parseLines('- button "Say \\"hi\\"" [disabled] [ref=e5]\n- link "Next" [ref=e6]:\n  - /url: /2\n- text: a: b\n- textbox "Email" [ref=e7]: ada@x.test');
  assert.deepEqual(
    lines.map(({ role, name, text, ref }) => [role, name, text, ref]),
    [
      ["button", 'Say "hi"', "", "e5"],
      ["link", "Next", "", "e6"],
      ["text", "", "a: b", null],
      ["textbox", "Email", "ada@x.test", "e7"],
    ],
  );
  assert.equal(lines[1].url, "/2");
  assert.equal(contextOf(lines, 0), "");
});

test("a query needs something to find; text and regex do not go together; limit is bounded", () => {
  for (const params of [{}, { text: "" }, { text: "a", regex: "a" }, { text: "a", limit: 0 }, { text: "a", limit: 101 }, { role: 3 }]) {
    assert.throws(() => checkFind(params), (err) => err.code === "invalid_request", JSON.stringify(params));
  }
});

test("a regex that could backtrack for seconds is refused before it runs", () => {
  for (const pattern of ["(a+)+$", "(a*)*b", "(a|aa)*c", "(x+x+)+y", "((ab)*)+", "(\\w+\\s?)+$", "(a{1,}){2,}", "(.*a){12}", "(a)\\1", "(?<x>a)\\k<x>", ".*.*.*x", "\\w+\\s+\\w+\\s+x", "a?".repeat(20) + "a".repeat(20), "a{0,16}a{0,16}a{0,16}a{0,16}!"]) {
    assert.throws(() => safeRegex(pattern), (err) => err.code === "regex_too_slow" && /Simplify it/.test(err.message), pattern);
  }
});

test("everyday patterns pass the guard", () => {
  for (const pattern of ["Item 1\\d\\d", "\\$\\d+\\.\\d\\d", "^add to (cart|bag)$", "colou?r", "[a-z]+@[a-z]+\\.com", "(ab)+", "\\(a+\\)+", "[(a+)+]", "(?:foo|bar) baz", "x{2,5}", "colou?r \\d+", "a?".repeat(10) + "!"]) {
    assert.ok(safeRegex(pattern) instanceof RegExp, pattern);
  }
});

test("invalid regex syntax has its own code", () => {
  assert.throws(() => safeRegex("(a"), (err) => err.code === "invalid_regex" && /Unterminated group/.test(err.message));
  assert.throws(() => safeRegex("a**"), (err) => err.code === "invalid_regex");
});

test("a regex that runs past its time on the page is stopped with regex_too_slow", () => {
  const lines = parseLines(Array.from({ length: 50 }, (_v, i) => `- text: line ${i}`).join("\n"));
  let clock = 0;
  const now = () => (clock += 100); // each line's test seems to take 100 ms
  assert.throws(() => search(lines, { regex: /nothing/i }, now), (err) => err.code === "regex_too_slow" && /took over 1 s/.test(err.message));
  assert.equal(search(lines, { regex: /line 4\d/i }).length, 10);
});

test("a long line is tested by a regex on its first 300 characters only", () => {
  const lines = parseLines(`- text: ${"a".repeat(5000)}!`);
  assert.equal(search(lines, { regex: /a!/i }).length, 0);
  assert.equal(search(lines, { text: "a!" }).length, 1);
});

test("a long line is answered as the part of it around what was found", async () => {
  const paragraph = `${"x ".repeat(1000)}the needle here ${"y ".repeat(1000)}`;
  const { result } = await find({ text: "NEEDLE" }, [paragraph]);
  const { line } = result.matches[0];
  assert.ok(line.length <= 242, line.length);
  assert.match(line, /^\u2026x x .* the needle here y y .*\u2026$/);
});

test("a match inside a frame's tree says which frame it is in", () => {
  const lines = parseLines(
    [
      '- heading "Checkout" [level=1]',
      '- iframe "Payment" [ref=e5] [origin=https://pay.example:8443]:',
      '  - textbox "Card number" [ref=e6]',
      '  - heading "Billing" [level=2]',
      '  - textbox "Postcode" [ref=e7]',
    ].join("\n"),
  );
  const found = search(lines, { role: "textbox" });
  assert.deepEqual(
    found.map((i) => contextOf(lines, i)),
    ['in iframe "Payment" [ref=e5] [origin=https://pay.example:8443]', 'under heading "Billing" [level=2]'],
  );
});
