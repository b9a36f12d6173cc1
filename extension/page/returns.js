// The top-level `return`s of an async script, rewritten so that its result is handed over
// directly instead of resolving the async function's promise, which reads `.then` through the
// page's prototypes (docs/protocol.md §4, "Awaiting, out of the page's sight"). For
// executor.js.
// A classic script loaded like executor.js (see there), in the same worlds, just before it; it
// reads the global object only as `globalThis` and exports only by assignment on it. inject.js
// takes `__tabpilotReturns` off the page's globals before any page script runs.
(() => {
  "use strict";

  // Captured now, before page scripts run: a page that replaces these cannot see the script.
  const { apply } = Reflect;
  const { create, setPrototypeOf } = Object;
  const { indexOf, slice } = String.prototype;
  const regexpExec = RegExp.prototype.exec;
  // No prototype: a page's index setters on Array.prototype (or property setters on
  // Object.prototype) must not be handed the tokens, which hold the script's text positions.
  const list = () => setPrototypeOf([], null);
  const entry = (fields) => setPrototypeOf(fields, null);

  // Top-level `return`s of an async body, found by a small tokenizer, become
  // `return void KEEPER((EXPR))`: EXPR ends at its last token, so no line comment is
  // inside, and the script keeps its line numbers. Returns null when unsure; the caller then
  // compiles the script as it is.
  const BLOCK_KEYWORDS = create(null);
  for (const word of ["if", "for", "while", "switch", "catch", "with"]) BLOCK_KEYWORDS[word] = true;
  const REGEX_AFTER_WORD = create(null);
  for (const word of ["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
    "case", "do", "else", "yield", "await"]) REGEX_AFTER_WORD[word] = true;
  const CONTINUES = create(null); // tokens that continue an expression onto the next line
  for (const p of [".", "?.", "(", "[", "`", ",", "?", ":", "=", "+", "-", "*", "/", "%", "**", "<", ">",
    "<=", ">=", "==", "!=", "===", "!==", "&", "|", "^", "&&", "||", "??", "in", "instanceof", "=>",
    "+=", "-=", "*=", "/=", "%=", "**=", "<<", ">>", ">>>", "<<=", ">>=", ">>>=", "&=", "|=", "^=",
    "&&=", "||=", "??="]) CONTINUES[p] = true;
  const PUNCTUATORS = [">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
    "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "^=", "**", "<<", ">>"];
  const WORD = /[A-Za-z0-9_$\u0080-\uffff\\]/;

  function tokenize(src) {
    const tokens = list();
    const stack = list(); // "(", "[", "{", "${"
    let i = 0;
    let newline = false;
    const isWord = (c) => apply(regexpExec, WORD, [c]) !== null;
    // Past the end, a string's index falls through to String.prototype, where a page getter
    // would be handed the script.
    const at = (k) => (k < src.length ? src[k] : "");
    const push = (type, value, start) => {
      tokens[tokens.length] = entry({ type, value, start, end: i, newline, closedBlock: undefined, closedTry: undefined });
      newline = false;
    };
    const template = (start) => {
      while (i < src.length) {
        const c = src[i];
        if (c === "\\") i += 2;
        else if (c === "`") {
          i++;
          return push("template", "`", start);
        } else if (c === "$" && at(i + 1) === "{") {
          i += 2;
          stack[stack.length] = "${";
          return push("template", "`", start);
        } else i++;
      }
      throw new SyntaxError("unterminated template");
    };
    while (i < src.length) {
      const c = src[i];
      const start = i;
      if (c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029") {
        newline = true;
        i++;
      } else if (c === " " || c === "\t" || c === "\v" || c === "\f" || c === "\ufeff" || c === "\u00a0") i++;
      else if (c === "/" && at(i + 1) === "/") {
        while (i < src.length && src[i] !== "\n" && src[i] !== "\r") i++;
      } else if (c === "/" && at(i + 1) === "*") {
        const close = apply(indexOf, src, ["*/", i + 2]);
        if (close === -1) throw new SyntaxError("unterminated comment");
        const text = apply(slice, src, [i, close]);
        if (apply(indexOf, text, ["\n"]) !== -1 || apply(indexOf, text, ["\r"]) !== -1) newline = true;
        i = close + 2;
      } else if (c === "'" || c === '"') {
        i++;
        while (i < src.length && src[i] !== c) i += src[i] === "\\" ? 2 : 1;
        if (i >= src.length) throw new SyntaxError("unterminated string");
        i++;
        push("string", c, start);
      } else if (c === "`") {
        i++;
        template(start);
      } else if (c === "}" && stack[stack.length - 1] === "${") {
        stack.length--;
        i++;
        template(start);
      } else if (isWord(c)) {
        while (i < src.length && isWord(src[i])) i++;
        push("word", apply(slice, src, [start, i]), start);
      } else if (c === "/" && regexAllowed(tokens[tokens.length - 1])) {
        i++;
        let inClass = false;
        while (i < src.length && (inClass || src[i] !== "/")) {
          if (src[i] === "\\") i++;
          else if (src[i] === "[") inClass = true;
          else if (src[i] === "]") inClass = false;
          else if (src[i] === "\n") throw new SyntaxError("unterminated regexp");
          i++;
        }
        i++;
        while (i < src.length && isWord(src[i])) i++;
        push("regexp", "/", start);
      } else {
        let value = c;
        for (let p = 0; p < PUNCTUATORS.length; p++) {
          const candidate = PUNCTUATORS[p];
          if (apply(slice, src, [i, i + candidate.length]) === candidate) {
            value = candidate;
            break;
          }
        }
        const after = at(i + 2);
        if (value === "?." && after >= "0" && after <= "9") value = "?"; // `a?.5:b` is a conditional
        i += value.length;
        if (value === "(" || value === "[" || value === "{") stack[stack.length] = value;
        else if (value === ")" || value === "]" || value === "}") stack.length--;
        push("punct", value, start);
      }
    }
    return tokens;
  }

  function regexAllowed(previous) {
    if (previous === undefined) return true;
    if (previous.type === "word") return REGEX_AFTER_WORD[previous.value] === true;
    if (previous.type === "punct") return previous.value !== ")" && previous.value !== "]";
    return false;
  }

  function rewriteReturns(src, keeper) {
    let tokens;
    try {
      tokens = tokenize(src);
    } catch {
      return null;
    }
    // For each open bracket: whether it is a function body. A `{` is one after `=>`, or after a
    // `)` whose `(` did not follow if/for/while/switch/catch/with (nor `for await`).
    const open = list();
    const parenIsBlock = list();
    const edits = list();
    for (let t = 0; t < tokens.length; t++) {
      const token = tokens[t];
      const before = tokens[t - 1];
      if (token.type === "punct") {
        if (token.value === "(") {
          const word = before && before.type === "word" ? before.value : "";
          const forAwait = word === "await" && tokens[t - 2] && tokens[t - 2].value === "for";
          // A catch clause follows its try block's `}`; after anything else `catch` names a
          // method (a thenable's `catch(f) { … }`), whose body is a function.
          const clause = word !== "catch" || (tokens[t - 2] !== undefined && tokens[t - 2].closedTry === true);
          parenIsBlock[parenIsBlock.length] = (BLOCK_KEYWORDS[word] === true && clause) || forAwait;
          open[open.length] = "(";
        } else if (token.value === "{") {
          let isFunction = false;
          if (before && before.value === "=>") isFunction = true;
          else if (before && before.value === ")" && before.closedBlock === false) isFunction = true;
          open[open.length] = isFunction ? "f" : before && before.value === "try" ? "t" : "{";
        } else if (token.value === "[") open[open.length] = "[";
        else if (token.value === ")") {
          token.closedBlock = parenIsBlock[parenIsBlock.length - 1];
          parenIsBlock.length--;
          open.length--;
        } else if (token.value === "]" || token.value === "}") {
          if (token.value === "}") token.closedTry = open[open.length - 1] === "t";
          open.length--;
        }
        continue;
      }
      if (token.type !== "word" || token.value !== "return") continue;
      if (before && (before.value === "." || before.value === "?.")) continue; // x.return()
      if (tokens[t + 1] && tokens[t + 1].value === ":") continue; // { return: 1 }
      let inFunction = false;
      for (let o = 0; o < open.length; o++) if (open[o] === "f") inFunction = true;
      if (inFunction) continue;
      const end = expressionEnd(tokens, t + 1);
      if (end === null) return null;
      if (end.first === end.stop) continue; // `return;` returns undefined: nothing to keep
      edits[edits.length] = entry({ returnStart: token.start, exprStart: tokens[end.first].start, exprEnd: end.at });
    }
    if (edits.length === 0) return src;
    let out = "";
    let at = 0;
    for (let e = 0; e < edits.length; e++) {
      const { returnStart, exprStart, exprEnd } = edits[e];
      out += apply(slice, src, [at, returnStart]) + `return void ${keeper}((` +
        apply(slice, src, [exprStart, exprEnd]) + "))";
      at = exprEnd;
    }
    return out + apply(slice, src, [at]);
  }

  // Where the expression of a `return` starting at token `first` ends: at `;`, at a bracket that
  // closes around it, at the end, or at a line break that automatic semicolon insertion ends it at.
  function expressionEnd(tokens, first) {
    if (first >= tokens.length || tokens[first].newline) return { first, stop: first, at: 0 };
    let depth = 0;
    for (let t = first; t < tokens.length; t++) {
      const token = tokens[t];
      if (t > first && depth === 0 && token.newline && CONTINUES[token.value] !== true) {
        const previous = tokens[t - 1];
        if (!(previous.type === "punct" && CONTINUES[previous.value] === true && previous.value !== "`")) {
          return { first, stop: t, at: previous.end };
        }
      }
      const v = token.type === "punct" ? token.value : "";
      if (v === "(" || v === "[" || v === "{") depth++;
      else if (v === ")" || v === "]" || v === "}") {
        if (depth === 0) return { first, stop: t, at: tokens[t - 1].end };
        depth--;
      } else if (v === ";" && depth === 0) return { first, stop: t, at: tokens[t - 1].end };
    }
    return { first, stop: tokens.length, at: tokens[tokens.length - 1].end };
  }

  globalThis.__tabpilotReturns = Object.freeze({ rewriteReturns });
})();
