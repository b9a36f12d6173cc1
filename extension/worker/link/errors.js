// One error type for every refusal a command can end in. `code` is the wire code of protocol.md §1
// (the daemon maps it to an HTTP status), `tab` is the {id, url, title} the refusal concerns, if any.
export class CommandError extends Error {
  constructor(code, message, { tab = null, stack, data, extra = null } = {}) {
    super(message);
    this.name = "CommandError";
    this.code = code;
    this.tab = tab;
    this.pageStack = stack;
    // A thrown Error's other own fields (code, cause, errors…), serialized in the page.
    this.data = data;
    // Fields of the result frame beside the error: the route that ran, the dialogs answered.
    this.extra = extra;
  }
}

// The `error` object of a result frame: {code, message, stack?}. Anything that is not a
// CommandError is a bug or a Chrome surprise, reported as extension_error with its message.
export function errorPayload(err) {
  if (err instanceof CommandError) {
    const error = { code: err.code, message: err.message };
    if (typeof err.pageStack === "string") error.stack = err.pageStack;
    if (err.data !== undefined) error.data = err.data;
    return error;
  }
  return { code: "extension_error", message: String(err?.message ?? err) };
}
