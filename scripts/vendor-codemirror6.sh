#!/usr/bin/env bash
# Rebuilds tests/fixtures/vendor/codemirror6/codemirror6.js: one IIFE bundle of CodeMirror 6 from
# pinned npm versions, which the e2e fixture pages load with a plain <script> (no import map, no
# CDN). It exposes globalThis.CM6 = {EditorState, EditorView, keymap, ...}. The versions here and in
# the fixture's README.md must agree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/tests/fixtures/vendor/codemirror6"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > package.json <<'JSON'
{
  "private": true,
  "dependencies": {
    "@codemirror/state": "6.5.2",
    "@codemirror/view": "6.38.6",
    "@codemirror/commands": "6.10.0",
    "@codemirror/language": "6.11.3",
    "@codemirror/autocomplete": "6.19.1",
    "@codemirror/lang-sql": "6.10.0",
    "esbuild": "0.25.10"
  }
}
JSON
npm install --no-audit --no-fund --ignore-scripts=false --silent
cat > entry.js <<'JS'
export { EditorState } from "@codemirror/state";
export { EditorView, keymap, lineNumbers, drawSelection } from "@codemirror/view";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export { indentOnInput, bracketMatching } from "@codemirror/language";
export { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
export { sql } from "@codemirror/lang-sql";
JS
mkdir -p "$out"
./node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=CM6 \
  --legal-comments=none --outfile="$out/codemirror6.js"
npm ls --all --omit=dev 2>/dev/null | grep -E '@(codemirror|lezer)/|style-mod|w3c-keyname|crelt' \
  | sed -E 's/^[^@a-z]*//; s/ deduped//' | sort -u > "$out/versions.txt"
echo "wrote $out/codemirror6.js ($(wc -c < "$out/codemirror6.js") bytes)"
