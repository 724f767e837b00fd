import { createRequire } from "node:module";
import { defineConfig, type UserConfig } from "tsdown";

/** The peers the command carries inside it (the library entries leave them to the user's install). */
const PEERS = [/^rxjs(\/|$)/, /^zod(\/|$)/, /^@ag-ui\/core(\/|$)/];
// rxjs's `node` export is its CommonJS build (about 220 modules, each kept in a `__commonJS` wrapper);
// its ES2015 build is the one a bundler can flatten and shake (with its helpers' package, tslib).
const RXJS_ESM = createRequire(import.meta.url)
  .resolve("rxjs")
  .replace(/cjs[\\/]index\.js$/, "esm/index.js");

// Shared by both builds. In the library, peer dependencies (rxjs, @ag-ui/core, zod) stay external, as
// tsdown does for every peer (the command carries them, below); `@ag-ui/client` (a dev dependency the CLI imports on demand for `--url`) and `@ag-ui/encoder`
// (which `mockAgentServer({ encoding: "protobuf" })` imports on demand) stay external
// too; and nothing else from node_modules may be bundled (`onlyBundle: []` fails the build if it is).
const common: UserConfig = {
  platform: "node",
  target: "node20",
  fixedExtension: true,
  sourcemap: false,
  deps: { neverBundle: ["@ag-ui/client", "@ag-ui/encoder"], onlyBundle: [] },
  checks: { pluginTimings: false },
};

export default defineConfig([
  {
    ...common,
    // The library: `agui-reasoning` and its subpaths `/stages`, `/resilience`, `/testing` and `/storage`, dual
    // ESM + CJS with declarations (.mjs + .d.mts, .cjs + .d.cts). Shared code lands in common chunks
    // per format, so every entry shares one `ReasoningProtocolError` class.
    entry: {
      index: "src/index.ts",
      stages: "src/stages.ts",
      resilience: "src/resilience.ts",
      testing: "src/testing/index.ts",
      storage: "src/storage/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    // The recordings' loader finds `recorded/` beside the bundle through `__dirname` (shimmed in ESM).
    shims: true,
    copy: [{ from: "examples/recorded/*.jsonl", to: "dist/recorded" }],
    clean: true,
  },
  {
    ...common,
    // The `agui-reasoning` command (package.json `bin`): one ESM file with its shebang, no declarations.
    // It carries its peers (rxjs, zod, @ag-ui/core) inside: start-up then reads one file instead of
    // rxjs's and zod's hundreds (≈ 0.13 s of every run, issue 22); nothing else is bundled, and
    // `@ag-ui/client` (for `--url`, with the user's own rxjs: any copy's Observable is read) stays outside.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    deps: { neverBundle: ["@ag-ui/client", "@ag-ui/encoder"], alwaysBundle: PEERS, onlyBundle: [...PEERS, "tslib"] },
    alias: { rxjs: RXJS_ESM },
  },
]);
