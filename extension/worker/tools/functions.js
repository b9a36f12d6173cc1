// The function registry's syntax check (eval_define_function; the registry itself lives in the
// daemon): the source is parsed with acorn 8.19.0 (vendor/acorn, MIT), never run, since a service
// worker may not compile code from strings anyway. The daemon later calls the function by inlining
// it as `(SOURCE\n)(args)`, so what is checked is exactly that: one function expression, and
// nothing around it.
import { parse, parseExpressionAt, tokTypes, tokenizer } from "../../vendor/acorn/acorn.mjs";
import { CommandError } from "../link/errors.js";

// A script like the ones execute_javascript runs; `await` is a keyword, as in the async wrapper
// the daemon's call runs the function from.
const OPTIONS = { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true, locations: true };
const FUNCTIONS = new Set(["FunctionExpression", "ArrowFunctionExpression"]);
const LINE_BREAK = /\r\n?|[\n\u2028\u2029]/;
const EXAMPLE = "(a, b) => a + b, function (el) { … } or async function load(url) { … }";

export function createFunctionsTools() {
  return {
    handlers: {
      eval_define_function: async (params) => ({
        result: { source: checkFunction(params.source) },
        result_type: "object",
        tab: null,
      }),
    },
    // Its calls are scripts, shown as such; the definition itself touches no page.
    summaries: { eval_define_function: (params) => `defined the function ${params?.name}` },
  };
}

// The function's own text (without comments or a `;` around it), or a CommandError
// `invalid_function` saying where the source is wrong, at 1-based line and column.
export function checkFunction(source) {
  if (typeof source !== "string" || source.trim() === "") {
    throw invalid(`The source is empty. Send one function, such as ${EXAMPLE}.`);
  }
  let program = null;
  let plainError = null;
  try {
    program = parse(source, OPTIONS);
  } catch (err) {
    plainError = err;
  }
  if (program !== null) {
    const statements = program.body.filter((node) => node.type !== "EmptyStatement");
    if (statements.length !== 1) {
      throw invalid(`The source holds ${statements.length} statements; it must be one function, such as ${EXAMPLE}.`);
    }
    const node = statements[0].type === "ExpressionStatement" ? statements[0].expression : statements[0];
    if (node.type === "FunctionDeclaration" || FUNCTIONS.has(node.type))
      return inlinable(source.slice(node.start, node.end));
    throw invalid(notAFunction(node, source));
  }
  // An anonymous `function (a) { … }` is no statement: read the source as the expression the call
  // makes of it, followed by nothing but semicolons.
  let node;
  try {
    node = parseExpressionAt(source, 0, OPTIONS);
  } catch (err) {
    throw syntaxError(source, furthest(plainError, err));
  }
  if (!FUNCTIONS.has(node.type)) throw syntaxError(source, plainError);
  try {
    for (const token of tokenizer(source.slice(node.end), OPTIONS)) {
      if (token.type !== tokTypes.semi) throw Object.assign(new SyntaxError("Unexpected token"), { pos: token.start });
    }
  } catch (err) {
    throw syntaxError(source, { message: err.message, pos: node.end + (err.pos ?? 0) });
  }
  return inlinable(source.slice(node.start, node.end));
}

// The text as the call inlines it, parsed once more that way: one function expression.
function inlinable(text) {
  const body = parse(`(${text}\n)`, OPTIONS).body;
  if (body.length !== 1 || !FUNCTIONS.has(body[0].expression?.type)) {
    throw invalid(`The source does not read as one function once inlined. Send one function, such as ${EXAMPLE}.`);
  }
  return text;
}

function notAFunction(node, source) {
  if (node.type === "VariableDeclaration") {
    return `The source declares a variable; send the function itself (its name goes in \`name\`), such as ${EXAMPLE}.`;
  }
  const what =
    node.type === "ClassDeclaration" || node.type === "ClassExpression"
      ? "a class"
      : `\`${firstLine(source.slice(node.start, node.end))}\``;
  return `The source is ${what}, not a function. Send one function, such as ${EXAMPLE}.`;
}

// Of two parse errors, the one further into the source: where a reading of it got furthest.
function furthest(a, b) {
  if (a === null) return b;
  return b.pos > a.pos ? b : a;
}

function syntaxError(source, err) {
  // At the end, when the source stops before the function does (an unclosed brace, say).
  const pos = typeof err?.pos === "number" ? Math.min(err.pos, source.length) : source.length;
  const what =
    pos === source.length
      ? "the source ends before the function does (a bracket, brace or quote left open?)"
      : String(err?.message ?? "invalid syntax").replace(/ \(\d+:\d+\)$/, "");
  const lines = source.slice(0, pos).split(LINE_BREAK);
  const line = lines.length;
  const column = lines[lines.length - 1].length + 1;
  return invalid(`SyntaxError at line ${line}, column ${column}: ${what}. Fix the source and define it again.`, {
    line,
    column,
  });
}

function firstLine(text) {
  const line = text.split(LINE_BREAK)[0];
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}

function invalid(message, data) {
  return new CommandError("invalid_function", message, data ? { data } : {});
}
