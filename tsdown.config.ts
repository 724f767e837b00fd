import { defineConfig, type UserConfig } from "tsdown";

// Shared by both builds. Peer dependencies (rxjs, @ag-ui/core, zod) stay external, as tsdown does for
// every peer; `@ag-ui/client` (a dev dependency the CLI imports on demand for `--url`) and `@ag-ui/encoder`
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
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
  },
]);
