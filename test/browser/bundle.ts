/**
 * Browser bundles of the package's entries, built with esbuild as an app's bundler would build them:
 * what they pull from Node, and what they weigh. Used by bundle.test.ts (and docs/browser.md reports it).
 */
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";

export const REPO_ROOT = resolve(__dirname, "../..");

/** The peer dependencies: an app has them anyway, so they are not what agui-reasoning adds. */
export const PEERS = ["rxjs", "rxjs/*", "@ag-ui/core", "@ag-ui/core/*", "zod", "zod/*"];

/** Node's globals, each replaced by a sentinel where the code reads it as a free variable (not a property or a string). */
const NODE_GLOBALS = [
  "process",
  "Buffer",
  "global",
  "require",
  "module",
  "__dirname",
  "__filename",
  "setImmediate",
] as const;
const SENTINEL = "__NODE_GLOBAL__";

export interface BrowserBundle {
  /** The minified ES module. */
  readonly code: string;
  /** Gzipped size in bytes (zlib's default level, as servers compress). */
  readonly gzipBytes: number;
  /** Node globals the code reads (e.g. `process`), sorted, without repeats. */
  readonly nodeGlobals: readonly string[];
  /** `node:*` and bare Node built-in imports left in the bundle (only possible when `external` allows them). */
  readonly nodeImports: readonly string[];
  /** Which bundled files import those built-ins. */
  readonly nodeImporters: readonly string[];
  readonly metafile: Metafile;
}

export interface BundleOptions {
  /** Modules left out of the bundle (e.g. PEERS, or `node:*` to see who imports them). */
  readonly external?: readonly string[];
}

/** `entry` (a path, or `{ contents }` as a module in the repository root) bundled for the browser and minified. */
export async function bundleForBrowser(
  entry: string | { contents: string },
  options: BundleOptions = {},
): Promise<BrowserBundle> {
  const result = await build({
    ...(typeof entry === "string"
      ? { entryPoints: [resolve(REPO_ROOT, entry)] }
      : { stdin: { contents: entry.contents, resolveDir: REPO_ROOT, loader: "ts" as const } }),
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
    external: [...(options.external ?? [])],
    define: Object.fromEntries(NODE_GLOBALS.map((name) => [name, `${SENTINEL}${name}`])),
  });
  const code = result.outputFiles[0]!.text;
  const nodeGlobals = [
    ...new Set(Array.from(code.matchAll(new RegExp(`${SENTINEL}(\\w+)`, "g")), (m) => m[1]!)),
  ].sort();
  const importers = Object.entries(result.metafile.inputs).filter(([, input]) =>
    input.imports.some((i) => isNodeBuiltin(i.path)),
  );
  return {
    code,
    gzipBytes: gzipSync(code).length,
    nodeGlobals,
    nodeImports: [
      ...new Set(importers.flatMap(([, input]) => input.imports.map((i) => i.path).filter(isNodeBuiltin))),
    ].sort(),
    nodeImporters: importers.map(([file]) => file).sort(),
    metafile: result.metafile,
  };
}

const BUILTINS = new Set([
  "fs",
  "path",
  "crypto",
  "os",
  "url",
  "util",
  "stream",
  "events",
  "buffer",
  "string_decoder",
  "zlib",
  "http",
  "https",
  "net",
  "child_process",
  "worker_threads",
  "fs/promises",
]);

function isNodeBuiltin(path: string): boolean {
  return path.startsWith("node:") || BUILTINS.has(path);
}
