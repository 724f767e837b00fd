/**
 * Tests of the oracle itself: the reference model against the spec authors' conformance fixtures
 * and against the digest's edge cases. (It must be right on its own before it judges the pipeline.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "../conformance/fixture";
import type { Message } from "@ag-ui/core";
import { modelRunInput, runReferenceModel, type ModelResult } from "./reference-model";

const FIXTURES = CORPUS_DIR;

/** Fixtures the model does not judge, with the reason. */
const OUT_OF_MODEL: Record<string, string> = {
  "activity-delta-missing-target-tolerated": "ACTIVITY_DELTA patches are not modelled",
  "activity-snapshot-then-delta": "ACTIVITY_DELTA patches are not modelled",
  "era-0-0-39-flattens-content": "outgoing request shims (reference client era)",
  "era-0-0-47-upgrades-binary-content": "outgoing request shims (reference client era)",
  "era-0-0-57-subagent-dropped-with-warning": "reference client era shim (drops subagent events for an old peer)",
  "era-pinned-peer-omits-protocol-version": "outgoing request only",
  "current-peer-declares-protocol-version": "outgoing request only",
  "era-current-peer-keeps-modern-content": "outgoing request only",
  "open-object-patch-op-extras": "state is not modelled",
  "producer-declares-newer-version-warns": "PROTOCOL_VERSION warnings are not modelled",
  "producer-declares-uninterpretable-version-warns": "PROTOCOL_VERSION warnings are not modelled",
  "unknown-enum-value-role-fatal":
    "nested (list element) enforcement is not modelled; the package strips it (R-PROC-10)",
  "unknown-outcome-array-fatal": "nested (outcome) enforcement is not modelled",
  "unknown-outcome-stripped": "nested (outcome) enforcement is not modelled",
  "unknown-part-in-message-list": "nested (content part) enforcement is not modelled",
};

interface Fixture {
  readonly name: string;
  readonly input?: { readonly messages?: readonly Message[] };
  readonly stream: readonly unknown[];
  readonly expect: {
    readonly outcome?: "completed" | "failed";
    readonly noWarnings?: boolean;
    readonly messageCount?: number;
    readonly messages?: readonly Record<string, unknown>[];
  };
}

/** Subset match, as the corpus README defines it: same array lengths, named object keys only. */
function subsetMatches(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => subsetMatches(actual[i], e))
    );
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object") return false;
    return Object.entries(expected).every(([k, v]) => subsetMatches((actual as Record<string, unknown>)[k], v));
  }
  return Object.is(actual, expected);
}

const sequentialIds = (): (() => string) => {
  let n = 0;
  return () => `think-${++n}`;
};

const run = (events: readonly unknown[], initialMessages: readonly Message[] = []): ModelResult =>
  runReferenceModel(events, { producer: "agent-p", idFactory: sequentialIds(), initialMessages });

const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(FIXTURES, f), "utf8")) as Fixture)
  .filter((f) => OUT_OF_MODEL[f.name] === undefined);

describe("reference model vs the 1.0 conformance fixtures", () => {
  it.each(fixtures.map((f) => [f.name, f] as const))("R-EVT-1: %s", (_name, fixture) => {
    const result = run(fixture.stream, fixture.input?.messages ?? []);
    const e = fixture.expect;
    if (e.outcome !== undefined)
      expect({ outcome: result.outcome, code: result.errorCode }).toEqual(
        expect.objectContaining({ outcome: e.outcome }),
      );
    if (e.noWarnings) expect(result.warningCodes).toEqual([]);
    if (e.messageCount !== undefined) expect(result.history.messages).toHaveLength(e.messageCount);
    if (e.messages !== undefined) expect(subsetMatches(result.history.messages, e.messages)).toBe(true);
  });
});

// Shorthands in the digest's notation.
const RS = (runId = "r1", extra: Record<string, unknown> = {}) => ({
  type: "RUN_STARTED",
  threadId: "t",
  runId,
  ...extra,
});
const RF = (extra: Record<string, unknown> = {}) => ({ type: "RUN_FINISHED", threadId: "t", runId: "r1", ...extra });
const RE = () => ({ type: "RUN_ERROR", message: "boom" });
const RSt = (id: string, extra: Record<string, unknown> = {}) => ({ type: "REASONING_START", messageId: id, ...extra });
const REnd = (id: string, extra: Record<string, unknown> = {}) => ({ type: "REASONING_END", messageId: id, ...extra });
const RMS = (id: string, extra: Record<string, unknown> = {}) => ({
  type: "REASONING_MESSAGE_START",
  messageId: id,
  role: "reasoning",
  ...extra,
});
const RMC = (id: string, delta: string, extra: Record<string, unknown> = {}) => ({
  type: "REASONING_MESSAGE_CONTENT",
  messageId: id,
  delta,
  ...extra,
});
const RME = (id: string, extra: Record<string, unknown> = {}) => ({
  type: "REASONING_MESSAGE_END",
  messageId: id,
  ...extra,
});
const RCH = (id?: string, delta?: string, extra: Record<string, unknown> = {}) => ({
  type: "REASONING_MESSAGE_CHUNK",
  ...(id !== undefined ? { messageId: id } : {}),
  ...(delta !== undefined ? { delta } : {}),
  ...extra,
});
const REV = (subtype: string, entityId: string, encryptedValue: string) => ({
  type: "REASONING_ENCRYPTED_VALUE",
  subtype,
  entityId,
  encryptedValue,
});
const TMS = (id: string, role?: string) => ({ type: "TEXT_MESSAGE_START", messageId: id, ...(role ? { role } : {}) });
const TMC = (id: string, delta: string) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta });
const TME = (id: string) => ({ type: "TEXT_MESSAGE_END", messageId: id });

const failsWith = (events: readonly unknown[], code: string, index?: number): void => {
  const r = run(events);
  expect({ outcome: r.outcome, code: r.errorCode, ...(index !== undefined ? { index: r.errorIndex } : {}) }).toEqual({
    outcome: "failed",
    code,
    ...(index !== undefined ? { index } : {}),
  });
};
const content = (r: ModelResult, id: string): unknown =>
  (r.history.messages.find((m) => m.id === id) as { content?: unknown } | undefined)?.content;

describe("reference model vs the digest's edge cases", () => {
  it("#1 R-REASON-9: content for an unopened message fails and creates nothing", () => {
    failsWith([RS(), RMC("m1", "x")], "ORPHAN_CONTENT", 1);
    expect(run([RS(), RMC("m1", "x")]).history.messages).toEqual([]);
  });
  it("#3 R-REASON-11: a second START of an open message fails", () =>
    failsWith([RS(), RMS("m1"), RMS("m1")], "DUPLICATE_OPEN", 2));
  it("#4 R-TEXT-5: reopen after END appends in place", () => {
    const r = run([RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), RMS("m1"), RMC("m1", "b"), RME("m1"), RF()]);
    expect(r.outcome).toBe("completed");
    expect(r.history.messages).toEqual([{ id: "m1", role: "reasoning", content: "ab" }]);
  });
  it("#5 R-REASON-10: re-opening an open span fails", () =>
    failsWith([RS(), RSt("s1"), RSt("s1")], "DUPLICATE_OPEN", 2));
  it("#8 R-REASON-12: a span and a message may share an id", () => {
    const r = run([RS(), RSt("x"), RMS("x"), RMC("x", "t"), RME("x"), REnd("x"), RF()]);
    expect(r.outcome).toBe("completed");
    expect(r.history.messages).toEqual([{ id: "x", role: "reasoning", content: "t" }]);
  });
  it("#9 R-REASON-14: a fragment naming a span id is an orphan", () =>
    failsWith([RS(), RSt("s1"), RMC("s1", "t")], "ORPHAN_CONTENT", 2));
  it("#10 R-REASON-10: END of a span that a message opened fails", () =>
    failsWith([RS(), RMS("m1"), REnd("m1")], "ORPHAN_END", 2));
  it("#16 R-REASON-13: an open span at RUN_FINISHED fails at RUN_FINISHED", () =>
    failsWith([RS(), RSt("s1"), RF()], "OPEN_AT_RUN_FINISHED", 2));
  it("#18 R-RUN-4: a cancelled run must close everything too", () =>
    failsWith([RS(), RSt("s1"), RF({ outcome: { type: "cancelled" } })], "OPEN_AT_RUN_FINISHED", 2));
  it("#19 D-RUN-ERROR: RUN_ERROR with an open message is no violation and keeps the partial content", () => {
    const r = run([RS(), RMS("m1"), RMC("m1", "par"), RE()]);
    expect(r.outcome).toBe("completed");
    expect(content(r, "m1")).toBe("par");
  });
  it("#21 R-RUN-11: tracking resets at the run boundary", () =>
    failsWith([RS(), RMS("m1"), RE(), RS("r2"), RMC("m1", "x")], "ORPHAN_CONTENT", 4));
  it("#22 D-TRUNC: completion inside a run fails with RUN_TRUNCATED at the event count", () =>
    failsWith([RS(), RSt("s1")], "RUN_TRUNCATED", 2));
  it("#23 R-RUN-8: an event after RUN_FINISHED fails", () =>
    failsWith([RS(), RF(), RSt("s1")], "EVENT_OUTSIDE_RUN", 2));
  it("#25 R-RUN-1: the first event must open a run", () => failsWith([RSt("s1")], "EVENT_OUTSIDE_RUN", 0));
  it("#26 R-RUN-1: RUN_ERROR first, then a run, passes", () =>
    expect(run([RE(), RS(), RF()]).outcome).toBe("completed"));
  it("#27 R-SUB-2: a continuation tagged by another owner fails; an untagged one passes", () => {
    failsWith(
      [RS(), RMS("m1", { subagentRunId: "A" }), RMC("m1", "x", { subagentRunId: "B" })],
      "ATTRIBUTION_MISMATCH",
      2,
    );
    expect(run([RS(), RMS("m1", { subagentRunId: "A" }), RMC("m1", "x"), RME("m1"), RF()]).outcome).toBe("completed");
  });
  it("R-RUN-9: RUN_STARTED inside an open run fails", () => failsWith([RS(), RS("r2")], "NESTED_RUN", 1));
  it("#31 R-SCHEMA-2: a reasoning START with role assistant is malformed", () =>
    failsWith([RS(), RMS("m1", { role: "assistant" })], "MALFORMED_EVENT", 1));
  it("#29 R-PROC-1: an unknown event type is dropped with a warning", () => {
    const r = run([RS(), { type: "REASONING_SUMMARY" }, RF()]);
    expect([r.outcome, r.warningCodes]).toEqual(["completed", ["UNKNOWN_EVENT_TYPE"]]);
  });
  it("#28 R-PROC-2: an undescribed property is stripped with a warning", () => {
    const r = run([RS(), RSt("s1", { title: "x" }), REnd("s1"), RF()]);
    expect([r.outcome, r.warningCodes]).toEqual(["completed", ["STRIPPED_PROPERTY"]]);
  });
  it("#34 R-META-1 R-DEP-6: metadata null fails, rawEvent null is tolerated", () => {
    failsWith([RS(), RSt("s1", { metadata: null })], "MALFORMED_EVENT", 1);
    expect(run([RS(), RSt("s1", { rawEvent: null }), REnd("s1"), RF()]).warningCodes).toEqual(["NULL_TOLERATED"]);
  });
  it("#35 R-STREAM-11: a first chunk without its id fails", () =>
    failsWith([RS(), RCH(undefined, "x")], "FIRST_CHUNK_WITHOUT_ID", 1));
  it("#36 #37 D-SEED-001: chunks assemble; an empty delta does not close", () => {
    const r = run([RS(), RCH("m1", "a"), RCH("m1", ""), RCH(undefined, "b"), RF()]);
    expect([r.outcome, content(r, "m1")]).toEqual(["completed", "ab"]);
  });
  it("#41 R-STREAM-13: a different id ends the previous chunk message", () => {
    const r = run([RS(), RCH("m1", "a"), RCH("m2", "b"), RF()]);
    expect(r.history.messages).toEqual([
      { id: "m1", role: "reasoning", content: "a" },
      { id: "m2", role: "reasoning", content: "b" },
    ]);
  });
  it("#39 D-META-CHUNK: a metadata-only continuation merges into the message", () => {
    const r = run([RS(), RCH("m1", "a"), RCH(undefined, undefined, { metadata: { finish: "stop" } }), RF()]);
    expect(r.history.messages).toEqual([{ id: "m1", role: "reasoning", content: "a", metadata: { finish: "stop" } }]);
  });
  it("#45 R-STREAM-15b: a REASONING_START closes the chunk stream, so an id-less chunk after it fails", () =>
    failsWith([RS(), RCH("m1", "a"), RSt("s2"), RCH(undefined, "b")], "FIRST_CHUNK_WITHOUT_ID", 3));
  it("#47 R-STREAM-9: explicit CONTENT for a chunk-assembled id ends the stream and is then an orphan", () =>
    failsWith([RS(), RCH("m1", "a"), RMC("m1", "b")], "ORPHAN_CONTENT", 2));
  it("#49 R-STREAM-9: a chunk for an explicitly open id is a double open", () =>
    failsWith([RS(), RMS("m1"), RCH("m1", "x")], "DUPLICATE_OPEN", 2));
  it("#51 #52 R-STREAM-15: RAW and REASONING_ENCRYPTED_VALUE stand aside", () => {
    const r = run([
      RS(),
      RCH("m1", "a"),
      REV("message", "m1", "v"),
      { type: "RAW", event: {} },
      RCH(undefined, "b"),
      RF(),
    ]);
    expect(r.history.messages).toEqual([{ id: "m1", role: "reasoning", content: "ab", encryptedValue: "v" }]);
  });
  it("#53 R-PASS-1: CUSTOM closes the chunk stream", () =>
    failsWith(
      [RS(), RCH("m1", "a"), { type: "CUSTOM", name: "c", value: 1 }, RCH(undefined, "b")],
      "FIRST_CHUNK_WITHOUT_ID",
      3,
    ));
  it("#62 R-STREAM-17: the subagent's terminal closes its lane", () => {
    const r = run([
      RS(),
      { type: "SUBAGENT_STARTED", subagentRunId: "A", name: "h" },
      RCH("m1", "a", { subagentRunId: "A" }),
      { type: "SUBAGENT_FINISHED", subagentRunId: "A" },
      RCH(undefined, "b", { subagentRunId: "A" }),
    ]);
    expect([r.errorCode, r.errorIndex]).toEqual(["FIRST_CHUNK_WITHOUT_ID", 4]);
  });
  it("#63 R-STREAM-16: an untagged id-less continuation with two subagent candidates is ambiguous", () =>
    failsWith(
      [RS(), RCH("a", "x", { subagentRunId: "A" }), RCH("b", "y", { subagentRunId: "B" }), RCH(undefined, "z")],
      "AMBIGUOUS_CONTINUATION",
      3,
    ));
  it("#67 #68 #77 D-UNKNOWN-ENTITY D-FORWARD: unknown, activity and not-yet-known targets warn and store nothing", () => {
    const r = run([
      RS(),
      REV("message", "m1", "v"),
      { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "p", content: {} },
      REV("message", "a1", "v"),
      RMS("m1"),
      RME("m1"),
      RF(),
    ]);
    expect([r.outcome, r.warningCodes]).toEqual(["completed", ["UNKNOWN_ENTITY", "UNKNOWN_ENTITY"]]);
    expect(r.history.messages.find((m) => m.id === "m1")).toEqual({ id: "m1", role: "reasoning", content: "" });
  });
  it("#71 R-REASON-24: an unknown string subtype removes the event with a warning", () => {
    const r = run([RS(), RMS("m1"), RME("m1"), REV("artifact", "m1", "v"), RF()]);
    expect(r.warningCodes).toEqual(["UNKNOWN_SUBTYPE"]);
    expect(r.history.messages).toEqual([{ id: "m1", role: "reasoning", content: "" }]);
  });
  it("#66 #80 D-REPEAT: a tool-call value is stored on the call, last write wins", () => {
    const r = run([
      RS(),
      { type: "TOOL_CALL_START", toolCallId: "tc1", toolCallName: "f", parentMessageId: "a1" },
      { type: "TOOL_CALL_END", toolCallId: "tc1" },
      REV("tool-call", "tc1", "v1"),
      REV("tool-call", "tc1", "v2"),
      RF(),
    ]);
    expect(r.history.messages).toEqual([
      {
        id: "a1",
        role: "assistant",
        toolCalls: [{ id: "tc1", type: "function", function: { name: "f", arguments: "" }, encryptedValue: "v2" }],
      },
    ]);
  });
  it("#94 R-STATE-4/5: snapshot reconciliation keeps reasoning, replaces in place, appends newcomers", () => {
    const held: Message[] = [
      { id: "u1", role: "user", content: "q" },
      { id: "r1", role: "reasoning", content: "think" },
      { id: "a1", role: "assistant", content: "old" },
    ];
    const r = run(
      [
        RS(),
        {
          type: "MESSAGES_SNAPSHOT",
          messages: [
            { id: "a1", role: "assistant", content: "new" },
            { id: "n1", role: "user", content: "n" },
          ],
        },
        RF(),
      ],
      held,
    );
    expect(r.history.messages.map((m) => m.id)).toEqual(["r1", "a1", "n1"]);
    expect(content(r, "a1")).toBe("new");
  });
  it("#87 #92 R-REASON-20 R-STATE-6: a snapshot withdraws values; a reasoning message in it revokes the exception", () => {
    const r = run([
      RS(),
      RMS("r1"),
      RME("r1"),
      REV("message", "r1", "v"),
      TMS("a1"),
      TME("a1"),
      REV("message", "a1", "w"),
      {
        type: "MESSAGES_SNAPSHOT",
        messages: [
          { id: "a1", role: "assistant", content: "" },
          { id: "r2", role: "reasoning", content: "" },
        ],
      },
      RF(),
    ]);
    expect(r.history.messages).toEqual([
      { id: "a1", role: "assistant", content: "" },
      { id: "r2", role: "reasoning", content: "" },
    ]);
    expect(r.history.issuers.size).toBe(0);
  });
  it("D-SNAPSHOT-OPEN: content for an open message a snapshot removed is not applied and warns", () => {
    const r = run([RS(), TMS("a1"), { type: "MESSAGES_SNAPSHOT", messages: [] }, TMC("a1", "x"), TME("a1"), RF()]);
    expect([r.outcome, r.warningCodes, r.history.messages]).toEqual(["completed", ["TARGET_REMOVED"], []]);
  });
  it("D-ROLE-CONFLICT: a reasoning START naming a text message fails", () =>
    failsWith([RS(), TMS("a1"), TME("a1"), RMS("a1")], "ID_ROLE_CONFLICT", 3));
  it("#101 D-THINK-IDS: legacy THINKING_* become a reasoning message with a minted id", () => {
    const r = run([
      RS(),
      { type: "THINKING_START", title: "T" },
      { type: "THINKING_TEXT_MESSAGE_START" },
      { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "hm" },
      { type: "THINKING_TEXT_MESSAGE_END" },
      { type: "THINKING_END" },
      RF(),
    ]);
    expect(r.outcome).toBe("completed");
    expect(r.history.messages).toEqual([{ id: "think-2", role: "reasoning", content: "hm" }]);
    expect(r.warningCodes.filter((c) => c === "THINKING_UPCAST")).toHaveLength(5);
    expect(r.warningCodes).toContain("THINKING_TITLE_MOVED");
  });
  it("#102 D-THINK-ORPHAN: legacy content without a start fails with LEGACY_ORPHAN", () =>
    failsWith([RS(), { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "x" }], "LEGACY_ORPHAN", 1));
  it("D-ISSUER R-INPUT-4: run input keeps values only for their issuer and drops activity messages", () => {
    const r = run([
      RS(),
      RMS("m1"),
      RME("m1"),
      REV("message", "m1", "v"),
      { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "p", content: {} },
      RF(),
    ]);
    expect(modelRunInput(r.history, "agent-p")).toEqual({
      messages: [{ id: "m1", role: "reasoning", content: "", encryptedValue: "v" }],
      withheld: [],
    });
    expect(modelRunInput(r.history, "agent-q")).toEqual({
      messages: [{ id: "m1", role: "reasoning", content: "" }],
      withheld: ["m1"],
    });
  });
});
