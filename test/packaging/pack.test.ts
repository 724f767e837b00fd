import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/**
 * The published package, as a user gets it: build, `npm pack`, install the tarball into an empty
 * project with an empty npm cache and no network, then `require` and `import` every entry point and
 * run a three-event stream through each, compile a TypeScript consumer against the shipped
 * declarations, and run the `agui-reasoning` command.
 *
 * The package has no dependencies, only peers; those are linked from this repository's
 * node_modules (what `npm ci` installed), so nothing is fetched.
 */

const repo = resolve(__dirname, "../..");
const bin = (name: string) => join(repo, "node_modules", ".bin", name);
// Linked into the consumer project: the peers, and jest's types for the matcher declarations.
const LINKED = ["rxjs", "@ag-ui/core", "zod", "@types/jest"];

let work: string;
let consumer: string;

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agui-reasoning-pack-"));
  run(bin("tsdown"), ["--log-level", "warn"], repo);
  run("npm", ["pack", "--pack-destination", work, "--ignore-scripts", "--silent"], repo);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack produced no tarball");

  consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, version: "0.0.0" }));
  run(
    "npm",
    [
      "install",
      join(work, tarball),
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
}, 120_000);

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
};

describe("packaging: the packed tarball installed into a clean project", () => {
  it("ships only dist, schema (the check's --json JSON Schema), README.md, LICENSE and package.json", () => {
    const files = run(
      "tar",
      [
        "-tzf",
        join(
          work,
          readdirSync(work).find((f) => f.endsWith(".tgz"))!,
        ),
      ],
      work,
    )
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
});

// The consumer project's files. The runtime consumers print what EXPECTED describes.
const RUNTIME = (load: string) => `${load}
const events = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
  { type: "REASONING_MESSAGE_CHUNK", messageId: "m1", delta: "Let me" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1" },
];

// The main entry: the facade over the three events.
const pipeline = main.reasoningPipeline(rxjs.from(events), { producer: "https://agent.example/run", onWarning() {} });
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

console.log(JSON.stringify({
  main: { events: seen, messages: pipeline.history.messages },
  subpaths: {
    stages: { code: orphan.code, sameClass: orphan instanceof main.ReasoningProtocolError },
    resilience: { repaired, snapshot: resilience.SNAPSHOT_FORMAT },
  },
  testing: {
    events: run.events.map((e) => e.type),
    messages: run.history.messages,
    inputs: agent.inputs.map((i) => i.runId),
    recorded: testing.loadRecording("anthropic-style-thinking").length,
    failure: { code: failed.code, sameClass: failed instanceof main.ReasoningProtocolError },
  },
}));
`;

const CONSUMER_FILES: Record<string, string> = {
  "consumer.cjs": RUNTIME(`const main = require("agui-reasoning");
const stages = require("agui-reasoning/stages");
const resilience = require("agui-reasoning/resilience");
const testing = require("agui-reasoning/testing");
const rxjs = require("rxjs");`),
  "consumer.mjs": RUNTIME(`import * as main from "agui-reasoning";
import * as stages from "agui-reasoning/stages";
import * as resilience from "agui-reasoning/resilience";
import * as testing from "agui-reasoning/testing";
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

installReasoningMatchers();
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
  "typed.cts": `import { reasoningPipeline, ERROR_CODES } from "agui-reasoning";
import { createHistoryStage, runStage, type HistoryState } from "agui-reasoning/stages";
import { repairStream, type PipelineSnapshot } from "agui-reasoning/resilience";
import { ev, runPipeline } from "agui-reasoning/testing";
import { of } from "rxjs";

export const state: HistoryState = runStage(createHistoryStage(), [ev.runStarted()]).state;
export const repaired = of(ev.runStarted()).pipe(repairStream());
export const snapshot = (s: PipelineSnapshot): number => s.index;

export const codes: readonly string[] = Object.keys(ERROR_CODES);
export const events = reasoningPipeline(of(ev.runStarted(), ev.runFinished())).events$;
export const run = runPipeline([ev.runStarted(), ev.runFinished()]).history.messages;
`,
};
