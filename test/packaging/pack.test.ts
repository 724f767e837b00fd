import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/**
 * The published package, as a user gets it: a fresh `git clone` of this checkout (with the working
 * tree's uncommitted edits laid over it, so a local run tests what you would commit), `npm ci` there
 * — whose `prepare` script must build `dist/` —, then `npm pack` there from a clone without `dist/`
 * (so packing builds by itself), and the tarball installed into an empty project with an empty npm
 * cache and no network. There, `require` and `import` every entry point and run a three-event stream
 * through each, compile a TypeScript consumer against the shipped declarations, and run the
 * `agui-reasoning` command.
 *
 * The package has no dependencies, only peers; those are linked from this repository's
 * node_modules (what `npm ci` installed), so nothing is fetched for the consumer.
 */

const repo = resolve(__dirname, "../..");
// Linked into the consumer project: the peers, and jest's types for the matcher declarations.
const LINKED = ["rxjs", "@ag-ui/core", "zod", "@types/jest"];

let work: string;
let clone: string;
let consumer: string;
let tarball: string;
/** What the fresh clone's `npm ci` left in `dist/` (its `prepare` build). */
let builtByNpmCi: string[];

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
}

/** `git clone` of the checkout, then the working tree's uncommitted changes (edits, new files, deletions). */
function freshClone(into: string): void {
  run("git", ["clone", "--quiet", "--no-hardlinks", repo, into], repo);
  const changed = run("git", ["ls-files", "--modified", "--others", "--exclude-standard", "-z"], repo);
  for (const file of changed.split("\0").filter(Boolean)) {
    const from = join(repo, file);
    if (!existsSync(from)) rmSync(join(into, file), { force: true });
    else if (statSync(from).isFile()) {
      mkdirSync(dirname(join(into, file)), { recursive: true });
      copyFileSync(from, join(into, file));
    }
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agui-reasoning-pack-"));
  clone = join(work, "clone");
  freshClone(clone);
  if (existsSync(join(clone, "dist"))) throw new Error("the fresh clone has a dist/ folder before npm ci");
  run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], clone);
  builtByNpmCi = existsSync(join(clone, "dist")) ? readdirSync(join(clone, "dist")) : [];
  rmSync(join(clone, "dist"), { recursive: true, force: true });
  run("npm", ["pack", "--pack-destination", work, "--silent"], clone);
  const packed = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!packed) throw new Error("npm pack produced no tarball");
  tarball = join(work, packed);

  consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, version: "0.0.0" }));
  run(
    "npm",
    [
      "install",
      tarball,
      "--offline",
      "--no-audit",
      "--no-fund",
      "--legacy-peer-deps",
      "--ignore-scripts",
      "--cache",
      join(work, "npm-cache"),
    ],
    consumer,
  );
  for (const name of LINKED) {
    const link = join(consumer, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(repo, "node_modules", name), link, "dir");
  }
  for (const [file, text] of Object.entries(CONSUMER_FILES)) writeFileSync(join(consumer, file), text);
  writeFileSync(join(consumer, "example.test.ts"), integratorExample());
}, 300_000);

/** docs/testing.md's integrator example, as an integrator has it: importing the package by name. */
function integratorExample(): string {
  const source = readFileSync(join(repo, "test", "testing-kit", "integrator-example.test.ts"), "utf8");
  return source
    .slice(0, source.indexOf('\nit("docs/testing.md shows this file verbatim'))
    .replace('"../../src/testing"', '"agui-reasoning/testing"')
    .replaceAll('"../../src"', '"agui-reasoning"');
}

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What both runtime consumers print: the same in CJS and ESM. */
const EXPECTED = {
  main: {
    events: [
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "RUN_FINISHED",
    ],
    messages: [{ id: "m1", role: "reasoning", content: "Let me" }],
  },
  subpaths: {
    stages: { code: "ORPHAN_END", sameClass: true },
    resilience: { repaired: ["RUN_STARTED", "RUN_ERROR"], snapshot: "agui-reasoning/pipeline-state" },
    resumed: { here: ["REASONING_MESSAGE_END", "RUN_FINISHED"], esm: ["REASONING_MESSAGE_END", "RUN_FINISHED"] },
  },
  testing: {
    events: [
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "RUN_FINISHED",
    ],
    messages: [{ id: "m1", role: "reasoning", content: "Let me" }],
    inputs: ["r1"],
    recorded: 18,
    failure: { code: "ORPHAN_CONTENT", sameClass: true },
  },
  storage: {
    keys: ["agui-reasoning/history/t1"],
    reloaded: true,
    indexedDbInNode: "agui-reasoning: IndexedDbHistoryStore: no IndexedDB here; pass options.indexedDB",
  },
};

describe("packaging: the packed tarball installed into a clean project", () => {
  it("npm ci in a fresh clone builds dist/ (the prepare script): the CLI and both entry points", () => {
    expect(builtByNpmCi).toEqual(
      expect.arrayContaining(["cli.mjs", "index.cjs", "index.mjs", "testing.cjs", "testing.mjs"]),
    );
  });

  it("ships only dist, schema (the check's --json JSON Schema), README.md, LICENSE and package.json", () => {
    const files = run("tar", ["-tzf", tarball], work)
      .split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
    expect([...new Set(files.map((f) => f.split("/")[0]))].sort()).toEqual([
      "LICENSE",
      "README.md",
      "dist",
      "package.json",
      "schema",
    ]);
    expect(files).toEqual(
      expect.arrayContaining(["dist/cli.mjs", "dist/index.mjs", "dist/index.cjs", "dist/index.d.mts"]),
    );
    expect(files.filter((f) => f.startsWith("schema/"))).toEqual(["schema/check-result.v1.json"]);
  });

  it("require(): every entry point runs (CommonJS)", () => {
    expect(JSON.parse(run("node", ["consumer.cjs"], consumer))).toEqual(EXPECTED);
  });

  it("import: every entry point runs (ES modules)", () => {
    expect(JSON.parse(run("node", ["consumer.mjs"], consumer))).toEqual(EXPECTED);
  });

  it("tsc compiles a TypeScript consumer (ESM and CJS) against the shipped declarations, matchers included", () => {
    const result = spawnSync("node", [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], {
      cwd: consumer,
      encoding: "utf8",
    });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
    // skipLibCheck is off, so the shipped .d.mts/.d.cts are checked too; that takes a while on 2 cores.
  }, 120_000);

  it("the integrator example of docs/testing.md passes under jest against the installed package", () => {
    const result = spawnSync(
      "node",
      [join(repo, "node_modules", "jest", "bin", "jest.js"), "--ci", "--config", "jest.config.json"],
      {
        cwd: consumer,
        encoding: "utf8",
      },
    );
    expect({ status: result.status, summary: /Tests:.*$/m.exec(result.stderr)?.[0] }).toEqual({
      status: 0,
      summary: "Tests:       3 passed, 3 total",
    });
  }, 120_000);

  it("the agui-reasoning command checks a recording: exit 0 when valid, 1 on a violation", () => {
    const recorded = join(consumer, "node_modules", "agui-reasoning", "dist", "recorded");
    const ok = spawnSync(
      join(consumer, "node_modules", ".bin", "agui-reasoning"),
      ["check", join(recorded, "anthropic-style-thinking.jsonl"), "--no-progress"],
      {
        cwd: consumer,
        encoding: "utf8",
      },
    );
    expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: "" });
    const broken = spawnSync(
      join(consumer, "node_modules", ".bin", "agui-reasoning"),
      ["check", join(recorded, "broken-orphan-content.jsonl"), "--no-progress"],
      {
        cwd: consumer,
        encoding: "utf8",
      },
    );
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain("ORPHAN_CONTENT");
  });

  it("the command carries its peers (start-up reads one file, issue 22); the library entries leave them to the user", () => {
    const installed = join(consumer, "node_modules", "agui-reasoning", "dist");
    // Alone in a folder with no node_modules anywhere above it that could hold rxjs, zod or @ag-ui/core.
    const alone = mkdtempSync(join(tmpdir(), "agui-reasoning-cli-alone-"));
    try {
      copyFileSync(join(installed, "cli.mjs"), join(alone, "cli.mjs"));
      const recording = join(installed, "recorded", "anthropic-style-thinking.jsonl");
      const ok = spawnSync(process.execPath, [join(alone, "cli.mjs"), "check", recording, "--no-progress"], {
        cwd: alone,
        encoding: "utf8",
      });
      expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: "" });
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
    for (const entry of ["index.mjs", "index.cjs"]) {
      expect(readFileSync(join(installed, entry), "utf8")).toMatch(/(from |require\()"rxjs"/);
    }
  });
});

// The consumer project's files. The runtime consumers print what EXPECTED describes.
const RUNTIME = (load: string) => `${load}
const events = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
  { type: "REASONING_MESSAGE_CHUNK", messageId: "m1", delta: "Let me" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1" },
];

// The main entry: the facade over the three events.
const pipeline = main.reasoningPipeline(rxjs.from(events), { producer: "https://agent.example/run", initialHistory: main.emptyHistory(), onWarning() {} });
const seen = [];
pipeline.events$.subscribe((e) => seen.push(e.type));

// The testing entry: the same stream built with its builders, through a mock agent and runPipeline.
const { ev } = testing;
const agent = testing.mockAgent([[ev.runStarted(), ev.reasoningChunk("m1", "Let me"), ev.runFinished()]]);
const run = testing.runPipeline(agent.run({ threadId: "t1", runId: "r1", messages: [], tools: [], context: [], state: {}, forwardedProps: {} }));
const failed = testing.runPipeline([ev.runStarted(), ev.reasoningMessageContent("m1", "x")]).error;

// The subpaths: the step contract and resilience, sharing the main entry's error class.
const orphan = stages.runStage(stages.createVerifyStage(), [events[0], { type: "REASONING_MESSAGE_END", messageId: "m9" }]).error;
const repaired = [];
rxjs.from([events[0]]).pipe(resilience.repairStream({ onWarning() {} })).subscribe((e) => repaired.push(e.type));

// Resume: a stream cut mid-run, continued by a new pipeline with the resilience entry's reader, loaded in this
// module format and as an ES module (a CommonJS app may get the two entries in two formats).
const cut = main.reasoningPipeline(rxjs.from(events.slice(0, 2)), { producer: "https://agent.example/run", onWarning() {} });
cut.events$.subscribe({ error() {} });
const snapshot = JSON.parse(JSON.stringify(cut.exportState()));
const resumeWith = (resumable) => {
  const out = [];
  main.reasoningPipeline(rxjs.from([events[2]]), { producer: "https://agent.example/run", resumeFrom: resumable(snapshot), onWarning() {} })
    .events$.subscribe((e) => out.push(e.type));
  return out;
};

// The storage entry: the key-value adapter over a Map, and the IndexedDB adapter, which says what Node lacks.
const strings = new Map();
const kv = new storage.KeyValueHistoryStore({ get: (k) => strings.get(k), set: (k, v) => strings.set(k, v) });
Promise.all([
  kv.save("t1", run.history).then(() => kv.load("t1")),
  new storage.IndexedDbHistoryStore().load("t1").catch((e) => e.message),
  import("agui-reasoning/resilience"),
]).then(([reloaded, indexedDbInNode, esm]) => console.log(JSON.stringify({
  main: { events: seen, messages: pipeline.history.messages },
  subpaths: {
    stages: { code: orphan.code, sameClass: orphan instanceof main.ReasoningProtocolError },
    resilience: { repaired, snapshot: resilience.SNAPSHOT_FORMAT },
    resumed: { here: resumeWith(resilience.resumable), esm: resumeWith(esm.resumable) },
  },
  testing: {
    events: run.events.map((e) => e.type),
    messages: run.history.messages,
    inputs: agent.inputs.map((i) => i.runId),
    recorded: testing.loadRecording("anthropic-style-thinking").length,
    failure: { code: failed.code, sameClass: failed instanceof main.ReasoningProtocolError },
  },
  storage: {
    keys: [...strings.keys()],
    reloaded: main.serializeHistory(reloaded) === main.serializeHistory(run.history),
    indexedDbInNode,
  },
})));
`;

const CONSUMER_FILES: Record<string, string> = {
  "consumer.cjs": RUNTIME(`const main = require("agui-reasoning");
const stages = require("agui-reasoning/stages");
const resilience = require("agui-reasoning/resilience");
const testing = require("agui-reasoning/testing");
const storage = require("agui-reasoning/storage");
const rxjs = require("rxjs");`),
  "consumer.mjs": RUNTIME(`import * as main from "agui-reasoning";
import * as stages from "agui-reasoning/stages";
import * as resilience from "agui-reasoning/resilience";
import * as testing from "agui-reasoning/testing";
import * as storage from "agui-reasoning/storage";
import * as rxjs from "rxjs";`),
  "jest.config.json": JSON.stringify({
    testEnvironment: "node",
    testMatch: ["<rootDir>/example.test.ts"],
    transform: {
      "^.+\\.ts$": [
        join(repo, "node_modules", "ts-jest"),
        { tsconfig: { module: "commonjs", isolatedModules: true, esModuleInterop: true } },
      ],
    },
  }),
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ["jest"],
    },
    files: ["typed.mts", "typed.cts", "example.test.ts"],
  }),
  "typed.mts": `import { from } from "rxjs";
import { reasoningPipeline, toRunInputMessages, ReasoningProtocolError, type ReasoningHistory, type ReasoningWarning } from "agui-reasoning";
import { alphabet, createTestScheduler, ev, expectPipeline, historyOf, installReasoningMatchers, mockAgent, msg, protocolErrorWith } from "agui-reasoning/testing";
import { IndexedDbHistoryStore, type IndexedDbHistoryStoreOptions } from "agui-reasoning/storage";
import { mockAgentServer, returnedValues, type MockAgentServer, type ReturnedValue } from "agui-reasoning/testing";

installReasoningMatchers();
const idbOptions: IndexedDbHistoryStoreOptions = { objectStore: "threads" };
export const idb: Promise<ReasoningHistory | undefined> = new IndexedDbHistoryStore(idbOptions).load("t1");
export const server: Promise<MockAgentServer> = mockAgentServer([[ev.runStarted(), ev.runFinished()]], { encoding: "protobuf" });
export const back = (s: MockAgentServer): ReturnedValue[] => returnedValues(s.requests[0], s.issued);
const p = reasoningPipeline(from([ev.runStarted(), ev.reasoningChunk("m1", "Let me"), ev.runFinished()]), { producer: "p" });
p.history$.subscribe((h: ReasoningHistory) => toRunInputMessages(h, { producer: "p" }));
p.warnings$.subscribe((w: ReasoningWarning) => w.code);
createTestScheduler().run((helpers) => {
  expectPipeline(helpers, reasoningPipeline(helpers.cold("R k F |", alphabet))).toBe({ events: "R (<c) F |" }, alphabet);
});
const expected = historyOf([msg.reasoning("m1", "Let me")]);
const agent = mockAgent([[ev.runStarted(), ev.runFinished()]]);
export const checks = [expected, agent.inputs, protocolErrorWith("ORPHAN_CONTENT", { eventIndex: 1 }), ReasoningProtocolError];
expect([ev.runStarted()]).toFailWithCode("RUN_TRUNCATED", { rule: "D-TRUNC" });
expect([ev.runStarted()]).toWarnWith("UNKNOWN_ENTITY", { ids: ["x"] });
// @ts-expect-error not an error code of the package
expect([ev.runStarted()]).toFailWithCode("NOT_A_CODE");
`,
  "typed.cts": `import { reasoningPipeline, ERROR_CODES, type HistoryStore } from "agui-reasoning";
import { createHistoryStage, runStage, type HistoryState } from "agui-reasoning/stages";
import { repairStream, type PipelineSnapshot } from "agui-reasoning/resilience";
import { IndexedDbHistoryStore, KeyValueHistoryStore, type StringStore } from "agui-reasoning/storage";
import { ev, runPipeline } from "agui-reasoning/testing";
import { of } from "rxjs";

export const state: HistoryState = runStage(createHistoryStage(), [ev.runStarted()]).state;
export const repaired = of(ev.runStarted()).pipe(repairStream());
export const snapshot = (s: PipelineSnapshot): number => s.index;

export const codes: readonly string[] = Object.keys(ERROR_CODES);
export const events = reasoningPipeline(of(ev.runStarted(), ev.runFinished())).events$;
export const run = runPipeline([ev.runStarted(), ev.runFinished()]).history.messages;
const strings: StringStore = { get: async (key: string) => key, set: () => undefined };
export const stores: HistoryStore[] = [new KeyValueHistoryStore(strings, { keyPrefix: "p:" }), new IndexedDbHistoryStore({ database: "d" })];
`,
};
