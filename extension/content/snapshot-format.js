// Text of a page snapshot, in Playwright's AI format (`- button "Add to cart" [ref=e12]`), from the
// tree snapshot.js walks. Pure, so node:test loads it; in the content script's isolated world it
// is globalThis.__tabpilotSnapshotFormat.
//
// A tree node: {role, name?, shown?, unseen?, ref?, props?: ["checked", "level=2"], url?, note?, flat?,
// children?: [node | string]}; a string is text. `unseen`: the part of the name the person cannot
// see (content/seen.js), written `[not visible: "…"]`; text the person cannot see is a node
// {role: "text", note: "[not visible]", children: [text]}, written `- text [not visible]: …`. `shown`: the text the element shows where its name
// says something else, written (`(shows "…")`) only where the text itself is left out
// (interactive_only, which copies it to `shows`). A `flat` node is a group without a role of its own (a div
// holding several things): written out, its children stand in its place; a run of same-shape
// groups collapses like any other run.
//
// Long runs of same-shape siblings are written once as a template, then one short line per item
// with only what differs, refs included, so that every actionable element keeps its ref:
//   - 300 × listitem: (heading "{1}" [level=2], button "Add to cart" [ref={2}]); one per line: {1}|{2}
//     Desk lamp|e12
(() => {
  "use strict";

  const MIN_RUN = 5; // shorter runs read better written out
  const MAX_NAME = 200;
  const INDENT = "  ";

  const clip = (text, max) => (text.length > max ? text.slice(0, max - 1) + "\u2026" : text);
  const quote = (text) => JSON.stringify(clip(text, MAX_NAME));

  const head = (node) => {
    let line = node.role;
    if (node.name) line += " " + quote(node.name);
    if (node.shows) line += ` (shows ${quote(node.shows)})`;
    if (node.unseen && node.role !== "text") line += ` [not visible: ${quote(node.unseen)}]`;
    if (node.props) for (const prop of node.props) line += ` [${prop}]`;
    if (node.ref) line += ` [ref=${node.ref}]`;
    if (node.note) line += " " + node.note;
    return line;
  };

  // ---- Shapes: what two siblings must share to be written as one template.
  const shapeOf = (item, cache) => {
    if (typeof item === "string") return "T";
    let shape = cache.get(item);
    if (shape === undefined) {
      shape = item.role + (item.flat ? "F" : "") + (item.name ? "N" : "") + (item.shows ? "S" + quote(item.shows) : "") + (item.unseen && item.role !== "text" ? "V" + quote(item.unseen) : "") + (item.props ? "[" + item.props.join(",") + "]" : "") +
        (item.ref ? "R" : "") + (item.url ? "U" : "") + (item.note ? "!" + item.note : "") + "(";
      const kids = item.children ?? [];
      for (let i = 0; i < kids.length; i++) shape += (i ? "," : "") + shapeOf(kids[i], cache);
      shape += ")";
      cache.set(item, shape);
    }
    return shape;
  };

  // The variable parts of an item, in a fixed order: [kind, value].
  const slotsOf = (item, out = []) => {
    if (typeof item === "string") {
      out.push(["text", item]);
      return out;
    }
    if (item.name) out.push(["name", clip(item.name, MAX_NAME)]);
    if (item.ref) out.push(["ref", item.ref]);
    if (item.url) out.push(["url", item.url]);
    for (const kid of item.children ?? []) slotsOf(kid, out);
    return out;
  };

  const commonPrefix = (values) => {
    let prefix = values[0];
    for (const value of values) {
      let i = 0;
      while (i < prefix.length && i < value.length && prefix[i] === value[i]) i++;
      prefix = prefix.slice(0, i);
      if (!prefix) break;
    }
    return prefix;
  };
  const reversed = (text) => [...text].reverse().join("");
  const isWord = (char) => /[\p{L}\p{N}_]/u.test(char);

  // Each slot is constant (written in the template) or a field ({k} in the template, a column of
  // the rows). Refs are always fields. A name or a text is a whole field: a row keeps its own text
  // whole (`Item 137`, not `137` under a template's `Item {1}`), so that what a model searches
  // the snapshot for is in it. Only a url's shared start and end go in the template.
  const fieldsOf = (items) => {
    const columns = items.map((item) => slotsOf(item));
    return columns[0].map(([kind], s) => {
      const values = columns.map((slots) => slots[s][1]);
      if (kind !== "ref" && values.every((value) => value === values[0])) return { kind, constant: values[0] };
      let prefix = "";
      let suffix = "";
      if (kind === "url") {
        const shortest = Math.min(...values.map((value) => value.length));
        prefix = commonPrefix(values).slice(0, Math.max(0, shortest - 1));
        suffix = reversed(commonPrefix(values.map((value) => reversed(value.slice(prefix.length)))));
        suffix = suffix.slice(Math.max(0, suffix.length - (shortest - prefix.length - 1)));
        // Never split a word or a number: `/p/10{1}` with rows `01` reads worse than `/p/{1}`.
        while (prefix && isWord(prefix.at(-1)) && values.some((value) => isWord(value[prefix.length] ?? ""))) prefix = prefix.slice(0, -1);
        while (suffix && isWord(suffix[0]) && values.some((value) => isWord(value[value.length - suffix.length - 1] ?? ""))) suffix = suffix.slice(1);
        if (prefix.length + suffix.length < 2) prefix = suffix = "";
      }
      return { kind, prefix, suffix, values: values.map((value) => value.slice(prefix.length, value.length - suffix.length)) };
    });
  };

  // The template: the first item written inline, each slot as its constant or its {k}.
  const template = (item, fields) => {
    let slot = 0;
    let field = 0;
    const fill = (kind, value) => {
      const spec = fields[slot++];
      if (spec.constant !== undefined) return kind === "name" ? quote(value) : value;
      const hole = spec.prefix + "{" + ++field + "}" + spec.suffix;
      return kind === "name" ? `"${hole}"` : hole;
    };
    const inline = (node) => {
      if (typeof node === "string") return fill("text", node);
      let line = node.role;
      if (node.name) line += " " + fill("name", node.name);
      if (node.shows) line += ` (shows ${quote(node.shows)})`;
      if (node.unseen && node.role !== "text") line += ` [not visible: ${quote(node.unseen)}]`;
      if (node.props) for (const prop of node.props) line += ` [${prop}]`;
      if (node.ref) line += ` [ref=${fill("ref", node.ref)}]`;
      if (node.note) line += " " + node.note;
      if (node.url) line += " /url: " + fill("url", node.url);
      const kids = node.children ?? [];
      if (kids.length === 1 && typeof kids[0] === "string") return line + ": " + inline(kids[0]);
      if (kids.length > 0) line += ": (" + kids.map((kid) => (typeof kid === "string" ? "text: " + inline(kid) : inline(kid))).join(", ") + ")";
      return line;
    };
    const text = inline(item);
    return { text, count: field };
  };

  // ---- Lines: {depth, text, refs, ref (a container's own ref, for the cut line), role}.
  const render = (items, depth, lines, cache) => {
    let i = 0;
    while (i < items.length) {
      let j = i + 1;
      if (typeof items[i] !== "string") {
        const shape = shapeOf(items[i], cache);
        while (j < items.length && typeof items[j] !== "string" && shapeOf(items[j], cache) === shape) j++;
      }
      if (j - i >= MIN_RUN && cache.runs !== false && collapse(items.slice(i, j), depth, lines, cache)) {
        i = j;
        continue;
      }
      for (; i < j; i++) renderOne(items[i], depth, lines, cache);
    }
  };

  const renderOne = (item, depth, lines, cache) => {
    const pad = INDENT.repeat(depth);
    if (typeof item === "string") {
      lines.push({ depth, text: pad + "- text: " + item, refs: 0 });
      return;
    }
    const kids = item.children ?? [];
    if (item.flat) {
      render(kids, depth, lines, cache);
      return;
    }
    let text = pad + "- " + head(item);
    const refs = item.ref ? 1 : 0;
    if (!item.url && kids.length === 1 && typeof kids[0] === "string") {
      lines.push({ depth, text: text + ": " + kids[0], refs, ref: item.ref, role: item.role });
      return;
    }
    if (item.url || kids.length > 0) text += ":";
    lines.push({ depth, text, refs, ref: item.ref, role: item.role });
    if (item.url) lines.push({ depth: depth + 1, text: pad + INDENT + "- /url: " + item.url, refs: 0 });
    render(kids, depth + 1, lines, cache);
  };

  // Writes the run as a template and its rows, if that is shorter than writing it out.
  const collapse = (run, depth, lines, cache) => {
    const fields = fieldsOf(run);
    const { text, count } = template(run[0], fields);
    if (count === 0) return false;
    const pad = INDENT.repeat(depth);
    const columns = fields.filter((spec) => spec.constant === undefined);
    // The rows are most of a long page's snapshot: a bare "|" between fields keeps them short.
    const holes = columns.map((_spec, k) => `{${k + 1}}`).join("|");
    const refColumns = columns.filter((spec) => spec.kind === "ref").length;
    const block = [{ depth, text: `${pad}- ${run.length} \u00d7 ${text}; one per line: ${holes}`, refs: 0 }];
    for (let r = 0; r < run.length; r++) {
      const row = columns.map((spec) => spec.values[r].replaceAll("|", "\\|")).join("|");
      block.push({ depth: depth + 1, text: pad + INDENT + row, refs: refColumns });
    }
    const expanded = [];
    for (const item of run) renderOne(item, depth, expanded, cache);
    const size = (part) => part.reduce((sum, line) => sum + line.text.length + 1, 0);
    lines.push(...(size(block) < size(expanded) ? block : expanded));
    return true;
  };

  // ---- interactive_only: the nodes with refs, named by their labels, and the headings that tell
  // repeated ones apart ("Add to cart" under which product). A container stays only where it
  // groups more than one of those, so that a list of products still collapses into rows. Where
  // sibling containers would read the same (300 list items of one "Add to cart" button each),
  // each keeps its own first text (the product's name) beside its controls, so that every line or
  // row says which one it is.
  const interactive = (items) => {
    const out = [];
    const parts = items.map((item) => (typeof item === "string" ? null : kept(item)));
    const seen = new Map();
    for (const part of parts) if (part?.length) seen.set(signature(part), (seen.get(signature(part)) ?? 0) + 1);
    parts.forEach((part, i) => {
      if (!part?.length) return;
      const item = items[i];
      const label = !item.ref && item.role !== "heading" && seen.get(signature(part)) > 1 ? labelOf(item) : "";
      if (label) out.push({ role: item.role, flat: item.flat, children: [label, ...part] });
      else out.push(...part);
    });
    return out;
  };

  // What interactive_only keeps of one node: itself (a control or a heading), its kept children
  // grouped under it, or those alone.
  const kept = (item) => {
    const kids = interactive(item.children ?? []);
    if (item.ref || item.role === "heading") return [{ ...item, shows: item.shown, children: kids.length ? kids : undefined }];
    if (kids.length > 1) return [{ ...item, children: kids }];
    return kids;
  };

  const signatures = new WeakMap();
  const signature = (part) => {
    let sig = signatures.get(part);
    if (sig === undefined) {
      const of = (node) => (typeof node === "string" ? node : [node.role, node.name ?? "", node.props?.join() ?? "", (node.children ?? []).map(of).join(",")].join("|"));
      sig = part.map(of).join(";");
      signatures.set(part, sig);
    }
    return sig;
  };

  // A container's own text: its first text, or the first name of what is not a control (a
  // heading, a cell), depth first.
  const LABEL_CHARS = 80;
  const labelOf = (node) => {
    for (const kid of node.children ?? []) {
      if (typeof kid === "string") return clip(kid, LABEL_CHARS);
      if (kid.ref) continue;
      if (kid.name) return clip(kid.name, LABEL_CHARS);
      const inner = labelOf(kid);
      if (inner) return inner;
    }
    return "";
  };

  const cutLine = (leftChars, leftRefs, total, container) => {
    let line = `- \u2026 ${leftChars} more characters (${leftRefs} more refs) were left out. To see them, call browser_snapshot again with max_chars ${total}`;
    if (container) line += `, or with ref "${container.ref}" for the ${container.role} that was cut`;
    return line + ".";
  };

  // The ancestors of line `index` (by depth), innermost first, that have a ref of their own.
  const containerOf = (lines, index) => {
    let depth = lines[index].depth;
    for (let i = index - 1; i >= 0 && depth > 0; i--) {
      if (lines[i].depth < depth) {
        if (lines[i].ref) return lines[i];
        depth = lines[i].depth;
      }
    }
    return null;
  };

  /**
   * format(items, {maxChars, interactiveOnly, collapse}) -> {text, refs, chars, truncated}
   * items: the top-level nodes and strings. `collapse: false` writes every run out, a line per
   * node, for a search of the lines (browser_find).
   */
  const format = (items, { maxChars = 20000, interactiveOnly = false, collapse: runs = true } = {}) => {
    const lines = [];
    // The shapes' cache, which also says whether runs collapse.
    const cache = Object.assign(new Map(), { runs });
    render(interactiveOnly ? interactive(items) : items, 0, lines, cache);
    let total = -1;
    let refs = 0;
    for (const line of lines) {
      total += line.text.length + 1;
      refs += line.refs;
    }
    total = Math.max(total, 0);
    if (total <= maxChars) return { text: lines.map((line) => line.text).join("\n"), refs, chars: total, truncated: false };
    // Room for the cut line: its length depends on the numbers, which are at most 7 digits each.
    const budget = maxChars - cutLine(9999999, 9999999, 9999999, { ref: "e9999999", role: "complementary" }).length - 1;
    const kept = [];
    let used = 0;
    let keptRefs = 0;
    let index = 0;
    for (; index < lines.length; index++) {
      const line = lines[index];
      if (used + line.text.length + 1 > budget) {
        const room = budget - used - 1;
        // A long line (a paragraph of text, say) is shown in part rather than not at all.
        if (room > 40 && line.refs === 0) {
          kept.push(line.text.slice(0, room - 1) + "\u2026");
          used += room + 1;
        }
        break;
      }
      kept.push(line.text);
      used += line.text.length + 1;
      keptRefs += line.refs;
    }
    const container = index < lines.length ? containerOf(lines, index) : null;
    kept.push(cutLine(total - used, refs - keptRefs, Math.min(total + 1000, 1_000_000), container));
    const text = kept.join("\n");
    return { text, refs: keptRefs, chars: text.length, truncated: true };
  };

  globalThis.__tabpilotSnapshotFormat = Object.freeze({ format, MIN_RUN });
})();
