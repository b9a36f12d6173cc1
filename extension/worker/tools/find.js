// browser_find, the worker's side (docs/protocol.md, "browser_find"): the lines of the page's
// snapshot that match, each with a line of context, without handing the snapshot to the model.
// It takes the snapshot browser_snapshot takes (the same walk, frames included, refs minted as
// that one's are, so the refs answered act at once), written out without collapsing runs, and
// searches its lines here.
import { CommandError } from "../link/errors.js";

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;
export const MAX_QUERY_CHARS = 200;
// The snapshot searched: the whole page, within the largest snapshot there is.
const SEARCH_CHARS = 1_000_000;
// A regex runs on at most this much of each line, and for at most this long in all (checked
// between lines). safeRegex keeps one line's test well under a second: its worst case, tried at
// each of a line's starts, is about REGEX_LINE_CHARS ** (unbounded quantifiers + 1) times the
// product of the bounded ones' ranges, which must stay under REGEX_STEPS (measured in V8: 300
// characters of "a" against .*.*! take about 0.1 s, against .*.*.*! half a minute).
const REGEX_LINE_CHARS = 300;
const REGEX_BUDGET_MS = 1000;
const REGEX_STEPS = 3e7;
// Bounded quantifiers cost more a try in V8 (a{0,16} four times: about 2 s on such a line).
const REGEX_BOUNDED = 1e4;
const CONTEXT_CHARS = 160;
// The elements whose line of context is themselves, summed up: the nearest of these around a
// match; else the nearest heading above it.
const CONTAINERS = new Set(["listitem", "row", "article", "treeitem"]);

const invalid = (message) => new CommandError("invalid_request", message);
const SIMPLER =
  "Simplify it (e.g. [ab]+ for (a|b)+, one .* rather than several) or search with `text`.";

// Refuses a pattern that could backtrack for seconds: a quantified group that holds a quantifier
// or an alternation ((a+)+, (a|aa)*), a backreference, or quantifiers whose worst case together
// is over REGEX_STEPS (.*.*.*x, polynomial; a?a?a?… twenty times, exponential).
export function safeRegex(pattern) {
  let regex;
  try {
    regex = new RegExp(pattern, "i");
  } catch (err) {
    throw new CommandError(
      "invalid_regex",
      `regex ${JSON.stringify(pattern)} is not a valid JavaScript regex: ${String(err?.message ?? err).replace(/^Invalid regular expression: /, "")}. Fix it, or search with \`text\`.`,
    );
  }
  const slow = (why) =>
    new CommandError("regex_too_slow", `regex ${JSON.stringify(pattern)} could backtrack for seconds: ${why}. ${SIMPLER}`);
  const groups = [{ quant: false, alt: false }];
  let closed = null; // the group just closed, which a quantifier next applies to
  let steps = REGEX_LINE_CHARS;
  let bounded = 1;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const top = groups[groups.length - 1];
    let quantifier = null;
    if (char === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<")) throw slow("it has a backreference");
      i++;
      closed = null;
      continue;
    }
    if (char === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      closed = null;
      continue;
    }
    if (char === "(") {
      groups.push({ quant: false, alt: false });
      if (pattern[i + 1] === "?") i += pattern[i + 2] === "<" && /[=!]/.test(pattern[i + 3] ?? "") ? 3 : 2;
      closed = null;
      continue;
    }
    if (char === ")") {
      closed = groups.length > 1 ? groups.pop() : null;
      const parent = groups[groups.length - 1];
      if (closed) parent.quant ||= closed.quant;
      continue;
    }
    if (char === "|") top.alt = true;
    // A quantifier's range: how many counts of its atom a backtrack may try.
    if (char === "*" || char === "+") quantifier = { range: REGEX_LINE_CHARS };
    else if (char === "?") quantifier = { range: 2 };
    else if (char === "{") {
      const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (bound) {
        i += bound[0].length - 1;
        const [low, high] = [Number(bound[1]), bound[2] === undefined ? Number(bound[1]) : bound[3] === "" ? Infinity : Number(bound[3])];
        quantifier = { range: Math.min(REGEX_LINE_CHARS, high - low + 1) };
      }
    }
    if (quantifier) {
      if (pattern[i + 1] === "?") i++; // lazy: the same backtracking
      if (closed && (closed.quant || closed.alt)) {
        throw slow(closed.quant ? "a quantifier applies to a group that holds one" : "a quantifier applies to a group with |");
      }
      top.quant = true;
      steps *= quantifier.range;
      if (quantifier.range < REGEX_LINE_CHARS) bounded *= quantifier.range;
      if (steps > REGEX_STEPS || bounded > REGEX_BOUNDED) throw slow("its quantifiers together could try too many ways to match (at most two of *, + or {n,})");
    }
    closed = null;
  }
  return regex;
}

// ---- The snapshot's lines: {depth, line (without its indent), role, name, text, ref}.
const HEAD = /^([a-z]+)( "(?:[^"\\]|\\.)*")?( \(shows "(?:[^"\\]|\\.)*"\))?((?: \[[^\]]*\])*)(.*)$/;

export function parseLines(snapshot) {
  const lines = [];
  for (const raw of snapshot.split("\n")) {
    const match = /^( *)- (.*)$/.exec(raw);
    if (!match) continue;
    const depth = match[1].length / 2;
    const body = match[2];
    if (body.startsWith("/url: ")) {
      const owner = lines.findLast((line) => line.depth < depth);
      if (owner) owner.url = body.slice(6);
      continue;
    }
    if (body.startsWith("text: ")) {
      lines.push({ depth, line: body, role: "text", name: "", text: body.slice(6), ref: null });
      continue;
    }
    const head = HEAD.exec(body);
    if (!head) continue;
    const [, role, quoted, shows, props, rest] = head;
    const ref = /\[ref=(e\d+)\]/.exec(props ?? "")?.[1] ?? null;
    let name = "";
    try {
      name = quoted ? JSON.parse(quoted.slice(1)) : "";
    } catch {}
    const tail = rest.indexOf(": ");
    const text = tail >= 0 ? rest.slice(tail + 2) : "";
    const shown = shows ? JSON.parse(shows.slice(8, -1)) : "";
    lines.push({ depth, line: body.replace(/:$/, ""), role, name, text: [shown, text].filter(Boolean).join(" "), ref });
  }
  return lines;
}

// ---- The query: each given part must hold.
export function checkFind(params) {
  const query = {};
  for (const key of ["text", "regex", "role", "name"]) {
    const value = params[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || value === "" || value.length > MAX_QUERY_CHARS) {
      throw invalid(`${key} must be a string of 1 to ${MAX_QUERY_CHARS} characters; got ${JSON.stringify(value)?.slice(0, 80)}.`);
    }
    query[key] = value;
  }
  if (!Object.keys(query).length) {
    throw invalid('browser_find needs `text`, `regex`, or `role` and/or `name`, such as {"text": "Item 137"}.');
  }
  if (query.text !== undefined && query.regex !== undefined) throw invalid("Give `text` or `regex`, not both.");
  const limit = params.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw invalid(`limit must be an integer from 1 to ${MAX_LIMIT}; got ${JSON.stringify(limit)}.`);
  }
  return { ...query, limit, regex: query.regex === undefined ? undefined : safeRegex(query.regex) };
}

// The lines that match, in page order, each with its context; the regex's time is bounded.
export function search(lines, query, now = () => performance.now()) {
  const text = query.text?.toLowerCase();
  const name = query.name?.toLowerCase();
  const role = query.role?.toLowerCase();
  const started = now();
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (role !== undefined && line.role !== role) continue;
    if (name !== undefined && !line.name.toLowerCase().includes(name)) continue;
    const hay = line.name && line.text ? `${line.name} ${line.text}` : line.name || line.text;
    if (text !== undefined && !hay.toLowerCase().includes(text)) continue;
    if (query.regex) {
      const hit = query.regex.test(hay.slice(0, REGEX_LINE_CHARS));
      if (now() - started > REGEX_BUDGET_MS) {
        throw new CommandError(
          "regex_too_slow",
          `regex ${JSON.stringify(query.regex.source)} took over ${REGEX_BUDGET_MS / 1000} s on this page's lines and was stopped. ${SIMPLER}`,
        );
      }
      if (!hit) continue;
    }
    found.push(i);
  }
  return found;
}

// A line as it reads inline: `button "Buy" [ref=e3]`, a text as its text in quotes.
const inline = (line) => (line.role === "text" ? JSON.stringify(line.text) : line.line);

const clip = (text, max) => (text.length > max ? text.slice(0, max - 1) + "\u2026" : text);

// What the lines under `index` hold, but `skip` and its own, inline: `heading "X", button "Buy"
// [ref=e3]`.
function summary(lines, index, skip = -1) {
  const parts = [];
  let size = 0;
  const depth = lines[index].depth;
  let skipDepth = Infinity;
  for (let i = index + 1; i < lines.length && lines[i].depth > depth && size < CONTEXT_CHARS; i++) {
    if (i === skip) {
      skipDepth = lines[i].depth;
      continue;
    }
    if (lines[i].depth > skipDepth) continue;
    skipDepth = Infinity;
    // A container's line says nothing its children do not.
    if (!lines[i].name && !lines[i].text && !lines[i].ref) continue;
    const part = inline(lines[i]);
    parts.push(part);
    size += part.length + 2;
  }
  return clip(parts.join(", "), CONTEXT_CHARS);
}

// The line of context of the match at `index`: the container (list item, row…) around it summed
// up, or the nearest heading above it.
// Within a frame (its iframe line, with its origin, holds the frame's tree), the heading is the
// frame's own, else the frame's line says where the match is.
export function contextOf(lines, index) {
  let depth = lines[index].depth;
  let frame = -1;
  for (let i = index - 1; i >= 0 && depth > 0; i--) {
    if (lines[i].depth >= depth) continue;
    depth = lines[i].depth;
    if (CONTAINERS.has(lines[i].role)) {
      const held = summary(lines, i, index);
      if (held) return `in ${lines[i].role}: ${held}`;
    }
    if (lines[i].role === "iframe" && frame < 0) frame = i;
  }
  for (let i = index - 1; i > frame; i--) {
    if (lines[i].role === "heading") return `under ${clip(inline(lines[i]), CONTEXT_CHARS)}`;
  }
  return frame >= 0 ? `in ${clip(lines[frame].line, CONTEXT_CHARS)}` : "";
}

// A long line (a paragraph) as the part of it around what was found.
const LINE_CHARS = 240;
function excerpt(text, query) {
  if (text.length <= LINE_CHARS) return text;
  let at = 0;
  if (query.text !== undefined) at = text.toLowerCase().indexOf(query.text.toLowerCase());
  else if (query.regex) at = query.regex.exec(text.slice(0, REGEX_LINE_CHARS + 20))?.index ?? 0;
  const start = Math.max(0, Math.min(at - 60, text.length - LINE_CHARS));
  return (start > 0 ? "\u2026" : "") + text.slice(start, start + LINE_CHARS) + (start + LINE_CHARS < text.length ? "\u2026" : "");
}

// A match as the model reads it: its own line; a container's, with what it holds.
function matchOf(lines, index, query) {
  const line = lines[index];
  const own = CONTAINERS.has(line.role) || (!line.name && !line.text) ? summary(lines, index) : "";
  const match = { line: excerpt(own ? `${line.line}: ${own}` : line.line, query), ref: line.ref };
  if (line.url) match.url = line.url;
  const context = contextOf(lines, index);
  if (context) match.context = context;
  return match;
}

const SUMMARIES = { browser_find: () => "searched the page" };

export function createFindTools({ call }) {
  async function find(params) {
    const query = checkFind(params);
    // The snapshot browser_snapshot takes, every run written out (content/snapshot-format.js).
    const taken = await call("browser_snapshot", { tab_id: params.tab_id, max_chars: SEARCH_CHARS, collapse: false });
    const { snapshot = "", truncated = false } = taken.result ?? {};
    const lines = parseLines(snapshot);
    const found = search(lines, query);
    const matches = found.slice(0, query.limit).map((index) => matchOf(lines, index, query));
    const result = { total: found.length, matches };
    if (truncated) result.searched_chars = SEARCH_CHARS;
    return { result, result_type: "object", tab: taken.tab };
  }
  return { handlers: { browser_find: find }, summaries: SUMMARIES };
}
