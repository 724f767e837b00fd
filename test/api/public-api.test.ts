/**
 * The public surface, pinned: the runtime exports of `agui-reasoning` (src/index.ts) and
 * `agui-reasoning/testing` (src/testing/index.ts). A change to either list is a change to the
 * package's API: make it here on purpose, with the docs (README, docs/operators.md, docs/testing.md).
 * Types are erased at runtime; the typecheck of the docs' code (test/docs) covers the ones they use.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@ag-ui/core";
import * as main from "../../src";
import * as testing from "../../src/testing";
import { ev, historyOf, msg, runPipeline } from "../../src/testing";

const MAIN_EXPORTS = [
  "DowncastError",
  "ERROR_CODES",
  "HISTORY_FORMAT",
  "HISTORY_FORMAT_VERSION",
  "InMemoryHistoryStore",
  "REPAIRED_TRUNCATION",
  "ReasoningProtocolError",
  "SNAPSHOT_FORMAT",
  "SNAPSHOT_VERSION",
  "TransportError",
  "WARNING_CODES",
  "agentEvents",
  "bridgeAgent",
  "createDowncastStage",
  "createEnforceStage",
  "createExpandStage",
  "createHistoryStage",
  "createRepairStage",
  "createUpcastStage",
  "createVerifyStage",
  "deriveHistory",
  "downcastToThinking",
  "enforceSchema",
  "expandChunks",
  "formatWarning",
  "historyToJSON",
  "isReasoningProtocolError",
  "messagesOf",
  "parseHistory",
  "reasoningMiddleware",
  "reasoningPipeline",
  "repairStream",
  "runStage",
  "saveHistory",
  "serializeHistory",
  "stageOperator",
  "toRunInputMessages",
  "upcastThinking",
  "verifyDiscipline",
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
  "msg",
  "parseDiagram",
  "parseRecording",
  "protocolErrorWith",
  "reasoningMatchers",
  "recordingsDirectory",
  "runPipeline",
  "sequentialIds",
  "warningWith",
];

describe("public API: the export lists are deliberate", () => {
  it("agui-reasoning exports exactly the pinned names", () => {
    expect(Object.keys(main).sort()).toEqual(MAIN_EXPORTS);
  });

  it("agui-reasoning/testing exports exactly the pinned names", () => {
    expect(Object.keys(testing).sort()).toEqual(TESTING_EXPORTS);
  });

  it("the per-stage state codecs and resumedStage are internal (resume is the facade's exportState/resumeFrom)", () => {
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
    expect(internal.filter((name) => name in main)).toEqual([]);
  });

  it("every runtime export of agui-reasoning is named in the docs", () => {
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
      "docs/ui-libraries.md",
    ]
      .map((f) => readFileSync(join(__dirname, "../..", f), "utf8"))
      .join("\n");
    expect(MAIN_EXPORTS.filter((name) => !new RegExp(`\\b${name}\\b`).test(docs))).toEqual([]);
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
