/**
 * Browser build facts (docs/browser.md), checked with esbuild as an app's bundler would build them:
 * the main entry needs nothing from Node, what it adds to an app stays within a 36 KiB gzipped budget,
 * the sizes docs/browser.md reports are the measured ones, and `agui-reasoning/testing` needs Node in
 * one place only (the recordings loader, as docs/testing.md says).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PEERS, REPO_ROOT, bundleForBrowser, type BrowserBundle } from "./bundle";

const KiB = 1024;
/** The budget for what agui-reasoning adds to a chat UI (minified, gzipped, peers excluded). */
// 32 KiB until issue 23 added reasoning durations (D-DURATION) and the display view; 36 KiB until the
// lossy warning for a list naming a message twice (R-EVT-8) and the redaction of the client's error reports (D-REDACT);
// 37 KiB until the public functions checked their own arguments (src/core/arguments.ts); 38 KiB until
// the reader of resume snapshots left the facade for agui-reasoning/resilience (`resumable`), about 3.1 KiB with
// exportState() writing the pipeline's own history directly.
const BUDGET_GZIP_BYTES = 36 * KiB;

/** What a chat UI imports (the web demo's page imports exactly this). */
const CHAT_UI_IMPORTS =
  'export { reasoningPipeline, reasoningView, toRunInputMessages, agentEvents } from "./src/index.ts";';

/** The gzipped size docs/browser.md reports, by the row's label (the row's last cell, "N KiB"; cells may be padded). */
function documentedKiB(label: string): number {
  const doc = readFileSync(resolve(REPO_ROOT, "docs/browser.md"), "utf8");
  const cells = doc
    .split("\n")
    .map((line) => line.split("|").map((cell) => cell.trim()))
    .find((row) => row[0] === "" && row[1] === label);
  const kib = cells?.[cells.length - 2]?.match(/^([\d.]+) KiB$/)?.[1];
  if (kib === undefined) throw new Error(`docs/browser.md has no "| ${label} | … | N KiB |" row`);
  return Number(kib);
}

describe("browser build facts (docs/browser.md)", () => {
  it("the Node check finds what it looks for: node:* imports, process, Buffer, require, __dirname", async () => {
    const bad = await bundleForBrowser(
      {
        contents: [
          'import { readFileSync } from "node:fs";',
          "export const a = () => readFileSync(__dirname + process.env.X);",
          'export const b = () => Buffer.from("x");',
          'export const c = () => require("y");',
          'export const notGlobals = (o: { process: number; Buffer: number }) => o.process + o.Buffer + "process Buffer".length;',
        ].join("\n"),
      },
      { external: ["node:*"] },
    );
    expect(bad.nodeImports).toEqual(["node:fs"]);
    expect(bad.nodeGlobals).toEqual(["Buffer", "__dirname", "process", "require"]);
  });

  it("the main entry bundles for the browser, dependencies included, with no Node built-in and no Node global", async () => {
    // Nothing external: a Node built-in anywhere (agui-reasoning or its peers) would fail the build.
    const whole = await bundleForBrowser("src/index.ts");
    expect(whole.nodeImports).toEqual([]);
    expect(Object.keys(whole.metafile.inputs).some((file) => file.startsWith("node_modules/rxjs/"))).toBe(true);
    // agui-reasoning's own code reads no Node global (its peers may guard `typeof process`; that is theirs).
    const own = await bundleForBrowser("src/index.ts", { external: PEERS });
    expect(own.nodeGlobals).toEqual([]);
    expect(Object.keys(own.metafile.inputs).every((file) => file.startsWith("src/"))).toBe(true);
  });

  it("what a chat UI adds (reasoningPipeline, reasoningView, toRunInputMessages, agentEvents; minified, gzipped, peers excluded) is within 36 KiB, as docs/browser.md reports", async () => {
    const chatUi = await bundleForBrowser({ contents: CHAT_UI_IMPORTS }, { external: PEERS });
    expect(chatUi.nodeGlobals).toEqual([]);
    expect(chatUi.gzipBytes).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
    // The documented figure is the measured one (within 15%: small changes need no doc edit).
    expect(Math.abs(documentedKiB("chat UI") - chatUi.gzipBytes / KiB) / (chatUi.gzipBytes / KiB)).toBeLessThan(0.15);
  });

  it("a chat UI that never resumes bundles no reader of resume snapshots: it comes with `resumable` from agui-reasoning/resilience", async () => {
    // Messages only the reader's checks give (src/resume/*: the snapshot's producer, a lane, a role pair).
    const READER = [
      "names another producer than this pipeline",
      "names a lane that already has an open stream",
      "pair (got",
    ];
    const chatUi = await bundleForBrowser({ contents: CHAT_UI_IMPORTS }, { external: PEERS });
    expect(READER.filter((text) => chatUi.code.includes(text))).toEqual([]);
    const resuming = await bundleForBrowser(
      { contents: `${CHAT_UI_IMPORTS}\nexport { resumable } from "./src/resilience.ts";` },
      { external: PEERS },
    );
    expect(READER.filter((text) => resuming.code.includes(text))).toEqual(READER);
  });

  it("the whole main entry (every export, peers excluded) weighs what docs/browser.md reports", async () => {
    const whole = await bundleForBrowser("src/index.ts", { external: PEERS });
    expect(Math.abs(documentedKiB("whole main entry") - whole.gzipBytes / KiB) / (whole.gzipBytes / KiB)).toBeLessThan(
      0.15,
    );
  });

  it("agui-reasoning/storage: a chat UI that does not import it bundles none of its adapters; with IndexedDbHistoryStore it weighs what docs/browser.md reports; the entry needs nothing from Node", async () => {
    const bytesOf = (bundle: BrowserBundle, file: string) =>
      Object.values(bundle.metafile.outputs)[0]!.inputs[file]?.bytesInOutput ?? 0;
    const ADAPTERS = [
      "src/storage/indexeddb-store.ts",
      "src/storage/key-value-store.ts",
      "src/storage/stored-record.ts",
    ];
    const chatUi = await bundleForBrowser({ contents: CHAT_UI_IMPORTS }, { external: PEERS });
    expect(ADAPTERS.map((file) => bytesOf(chatUi, file))).toEqual([0, 0, 0]);

    const withStore = await bundleForBrowser(
      { contents: `${CHAT_UI_IMPORTS}\nexport { IndexedDbHistoryStore } from "./src/storage/index.ts";` },
      { external: PEERS },
    );
    expect(bytesOf(withStore, "src/storage/indexeddb-store.ts")).toBeGreaterThan(0);
    const documented = documentedKiB("chat UI + IndexedDbHistoryStore");
    expect(Math.abs(documented - withStore.gzipBytes / KiB) / (withStore.gzipBytes / KiB)).toBeLessThan(0.15);

    // Nothing external: a Node built-in in the adapters (or what they import) would fail the build.
    expect((await bundleForBrowser("src/storage/index.ts")).nodeImports).toEqual([]);
    expect((await bundleForBrowser("src/storage/index.ts", { external: PEERS })).nodeGlobals).toEqual([]);
  });

  it("agui-reasoning/testing needs Node only for loading the shipped recordings and for mockAgentServer (docs/testing.md)", async () => {
    const testing = await bundleForBrowser("src/testing/index.ts", {
      external: [...PEERS, "node:*", "@ag-ui/encoder"],
    });
    expect(testing.nodeImporters).toEqual(["src/testing/mock-agent-server.ts", "src/testing/recordings.ts"]);
    expect(testing.nodeImports).toEqual(["node:fs", "node:http", "node:path"]);
    expect(testing.nodeGlobals).toEqual(["Buffer", "__dirname", "setImmediate"]);
    expect(readFileSync(resolve(REPO_ROOT, "docs/testing.md"), "utf8")).toMatch(
      /Node-only[^\n]*loadRecording[^]*mockAgentServer/,
    );
  });
});
