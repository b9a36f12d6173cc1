// The page-world files, in the order they load: the tests load them as the page does, each a
// classic script run in one realm.
import { readFileSync } from "node:fs";
import vm from "node:vm";

export const readExtension = (path) => readFileSync(new URL(`../../extension/${path}`, import.meta.url), "utf8");

// The serializer's files: the captured built-ins, what a value is, how each kind is written out.
export const SERIALIZER_FILES = ["page/serialize-intrinsics.js", "page/serialize-kinds.js", "page/serialize.js"];

// What every world that runs a script loads: the serializer, then the rewrite of top-level
// returns, then the executor.
export const EXECUTOR_FILES = [...SERIALIZER_FILES, "page/returns.js", "page/executor.js"];

// The two worlds' files, as the worker registers and injects them: the one list of them.
export { ISOLATED_WORLD_FILES, MAIN_WORLD_FILES } from "../../extension/worker/tab/page-scripts.js";

/** [[path, text]] of `paths`, read once, for loadFiles. */
export const readFiles = (paths) => paths.map((path) => [path, readExtension(path)]);

/** Runs each file's text in `context`, in order, as the browser runs a list of content scripts. */
export function loadFiles(context, files) {
  for (const [path, code] of files) vm.runInContext(code, context, { filename: path });
  return context;
}
