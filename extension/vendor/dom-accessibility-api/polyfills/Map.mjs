// we need to export something here to make this file a module, but don't want to
// actually include a polyfill because it's potentially significantly slower than
// the native implementation
export {};
//# sourceMappingURL=Map.mjs.map