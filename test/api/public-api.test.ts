/**
 * The public surface, pinned: the runtime exports of each entry point — `agui-reasoning` (src/index.ts),
 * `agui-reasoning/stages` (src/stages.ts), `agui-reasoning/resilience` (src/resilience.ts) and
 * `agui-reasoning/testing` (src/testing/index.ts). A change to a list is a change to the package's API:
 * make it here on purpose, with the docs (docs/api.md) and the API report (etc/*.api.md, `npm run api`),
 * which pins the types too and is checked in CI (`npm run api:check`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@ag-ui/core";
import * as main from "../../src";
import * as storage from "../../src/storage";
import * as resilience from "../../src/resilience";
import * as stages from "../../src/stages";
import * as testing from "../../src/testing";
import { ev, historyOf, msg, runPipeline } from "../../src/testing";

/** What an app needs (docs/api.md): the facade, the operators, the middleware, run input, the history, errors and warnings; storage (issue 25). */
const MAIN_EXPORTS = [
  "ERROR_CODES",
  "HISTORY_FORMAT",
  "HISTORY_FORMAT_VERSION",
  "InMemoryHistoryStore",
  "ReasoningProtocolError",
  "TransportError",
  "WARNING_CODES",
  "agentEvents",
  "bridgeAgent",
  "deriveHistory",
  "emptyHistory",
  "enforceSchema",
  "expandChunks",
  "formatWarning",
  "historyToJSON",
  "isReasoningProtocolError",
  "messagesOf",
  "parseHistory",
  "reasoningMiddleware",
  "reasoningPipeline",
  "reasoningView",
  "saveHistory",
  "serializeHistory",
  "toRunInputMessages",
  "upcastThinking",
  "verifyDiscipline",
];

/** The step contract (docs/stages.md): every stage's constructor, the adapter to an operator, the array runner. */
const STAGES_EXPORTS = [
  "createDowncastStage",
  "createEnforceStage",
  "createExpandStage",
  "createHistoryStage",
  "createRepairStage",
  "createUpcastStage",
  "createVerifyStage",
  "runStage",
  "stageOperator",
];

/** Resume's snapshot tag, repair and downgrade (docs/resilience.md). */
const RESILIENCE_EXPORTS = [
  "DowncastError",
  "REPAIRED_TRUNCATION",
  "SNAPSHOT_FORMAT",
  "SNAPSHOT_VERSION",
  "downcastToThinking",
  "repairStream",
  "resumable",
];

const TESTING_EXPORTS = [
  "MockAgent",
  "RECORDINGS",
  "TEST_PRODUCER",
  "alphabet",
  "collectWarnings",
  "createTestScheduler",
  "ev",
  "expectPipeline",
  "extendAlphabet",
  "historyOf",
  "installReasoningMatchers",
  "loadRecording",
  "mockAgent",
  "mockAgentServer",
  "msg",
  "parseDiagram",
  "parseRecording",
  "protocolErrorWith",
  "reasoningMatchers",
  "recordingsDirectory",
  "returnedValues",
  "runPipeline",
  "sequentialIds",
  "warningWith",
];

/** `agui-reasoning/storage`: the adapters, an entry of their own so a chat UI not using them bundles none. */
const STORAGE_EXPORTS = ["IndexedDbHistoryStore", "KeyValueHistoryStore"];

describe("public API: the export lists are deliberate", () => {
  it("agui-reasoning exports exactly the pinned names", () => {
    expect(Object.keys(main).sort()).toEqual(MAIN_EXPORTS);
  });

  it("agui-reasoning/stages exports exactly the pinned names", () => {
    expect(Object.keys(stages).sort()).toEqual(STAGES_EXPORTS);
  });

  it("agui-reasoning/resilience exports exactly the pinned names", () => {
    expect(Object.keys(resilience).sort()).toEqual(RESILIENCE_EXPORTS);
  });

  it("no runtime name is exported by two entries (one home per name)", () => {
    const names = [...MAIN_EXPORTS, ...STAGES_EXPORTS, ...RESILIENCE_EXPORTS, ...TESTING_EXPORTS];
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it("agui-reasoning/testing exports exactly the pinned names", () => {
    expect(Object.keys(testing).sort()).toEqual(TESTING_EXPORTS);
  });

  it("agui-reasoning/storage exports exactly the pinned names, and package.json maps the subpath", () => {
    expect(Object.keys(storage).sort()).toEqual(STORAGE_EXPORTS);
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    expect(pkg.exports["./storage"]).toEqual({
      import: { types: "./dist/storage.d.mts", default: "./dist/storage.mjs" },
      require: { types: "./dist/storage.d.cts", default: "./dist/storage.cjs" },
    });
  });

  it("the per-stage state codecs and resumedStage are internal (resume is the facade's exportState and resumeFrom, with resumable)", () => {
    const internal = [
      "upcastStateToJSON",
      "upcastStateFromJSON",
      "expandStateToJSON",
      "expandStateFromJSON",
      "verifyStateToJSON",
      "verifyStateFromJSON",
      "historyStateToJSON",
      "historyStateFromJSON",
      "resumedStage",
    ];
    expect(internal.filter((name) => name in main || name in stages || name in resilience)).toEqual([]);
  });

  it("every runtime export of every entry is named in the docs", () => {
    const docs = [
      "README.md",
      "docs/operators.md",
      "docs/errors.md",
      "docs/integration.md",
      "docs/resilience.md",
      "docs/security.md",
      "docs/architecture.md",
      "docs/testing.md",
      "docs/cli.md",
      "docs/migration-from-thinking.md",
      "docs/api.md",
      "docs/stages.md",
      "docs/ui-libraries.md",
    ]
      .map((f) => readFileSync(join(__dirname, "../..", f), "utf8"))
      .join("\n");
    expect(
      [...MAIN_EXPORTS, ...STAGES_EXPORTS, ...RESILIENCE_EXPORTS, ...STORAGE_EXPORTS].filter(
        (name) => !new RegExp(`\\b${name}\\b`).test(docs),
      ),
    ).toEqual([]);
  });
});

describe("emptyHistory: what the first turn starts from", () => {
  it("is a history with nothing in it, a new object each call, that a pipeline starts from and adds to", () => {
    const empty = main.emptyHistory();
    expect(empty).toEqual({ messages: [], incomplete: [], issuers: [], durations: [] });
    expect(main.emptyHistory()).not.toBe(empty);
    expect(main.emptyHistory().messages).not.toBe(empty.messages);
    const run = runPipeline([ev.runStarted(), ev.textChunk("a1", "Hi"), ev.runFinished()], { initialHistory: empty });
    expect(run.histories[0]).toEqual(empty);
    expect(run.history.messages).toEqual([msg.assistant("a1", "Hi")]);
    expect(empty.messages).toEqual([]);
  });
});

describe("messagesOf: the history's messages for APIs typed Message[] (agent.setMessages)", () => {
  const history = runPipeline([
    ev.runStarted(),
    ev.reasoningChunk("m1", "Let me"),
    ev.encryptedValue("message", "m1", "blob"),
    ev.textChunk("a1", "Hi"),
    ev.runFinished(),
  ]).history;

  it("returns a mutable Message[] equal to the history's messages, encrypted values included", () => {
    const messages: Message[] = main.messagesOf(history);
    expect(messages).toEqual([msg.reasoning("m1", "Let me", { encryptedValue: "blob" }), msg.assistant("a1", "Hi")]);
    expect(messages).not.toBe(history.messages);
  });

  it("shares nothing with the history: changing the copies never changes a published history", () => {
    const messages = main.messagesOf(history);
    const before = structuredClone(history.messages);
    messages.push(msg.user("u9", "later"));
    (messages[0] as { content: string }).content = "changed";
    expect(history.messages).toEqual(before);
    expect(main.messagesOf(historyOf())).toEqual([]);
  });
});
