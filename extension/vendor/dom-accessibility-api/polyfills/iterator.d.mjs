
//# sourceMappingURL=iterator.d.mjs.map