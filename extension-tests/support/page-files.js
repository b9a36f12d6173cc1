// The page-world files, in the order they load: the tests load them as the page does, each a
// classic script run in one realm.
import { readFileSync } from "node:fs";
import vm from "node:vm";

export const readExtension = (path) => readFileSync(new URL(`../../extension/${path}`, import.meta.url), "utf8");

// The serializer's files: the captured built-ins, what a value is, how each kind is written out.
export const SERIALIZER_FILES = ["page/serialize-intrinsics.js", "page/serialize-kinds.js", "page/serialize.js"];

// The MAIN world's files as the manifest lists them (tabs.js injects the same list).
const manifest = JSON.parse(readExtension("manifest.json"));
export const MAIN_WORLD_FILES = manifest.content_scripts.find((entry) => entry.world === "MAIN").js;

/** [[path, text]] of `paths`, read once, for loadFiles. */
export const readFiles = (paths) => paths.map((path) => [path, readExtension(path)]);

/** Runs each file's text in `context`, in order, as the browser runs a list of content scripts. */
export function loadFiles(context, files) {
  for (const [path, code] of files) vm.runInContext(code, context, { filename: path });
  return context;
}
