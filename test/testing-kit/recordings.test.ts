import { readdirSync } from "node:fs";
import { toRunInputMessages } from "../../src";
import {
  historyOf as timedHistoryOf,
  loadRecording,
  msg,
  parseRecording,
  protocolErrorWith,
  RECORDINGS,
  recordingsDirectory,
  runPipeline,
  TEST_PRODUCER,
} from "../../src/testing";

import { anyDurations } from "../support/clock";

// Expected histories here take any durations (the D-DURATION tests pin them).
const historyOf = (...args: Parameters<typeof timedHistoryOf>) => anyDurations(timedHistoryOf(...args));

const codes = (name: keyof typeof RECORDINGS) => runPipeline(loadRecording(name)).warnings.map((w) => w.code);

describe("testing kit: recorded example streams", () => {
  it("RECORDINGS names exactly the .jsonl files of examples/recorded", () => {
    const files = readdirSync(recordingsDirectory())
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => f.replace(/\.jsonl$/, ""));
    expect(files.sort()).toEqual(Object.keys(RECORDINGS).sort());
  });

  it("R-REASON-17: anthropic-style-thinking stores the signature on the reasoning message and the redacted block on the answer", () => {
    const run = runPipeline(loadRecording("anthropic-style-thinking"));
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    const sent = toRunInputMessages(run.history, { producer: TEST_PRODUCER });
    expect(sent.map((m) => [m.id, m.role, (m as { encryptedValue?: string }).encryptedValue])).toEqual([
      ["thinking-1", "reasoning", "EqQBCkgIBxABGAIiQJ7r0Q2mSignatureOfTheThinkingBlock=="],
      ["msg-a1", "assistant", undefined],
      ["tool-result-1", "tool", undefined],
      ["msg-a2", "assistant", "redacted_thinking:Ep8CCkYIBxABGAIqQOpaqueRedactedBlock"],
    ]);
  });

  it("R-REASON-2: openai-style-reasoning-summary keeps two reasoning messages of one span, value on the first", () => {
    const run = runPipeline(loadRecording("openai-style-reasoning-summary"));
    expect([run.error, run.warnings]).toEqual([undefined, []]);
    expect(run.history.messages.map((m) => [m.id, m.role])).toEqual([
      ["rs_68a1-summary-0", "reasoning"],
      ["rs_68a1-summary-1", "reasoning"],
      ["msg_68a2", "assistant"],
    ]);
    expect(run.history.issuers).toEqual([{ subtype: "message", entityId: "rs_68a1-summary-0", issuer: TEST_PRODUCER }]);
  });

  it("R-REASON-15: gemini-style-thought-signatures stores the signature on the tool call (#66, #78)", () => {
    const run = runPipeline(loadRecording("gemini-style-thought-signatures"));
    expect([run.error, run.warnings]).toEqual([undefined, []]);
    expect(run.history.messages[1]).toEqual(
      msg.assistant("model-1", undefined, {
        toolCalls: [
          msg.toolCall("fc-1", "list_events", '{"day":"friday"}', {
            encryptedValue: "CtYBAdHtim9ThoughtSignatureOfTheFunctionCall",
          }),
        ],
      }),
    );
  });

  it("R-DEP-2: legacy-thinking-0.0.45 is upcast into a reasoning message, with a warning per translated event", () => {
    const run = runPipeline(loadRecording("legacy-thinking-0.0.45"));
    expect(run.error).toBeUndefined();
    expect(run.history.messages).toEqual([
      msg.reasoning("think-2", "Let me check the order status. It shipped yesterday."),
      msg.assistant("answer-1", "Your order shipped yesterday."),
    ]);
    expect(codes("legacy-thinking-0.0.45").sort()).toEqual(
      [...Array(6).fill("THINKING_UPCAST"), "THINKING_TITLE_MOVED"].sort(),
    );
  });

  it("R-SUB-3: parallel-subagents assembles each lane's reasoning separately", () => {
    const run = runPipeline(loadRecording("parallel-subagents"));
    expect([run.error, run.warnings]).toEqual([undefined, []]);
    expect(run.history.messages.slice(0, 2)).toEqual([
      msg.reasoning("research-thinking", "Searching sources… found three.", { subagentRunId: "sub-research" }),
      msg.reasoning("writer-thinking", "Outlining… intro, body, close.", { subagentRunId: "sub-writer" }),
    ]);
  });

  it("R-STATE-5: two-runs-with-snapshot keeps the first run's reasoning message and its value across the snapshot", () => {
    const run = runPipeline(loadRecording("two-runs-with-snapshot"));
    expect([run.error, run.warnings]).toEqual([undefined, []]);
    expect(run.history.messages.map((m) => m.id)).toEqual([
      "reasoning-1",
      "answer-1",
      "user-1",
      "user-2",
      "reasoning-2",
      "answer-2",
    ]);
    expect(run.history.messages[0]).toEqual(
      msg.reasoning("reasoning-1", "A greeting; answer briefly.", { encryptedValue: "opaque-value-turn-1" }),
    );
  });

  it("R-REASON-9: broken-orphan-content fails with ORPHAN_CONTENT at event #5", () => {
    const run = runPipeline(loadRecording("broken-orphan-content"));
    expect(run.error).toEqual(protocolErrorWith("ORPHAN_CONTENT", { eventIndex: 5, ids: ["thinking-1"] }));
    expect(run.history.messages).toEqual([msg.reasoning("thinking-1", "First thought.")]);
  });

  it("D-TRUNC: truncated-mid-reasoning fails with RUN_TRUNCATED and history keeps the partial message", () => {
    const run = runPipeline(loadRecording("truncated-mid-reasoning"));
    expect(run.error).toEqual(protocolErrorWith("RUN_TRUNCATED", { ids: ["span-1", "thinking-1"] }));
    expect(run.history).toEqual(
      historyOf([msg.reasoning("thinking-1", "Working through the steps: first, the")], {
        incomplete: [{ kind: "message", id: "thinking-1", reason: "truncated" }],
      }),
    );
  });

  it("loadRecording returns a fresh copy and rejects unknown names", () => {
    const a = loadRecording("truncated-mid-reasoning");
    (a[0] as { runId: string }).runId = "changed";
    expect((loadRecording("truncated-mid-reasoning")[0] as { runId: string }).runId).toBe("run-1");
    expect(() => loadRecording("nope" as never)).toThrow('no recording named "nope"');
  });

  it("parseRecording reads JSON Lines and JSON arrays; a bad line is named by number, never by content", () => {
    expect(parseRecording('{"type":"A"}\n\n{"type":"B"}\n')).toEqual([{ type: "A" }, { type: "B" }]);
    expect(parseRecording('\uFEFF [{"type":"A"}]')).toEqual([{ type: "A" }]);
    expect(() => parseRecording('{"type":"A"}\n{"delta":"secret text"')).toThrow(
      /^agui-reasoning\/testing: recording line 2 is not JSON$/,
    );
    // A file read without an encoding is a Buffer: named, not "text.replace is not a function".
    expect(() => parseRecording(Buffer.from('{"type":"A"}') as never)).toThrow(
      new TypeError(
        'agui-reasoning/testing: parseRecording takes the recording\'s text, got bytes (read it as "utf8")',
      ),
    );
    // JSON.parse's own message would quote the text near the fault.
    expect(() => parseRecording('[{"delta":"secret text"}, oops]')).toThrow(
      /^agui-reasoning\/testing: recording is not a JSON array$/,
    );
  });
});
