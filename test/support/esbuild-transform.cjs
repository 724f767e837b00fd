// Jest transformer: TypeScript → CommonJS with esbuild, without type-checking. The typecheck runs
// once, before jest, as `tsc --noEmit` (npm test). esbuild is far cheaper per file and per worker
// than the TypeScript compiler, which keeps a cold run (a fresh clone, an empty jest cache) fast.
const { createHash } = require("node:crypto");
const { readFileSync } = require("node:fs");
const { transformSync, version } = require("esbuild");

const SELF = createHash("sha256").update(readFileSync(__filename)).update(version).digest("hex");

/** What tsconfig.json says that changes emitted code (esbuild reads no tsconfig in transform mode); `strict` implies "use strict" in every file, as tsc emits it. */
const TSCONFIG_RAW = { compilerOptions: { target: "ES2022", useDefineForClassFields: true, verbatimModuleSyntax: false, esModuleInterop: true, alwaysStrict: true } };

module.exports = {
  canInstrument: false,
  getCacheKey(source, filename) {
    return createHash("sha256").update(SELF).update("\0").update(filename).update("\0").update(source).digest("hex");
  },
  process(source, filename) {
    const loader = filename.endsWith(".ts") || filename.endsWith(".mts") || filename.endsWith(".cts") ? "ts" : "js";
    const { code, map } = transformSync(source, {
      loader,
      format: "cjs",
      target: "node20",
      platform: "node",
      sourcemap: "external",
      sourcefile: filename,
      tsconfigRaw: TSCONFIG_RAW,
      // `import()` becomes `require()`, as the TypeScript compiler emits it for CommonJS: jest's module
      // registry (isolation, spies) sees every module, and no --experimental-vm-modules is needed.
      supported: { "dynamic-import": false },
    });
    return { code, map };
  },
};
