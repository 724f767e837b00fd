import { enforceSchema } from "../src/pipeline/operators";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CORPUS_DIR } from "../test/conformance/fixture";
import { EventSchema } from "@ag-ui/core/schemas";
import { createEnforceStage } from "../src/schema/enforce-schema";
import { runStage } from "../src/core/stage-operator";
import { isReasoningProtocolError } from "../src/core/errors";
import type { ReasoningWarning } from "../src/core/types";
import { ev } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

/**
 * Stage 2, enforceSchema: the verdict matrix of the processing model (digest §6, §6.1, §8, R-DEP-6,
 * R-VER-16/17). Every test asserts the exact events delivered and the exact warnings (code + path).
 */

type Values = Record<string, unknown>;

/** Runs a marble diagram through `enforceSchema` and returns the warnings it delivered. */
function marbles(
  source: string,
  values: Values,
  expected: string,
  expectedValues: Values,
  error?: unknown,
): ReasoningWarning[] {
  const sink = collectWarnings();
  createTestScheduler().run(({ cold, expectObservable }) => {
    expectObservable(cold(source, values).pipe(enforceSchema({ onWarning: sink.onWarning }))).toBe(
      expected,
      expectedValues,
      error,
    );
  });
  return sink.warnings;
}

/** `[code, path]` of each warning, in order. */
const codesAndPaths = (warnings: readonly ReasoningWarning[]) => warnings.map((w) => [w.code, w.path]);

/** The expected error notification of a FAIL (class instances are compared by their fields). */
const malformed = (eventIndex: number, rule: string, messagePart?: string) =>
  expect.objectContaining({
    name: "ReasoningProtocolError",
    code: "MALFORMED_EVENT",
    rule,
    eventIndex,
    ...(messagePart === undefined ? {} : { message: expect.stringContaining(messagePart) }),
  });

/** Runs the pure step over events (no RxJS) and returns the thrown error (or fails the test). */
function failure(events: readonly unknown[]) {
  const run = runStage(createEnforceStage(), events);
  if (!isReasoningProtocolError(run.error))
    throw new Error(`expected a ReasoningProtocolError, got ${String(run.error)}`);
  return { error: run.error, out: run.out, warnings: run.warnings };
}

/** A conformance fixture's stream (the corpus is read-only). */
function fixtureStream(name: string): unknown[] {
  return (JSON.parse(readFileSync(resolve(CORPUS_DIR, `${name}.json`), "utf8")) as { stream: unknown[] }).stream;
}

const rs = ev.runStarted();
const rf = ev.runFinished();

describe("enforceSchema — unknown event types", () => {
  it("R-PROC-1: an event of an unrecognised type is dropped and the run goes on", () => {
    const future = { type: "REASONING_SUMMARY", messageId: "s1", summary: "…" };
    const warnings = marbles("a b c |", { a: rs, b: future, c: rf }, "a - c |", { a: rs, c: rf });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_EVENT_TYPE", undefined]]);
  });

  it("R-PROC-6: the drop warning names the dropped type, its index and rule", () => {
    const warnings = marbles("a b |", { a: rs, b: { type: "FUTURE_EVENT", somethingNew: true } }, "a - |", { a: rs });
    expect(warnings).toEqual([
      expect.objectContaining({
        code: "UNKNOWN_EVENT_TYPE",
        rule: "R-PROC-1",
        eventType: "FUTURE_EVENT",
        eventIndex: 1,
      }),
    ]);
    expect(warnings[0]?.message).toContain('"FUTURE_EVENT"');
  });

  it("#29 R-PROC-1: REASONING_SUMMARY between two chunks is dropped; both chunks are forwarded", () => {
    const c1 = ev.reasoningChunk("m1", "a");
    const c2 = ev.reasoningChunk(undefined, "b");
    const warnings = marbles("a b c |", { a: c1, b: { type: "REASONING_SUMMARY" }, c: c2 }, "a - c |", {
      a: c1,
      c: c2,
    });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_EVENT_TYPE", undefined]]);
  });

  it("R-PROC-1: a THINKING_* event that reaches enforcement (not upcast) is an unknown type: dropped with a warning", () => {
    const warnings = marbles("a b |", { a: rs, b: ev.thinkingStart() }, "a - |", { a: rs });
    expect(warnings).toEqual([expect.objectContaining({ code: "UNKNOWN_EVENT_TYPE", eventType: "THINKING_START" })]);
    expect(warnings[0]?.message).toContain("upcastThinking");
  });
});

describe("enforceSchema — undescribed properties (STRIP+WARN)", () => {
  it("R-PROC-2: an undescribed property on a known event is stripped with a warning naming its path", () => {
    const content = ev.textContent("m1", "content survives", { futureProp: 1 });
    const warnings = marbles("a |", { a: content }, "a |", { a: ev.textContent("m1", "content survives") });
    expect(warnings).toEqual([
      expect.objectContaining({ code: "STRIPPED_PROPERTY", rule: "R-PROC-2", path: "/futureProp", eventIndex: 0 }),
    ]);
  });

  it("#28 R-PROC-2: REASONING_START with a title loses /title and proceeds", () => {
    const warnings = marbles("a |", { a: ev.reasoningStart("s1", { title: "Working" }) }, "a |", {
      a: ev.reasoningStart("s1"),
    });
    expect(codesAndPaths(warnings)).toEqual([["STRIPPED_PROPERTY", "/title"]]);
  });

  it("#82 R-PROC-2: REASONING_ENCRYPTED_VALUE with the 1.1 encryptedValueType loses it; the value itself is kept", () => {
    const rev = ev.encryptedValue("message", "m1", "opaque", { encryptedValueType: "anthropic.redacted_thinking" });
    const warnings = marbles("a |", { a: rev }, "a |", { a: ev.encryptedValue("message", "m1", "opaque") });
    expect(codesAndPaths(warnings)).toEqual([["STRIPPED_PROPERTY", "/encryptedValueType"]]);
  });

  it("#60 R-SCHEMA-5: role on a REASONING_MESSAGE_CHUNK is undescribed: stripped, the chunk proceeds", () => {
    const chunk = ev.reasoningChunk("m1", "a", { role: "reasoning" });
    const warnings = marbles("a |", { a: chunk }, "a |", { a: ev.reasoningChunk("m1", "a") });
    expect(codesAndPaths(warnings)).toEqual([["STRIPPED_PROPERTY", "/role"]]);
  });

  it("R-EVT-6: subagentRunId on MESSAGES_SNAPSHOT (run-scoped, not Attributable) is stripped", () => {
    const snapshot = ev.messagesSnapshot([], { subagentRunId: "sub-1" });
    const warnings = marbles("a |", { a: snapshot }, "a |", { a: ev.messagesSnapshot([]) });
    expect(codesAndPaths(warnings)).toEqual([["STRIPPED_PROPERTY", "/subagentRunId"]]);
  });

  it("#96 R-PROC-2: an activity message in a snapshot carrying encryptedValue loses it (closed message object)", () => {
    const activity = { id: "a1", role: "activity", activityType: "progress", content: { pct: 50 } };
    const snapshot = ev.messagesSnapshot([{ ...activity, encryptedValue: "opaque" }] as never);
    const warnings = marbles("a |", { a: snapshot }, "a |", { a: ev.messagesSnapshot([activity] as never) });
    expect(codesAndPaths(warnings)).toEqual([["STRIPPED_PROPERTY", "/messages/0/encryptedValue"]]);
  });

  it("R-PROC-7: what is stripped never reaches downstream, and the source event is not mutated", () => {
    const input = ev.reasoningStart("s1", { title: "Working", subtitle: "x" });
    const run = runStage(createEnforceStage(), [input]);
    expect(run.out).toEqual([{ type: "REASONING_START", messageId: "s1" }]);
    expect(Object.keys(run.out[0] ?? {})).toEqual(["type", "messageId"]);
    expect(input).toEqual({ type: "REASONING_START", messageId: "s1", title: "Working", subtitle: "x" });
    expect(codesAndPaths(run.warnings)).toEqual([
      ["STRIPPED_PROPERTY", "/title"],
      ["STRIPPED_PROPERTY", "/subtitle"],
    ]);
  });

  it("R-PROC-7: properties stripped deep inside MESSAGES_SNAPSHOT are gone; untouched messages keep their identity", () => {
    const kept = { id: "u1", role: "user", content: "hi" };
    const toolCall = { id: "tc1", type: "function", function: { name: "f", arguments: "{}" }, encryptedValueType: "x" };
    const assistant = { id: "a1", role: "assistant", toolCalls: [toolCall] };
    const run = runStage(createEnforceStage(), [ev.messagesSnapshot([kept, assistant] as never)]);
    const messages = (run.out[0] as unknown as { messages: unknown[] }).messages;
    expect(messages[0]).toBe(kept);
    expect(messages[1]).toEqual({
      id: "a1",
      role: "assistant",
      toolCalls: [{ id: "tc1", type: "function", function: { name: "f", arguments: "{}" } }],
    });
    expect(codesAndPaths(run.warnings)).toEqual([["STRIPPED_PROPERTY", "/messages/1/toolCalls/0/encryptedValueType"]]);
  });
});

describe("enforceSchema — open objects (R-PROC-8, R-META-2)", () => {
  it("R-PROC-8: metadata keys, patch-op extras, activity content, CUSTOM value, RAW event and rawEvent keep undescribed members, silently", () => {
    const events = [
      ev.textStart("m1", "assistant", { metadata: { "acme/trace": "t-7", "acme/parent": null } }),
      ev.stateDelta([{ op: "remove", path: "/items/1", value: "drop-me" }]),
      ev.activitySnapshot("act1", "progress", { anything: { nested: [1] } }),
      ev.custom("vendor.thing", { free: "form" }),
      ev.raw({ provider: { shape: 1 } }, { source: "openai" }),
      ev.textContent("m1", "x", { rawEvent: { provider: "native", extra: true } }),
      ev.stateSnapshot({ unknown: { keys: true } }),
    ];
    const run = runStage(createEnforceStage(), events);
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    // Forwarded as the very objects that arrived (nothing to strip, nothing copied).
    run.out.forEach((out, i) => expect(out).toBe(events[i]));
  });

  it("R-META-2: unknown metadata keys (including null values) on a reasoning event are never stripped or warned about", () => {
    const start = ev.reasoningMessageStart("m1", {
      metadata: { "acme.vendor/traceId": "trace-7", "acme.vendor/parentSpan": null },
    });
    const warnings = marbles("a |", { a: start }, "a |", { a: start });
    expect(warnings).toEqual([]);
  });
});

describe("enforceSchema — unrecognised union members (R-PROC-3, R-PROC-11)", () => {
  it("R-PROC-3: an unknown RUN_FINISHED outcome member (optional position) is removed; the run ends outcome-less", () => {
    const finished = ev.runFinished("r1", { outcome: { type: "paused" } });
    const warnings = marbles("a b |", { a: rs, b: finished }, "a b |", { a: rs, b: rf });
    expect(warnings).toEqual([
      expect.objectContaining({ code: "UNKNOWN_UNION_MEMBER", rule: "R-PROC-3", path: "/outcome", eventIndex: 1 }),
    ]);
  });

  it("R-PROC-3: a known outcome (cancelled, interrupt) is not a stranger: forwarded unchanged, no warning", () => {
    const cancelled = ev.runFinished("r1", { outcome: { type: "cancelled" } });
    const interrupt = ev.runFinished("r1", {
      outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval" }] },
    });
    const warnings = marbles("a b |", { a: cancelled, b: interrupt }, "a b |", { a: cancelled, b: interrupt });
    expect(warnings).toEqual([]);
  });

  it("R-PROC-3: an unknown TEXT_MESSAGE_START role (optional closed string set) is removed, per R-PROC-10's rule", () => {
    const start = ev.textStart("m1", "narrator");
    const warnings = marbles("a |", { a: start }, "a |", { a: { type: "TEXT_MESSAGE_START", messageId: "m1" } });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/role"]]);
  });

  it("R-PROC-11: inside a list the unknown element is dropped and the list kept; in a required position the containing value goes", () => {
    const user = {
      id: "u1",
      role: "user",
      content: [
        { type: "text", text: "before" },
        { type: "hologram", source: { type: "data", value: "AAAA", mimeType: "x/y" } },
        { type: "image", source: { type: "blob", value: "b" } },
        { type: "text", text: "after" },
      ],
    };
    const expected = { id: "u1", role: "user", content: [user.content[0], user.content[3]] };
    const warnings = marbles("a |", { a: ev.messagesSnapshot([user] as never) }, "a |", {
      a: ev.messagesSnapshot([expected] as never),
    });
    expect(codesAndPaths(warnings)).toEqual([
      ["UNKNOWN_UNION_MEMBER", "/messages/0/content/1"],
      // The unknown source kind sits in the image part's required `source`: the part goes.
      ["UNKNOWN_UNION_MEMBER", "/messages/0/content/2/source"],
    ]);
    expect(warnings[1]?.message).toContain("/messages/0/content/2");
  });

  it('#95 R-PROC-11: a snapshot message with role "critic" is dropped from the list with a warning; the others stay', () => {
    const critic = { id: "c1", role: "critic", content: "hmm" };
    const user = { id: "u1", role: "user", content: "hi" };
    const warnings = marbles("a |", { a: ev.messagesSnapshot([critic, user] as never) }, "a |", {
      a: ev.messagesSnapshot([user] as never),
    });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/messages/0"]]);
  });

  it("R-PROC-11: an unknown JSON Patch op is dropped from the delta; known ops stay", () => {
    const add = { op: "add", path: "/a", value: 1 };
    const warnings = marbles("a |", { a: ev.stateDelta([{ op: "frobnicate", path: "/a" }, add]) }, "a |", {
      a: ev.stateDelta([add]),
    });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/delta/0"]]);
  });

  it("R-PROC-11: an unknown resume status inside RUN_STARTED.input drops that resume entry (required position, in a list)", () => {
    const input = {
      threadId: "t1",
      runId: "r1",
      messages: [],
      resume: [
        { interruptId: "i1", status: "snoozed" },
        { interruptId: "i2", status: "resolved" },
      ],
    };
    const started = ev.runStarted("r1", { input });
    const expected = ev.runStarted("r1", { input: { ...input, resume: [input.resume[1]] } });
    const warnings = marbles("a |", { a: started }, "a |", { a: expected });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/input/resume/0/status"]]);
  });

  it("R-PROC-11: an array where the outcome union is expected is a malformed value, not a member: FAIL (fixture unknown-outcome-array-fatal)", () => {
    const finished = ev.runFinished("r1", {
      outcome: [{ type: "interrupt", interrupts: [{ id: "i1", reason: "approval" }] }],
    });
    marbles(
      "a b |",
      { a: rs, b: finished },
      "a #",
      { a: rs },
      malformed(1, "R-PROC-4", "expected object, received array"),
    );
  });

  it("R-PROC-11: a non-string outcome discriminator is malformed, not an unknown member: FAIL", () => {
    const finished = ev.runFinished("r1", { outcome: { type: 7 } });
    marbles("a b |", { a: rs, b: finished }, "a #", { a: rs }, malformed(1, "R-PROC-4", "/outcome/type"));
  });
});

describe("enforceSchema — REASONING_ENCRYPTED_VALUE subtype (R-REASON-23/24)", () => {
  it("R-REASON-24: a string subtype 1.0 does not name removes the whole event with UNKNOWN_SUBTYPE at /subtype; the run continues", () => {
    const artifact = ev.encryptedValue("artifact", "m1", "opaque-blob");
    const warnings = marbles("a b c |", { a: rs, b: artifact, c: rf }, "a - c |", { a: rs, c: rf });
    expect(warnings).toEqual([
      expect.objectContaining({
        code: "UNKNOWN_SUBTYPE",
        rule: "R-REASON-24",
        path: "/subtype",
        eventIndex: 1,
        lossy: true,
      }),
    ]);
  });

  it('#71 R-REASON-24: REV("artifact") between a message\'s events is removed; nothing around it changes', () => {
    const start = ev.reasoningMessageStart("m1");
    const end = ev.reasoningMessageEnd("m1");
    const warnings = marbles("a b c |", { a: start, b: ev.encryptedValue("artifact", "m1", "v"), c: end }, "a - c |", {
      a: start,
      c: end,
    });
    expect(codesAndPaths(warnings)).toEqual([["UNKNOWN_SUBTYPE", "/subtype"]]);
  });

  it("R-REASON-23: a malformed reasoning event (missing entityId) fails the run with rule R-REASON-23", () => {
    const missing = { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", encryptedValue: "v" };
    marbles("a b |", { a: rs, b: missing }, "a #", { a: rs }, malformed(1, "R-REASON-23", "/entityId"));
  });

  it("#72 R-REASON-23: a numeric, null or missing subtype is malformed: FAIL, never removed", () => {
    for (const subtype of [5, null, undefined]) {
      const rev = {
        type: "REASONING_ENCRYPTED_VALUE",
        entityId: "m1",
        encryptedValue: "v",
        ...(subtype === undefined ? {} : { subtype }),
      };
      const { error, warnings } = failure([rs, rev]);
      expect([error.code, error.rule, error.eventIndex, error.eventType]).toEqual([
        "MALFORMED_EVENT",
        "R-REASON-23",
        1,
        "REASONING_ENCRYPTED_VALUE",
      ]);
      expect(error.message).toContain("/subtype");
      expect(warnings).toEqual([]);
    }
  });

  it("#73 R-SCHEMA-6: missing encryptedValue, missing entityId or a non-string value fails the run", () => {
    const cases: Array<[Values, string]> = [
      [{ subtype: "message", entityId: "m1" }, "/encryptedValue"],
      [{ subtype: "tool-call", encryptedValue: "v" }, "/entityId"],
      [{ subtype: "message", entityId: "m1", encryptedValue: 42 }, "/encryptedValue"],
    ];
    for (const [fields, path] of cases) {
      const { error } = failure([{ type: "REASONING_ENCRYPTED_VALUE", ...fields }]);
      expect([error.code, error.rule]).toEqual(["MALFORMED_EVENT", "R-REASON-23"]);
      expect(error.message).toContain(path);
    }
  });

  it("R-SCHEMA-6: both subtypes and an empty encryptedValue are valid: forwarded unchanged, quietly", () => {
    const a = ev.encryptedValue("message", "m1", "");
    const b = ev.encryptedValue("tool-call", "tc1", "opaque");
    expect(marbles("a b |", { a, b }, "a b |", { a, b })).toEqual([]);
  });
});

describe("enforceSchema — malformed known values (R-PROC-4, FAIL)", () => {
  it("R-PROC-4: a wrong-typed described field fails the run naming its path; what came before stays delivered", () => {
    const start = ev.textStart("m-1");
    const bad = ev.textContent("m-1", "x", { delta: 42 });
    const end = ev.textEnd("m-1");
    marbles(
      "a b c d |",
      { a: rs, b: start, c: bad, d: end },
      "a b #",
      { a: rs, b: start },
      malformed(2, "R-PROC-4", "/delta (expected string, received number)"),
    );
  });

  it("R-PROC-4: an event that is not a JSON object fails the run (null, number, string, array)", () => {
    for (const input of [null, 5, "RUN_STARTED", [ev.runStarted()], true]) {
      const { error } = failure([input]);
      expect([error.code, error.rule, error.eventIndex]).toEqual(["MALFORMED_EVENT", "R-PROC-4", 0]);
      expect(error.eventType).toMatch(/^<non-object/);
    }
  });

  it("R-PROC-4: an object whose type is missing or not a string fails the run", () => {
    for (const input of [{}, { type: 5 }, { type: null, messageId: "m1" }, { type: ["RUN_STARTED"] }]) {
      const { error } = failure([rs, input]);
      expect([error.code, error.rule, error.eventIndex, error.eventType]).toEqual([
        "MALFORMED_EVENT",
        "R-PROC-4",
        1,
        "<no type>",
      ]);
      expect(error.message).toContain("/type");
    }
  });

  it("R-PROC-4: the error names event index, type, ids and rule, and carries the offending event non-enumerably", () => {
    const bad = ev.reasoningMessageContent("m-7", "x", { delta: { not: "a string" } });
    const { error } = failure([rs, bad]);
    expect(error.message).toBe(
      'MALFORMED_EVENT (R-REASON-23) at event #1 REASONING_MESSAGE_CONTENT ["m-7"]: the schema rejects /delta (expected string, received object)',
    );
    expect(error.ids).toEqual(["m-7"]);
    expect(error.event).toBe(bad);
    expect(Object.keys(error)).not.toContain("event");
  });

  it("D-REDACT R-PROC-4: errors and warnings never repeat a delta, an encrypted value or a rejected string", () => {
    const secret = "TOP-SECRET-REASONING";
    const errors = [
      failure([ev.reasoningMessageContent("m1", "x", { delta: [secret] })]).error,
      failure([ev.reasoningMessageStart("m1", { role: secret })]).error,
      failure([ev.encryptedValue("message", "m1", secret, { entityId: { secret } })]).error,
    ];
    for (const error of errors) expect(error.message).not.toContain(secret);
    const run = runStage(createEnforceStage(), [
      ev.encryptedValue(secret.toLowerCase(), "m1", secret, { extra: secret }),
    ]);
    for (const w of run.warnings) expect(JSON.stringify(w)).not.toContain(secret);
    expect(run.warnings.map((w) => w.code)).toEqual(["UNKNOWN_SUBTYPE"]);
  });
});

describe("enforceSchema — reasoning event schemas (§8)", () => {
  it('R-SCHEMA-2: REASONING_MESSAGE_START needs role "reasoning"; with it the event is forwarded unchanged', () => {
    const start = ev.reasoningMessageStart("m1");
    expect(marbles("a |", { a: start }, "a |", { a: start })).toEqual([]);
  });

  it("#30 R-SCHEMA-2: REASONING_MESSAGE_START without role fails the run (required, not defaulted)", () => {
    const noRole = { type: "REASONING_MESSAGE_START", messageId: "m1" };
    marbles(
      "a b |",
      { a: rs, b: noRole },
      "a #",
      { a: rs },
      malformed(1, "R-SCHEMA-2", "/role (required field is missing"),
    );
  });

  it('#31 R-SCHEMA-2: role "assistant" on REASONING_MESSAGE_START is a malformed constant, not an unknown member: FAIL', () => {
    const wrong = ev.reasoningMessageStart("m1", { role: "assistant" });
    marbles("a b |", { a: rs, b: wrong }, "a #", { a: rs }, malformed(1, "R-SCHEMA-2", '/role (expected "reasoning"'));
  });

  it("R-SCHEMA-3: REASONING_MESSAGE_CONTENT requires a string delta; a missing delta fails", () => {
    const noDelta = { type: "REASONING_MESSAGE_CONTENT", messageId: "m1" };
    marbles("a |", { a: noDelta }, "#", {}, malformed(0, "R-REASON-23", "/delta (required field is missing"));
  });

  it("#32 R-SCHEMA-3: an empty delta is valid content: forwarded as the same object, no warning", () => {
    const empty = ev.reasoningMessageContent("m1", "");
    const run = runStage(createEnforceStage(), [empty]);
    expect(run.out[0]).toBe(empty);
    expect(run.warnings).toEqual([]);
  });

  it("#33 R-PROC-4: CONTENT without delta, with messageId 42, or with delta null fails the run", () => {
    const cases: Array<[Values, string]> = [
      [{ messageId: "m1" }, "/delta"],
      [{ messageId: 42, delta: "x" }, "/messageId (expected string, received number)"],
      [{ messageId: "m1", delta: null }, "/delta (expected string, received null)"],
    ];
    for (const [fields, part] of cases) {
      const { error } = failure([{ type: "REASONING_MESSAGE_CONTENT", ...fields }]);
      expect([error.code, error.rule]).toEqual(["MALFORMED_EVENT", "R-REASON-23"]);
      expect(error.message).toContain(part);
    }
  });

  it("R-SCHEMA-5: a REASONING_MESSAGE_CHUNK may omit messageId and delta: forwarded unchanged", () => {
    const bare = ev.reasoningChunk();
    const continuation = ev.reasoningChunk(undefined, "b");
    expect(marbles("a b |", { a: bare, b: continuation }, "a b |", { a: bare, b: continuation })).toEqual([]);
  });

  it("#61 R-PROC-4: REASONING_MESSAGE_CHUNK with delta 5 fails the run; never coerced", () => {
    const chunk = ev.reasoningChunk("m1", undefined, { delta: 5 });
    marbles(
      "a b |",
      { a: rs, b: chunk },
      "a #",
      { a: rs },
      malformed(1, "R-REASON-23", "/delta (expected string, received number)"),
    );
  });
});

describe("enforceSchema — envelope fields (R-EVT-3, R-EVT-7, R-META-1, R-SUB-1)", () => {
  it("R-EVT-3: an integer timestamp passes; a float, a string or an unsafe integer fails", () => {
    const ok = ev.reasoningStart("s1", { timestamp: 1_726_531_200_000 });
    expect(marbles("a |", { a: ok }, "a |", { a: ok })).toEqual([]);
    for (const [timestamp, part] of [
      [1.5, "/timestamp (expected int, received non-integer number)"],
      ["1726531200000", "/timestamp (expected number, received string)"],
      [2 ** 53, "/timestamp"],
    ] as const) {
      const { error } = failure([ev.reasoningStart("s1", { timestamp })]);
      expect([error.code, error.rule]).toEqual(["MALFORMED_EVENT", "R-REASON-23"]);
      expect(error.message).toContain(part);
    }
  });

  it("R-EVT-7: absent means absent: null for an optional field not on the registry fails the run", () => {
    const chunk = ev.reasoningChunk(undefined, "x", { messageId: null });
    marbles("a |", { a: chunk }, "#", {}, malformed(0, "R-REASON-23", "/messageId (expected string, received null)"));
  });

  it("R-EVT-7: a required JSON payload may be null (CUSTOM.value, STATE_SNAPSHOT.snapshot): forwarded unchanged", () => {
    const custom = ev.custom("c", null);
    const snapshot = ev.stateSnapshot(null);
    expect(marbles("a b |", { a: custom, b: snapshot }, "a b |", { a: custom, b: snapshot })).toEqual([]);
  });

  it("R-META-1: metadata null (or an array) on a reasoning event fails the run", () => {
    marbles(
      "a |",
      { a: ev.reasoningMessageEnd("m1", { metadata: null }) },
      "#",
      {},
      malformed(0, "R-REASON-23", "/metadata (value not allowed here, received null)"),
    );
    marbles(
      "a |",
      { a: ev.reasoningEnd("s1", { metadata: ["x"] }) },
      "#",
      {},
      malformed(0, "R-REASON-23", "/metadata"),
    );
  });

  it("R-SUB-1: subagentRunId null fails the run (absent means the parent agent)", () => {
    marbles(
      "a |",
      { a: ev.reasoningStart("s1", { subagentRunId: null }) },
      "#",
      {},
      malformed(0, "R-REASON-23", "/subagentRunId (expected string, received null)"),
    );
  });

  it("#34 R-META-1: metadata null / subagentRunId null fail; rawEvent null is converted to absent with a warning", () => {
    expect(failure([ev.reasoningMessageStart("m1", { metadata: null })]).error.rule).toBe("R-REASON-23");
    expect(failure([ev.reasoningMessageStart("m1", { subagentRunId: null })]).error.rule).toBe("R-REASON-23");
    const warnings = marbles("a |", { a: ev.reasoningMessageStart("m1", { rawEvent: null }) }, "a |", {
      a: ev.reasoningMessageStart("m1"),
    });
    expect(codesAndPaths(warnings)).toEqual([["NULL_TOLERATED", "/rawEvent"]]);
  });
});

describe("enforceSchema — registry null tolerances (R-DEP-6)", () => {
  it("R-DEP-6: each tolerated whole-field null becomes absent with a NULL_TOLERATED warning naming its path", () => {
    const toolStart = ev.toolCallStart("tc1", "search", { parentMessageId: null });
    const toolChunk = ev.toolCallChunk("tc1", "search", "{}", { parentMessageId: null });
    const finished = ev.runFinished("r1", { outcome: null, result: null, rawEvent: null });
    const warnings = marbles("a b c |", { a: toolStart, b: toolChunk, c: finished }, "a b c |", {
      a: ev.toolCallStart("tc1", "search"),
      b: ev.toolCallChunk("tc1", "search", "{}"),
      c: rf,
    });
    expect(codesAndPaths(warnings)).toEqual([
      ["NULL_TOLERATED", "/parentMessageId"],
      ["NULL_TOLERATED", "/parentMessageId"],
      ["NULL_TOLERATED", "/outcome"],
      ["NULL_TOLERATED", "/result"],
      ["NULL_TOLERATED", "/rawEvent"],
    ]);
    expect(warnings.every((w) => w.rule === "R-DEP-6")).toBe(true);
  });

  it("R-DEP-6: nested rows apply where the registry says: media-part metadata, tool parameters, resume payload, forwardedProps", () => {
    const image = { type: "image", source: { type: "url", value: "https://x/y.png" }, metadata: null };
    const input = {
      threadId: "t1",
      runId: "r1",
      messages: [{ id: "u1", role: "user", content: [image] }],
      tools: [{ name: "f", description: "d", parameters: null }],
      resume: [{ interruptId: "i1", status: "resolved", payload: null }],
      forwardedProps: null,
    };
    const expectedInput = {
      threadId: "t1",
      runId: "r1",
      messages: [{ id: "u1", role: "user", content: [{ type: "image", source: image.source }] }],
      tools: [{ name: "f", description: "d" }],
      resume: [{ interruptId: "i1", status: "resolved" }],
    };
    const warnings = marbles("a |", { a: ev.runStarted("r1", { input }) }, "a |", {
      a: ev.runStarted("r1", { input: expectedInput }),
    });
    expect(codesAndPaths(warnings)).toEqual([
      ["NULL_TOLERATED", "/input/messages/0/content/0/metadata"],
      ["NULL_TOLERATED", "/input/tools/0/parameters"],
      ["NULL_TOLERATED", "/input/resume/0/payload"],
      ["NULL_TOLERATED", "/input/forwardedProps"],
    ]);
  });

  it("R-DEP-6: rows not on the registry stay malformed: parentRunId null, message metadata null, text-part metadata null", () => {
    const cases: Array<[unknown, string]> = [
      [ev.runStarted("r1", { parentRunId: null }), "/parentRunId"],
      [
        ev.messagesSnapshot([{ id: "u1", role: "user", content: "x", metadata: null }] as never),
        "/messages/0/metadata",
      ],
      [
        ev.messagesSnapshot([
          { id: "u1", role: "user", content: [{ type: "text", text: "x", metadata: null }] },
        ] as never),
        "/messages/0/content/0/metadata",
      ],
    ];
    for (const [event, path] of cases) {
      const { error, warnings } = failure([event]);
      expect([error.code, error.rule]).toEqual(["MALFORMED_EVENT", "R-PROC-4"]);
      expect(error.message).toContain(path);
      expect(warnings).toEqual([]);
    }
  });
});

describe("enforceSchema — protocolVersion (R-VER-16/17)", () => {
  const started = (protocolVersion?: unknown) =>
    ev.runStarted("r1", protocolVersion === undefined ? {} : { protocolVersion });

  it("R-VER-17: a newer producer declaration (1.1, 1.10, 2.0) proceeds with a PROTOCOL_VERSION warning", () => {
    for (const version of ["1.1", "1.10", "2.0"]) {
      const warnings = marbles("a |", { a: started(version) }, "a |", { a: started(version) });
      expect(warnings).toEqual([
        expect.objectContaining({
          code: "PROTOCOL_VERSION",
          rule: "R-VER-17",
          path: "/protocolVersion",
          eventIndex: 0,
        }),
      ]);
      expect(warnings[0]?.message).toContain(`"${version}"`);
    }
  });

  it("R-VER-16: an uninterpretable declaration proceeds like a newer one, with a warning saying so", () => {
    for (const version of ["banana", "1", "1.0.3", "v1.0", ""]) {
      const warnings = marbles("a |", { a: started(version) }, "a |", { a: started(version) });
      expect(codesAndPaths(warnings)).toEqual([["PROTOCOL_VERSION", "/protocolVersion"]]);
      expect(warnings[0]?.rule).toBe("R-VER-16");
      expect(warnings[0]?.message).toContain("cannot interpret");
    }
  });

  it("R-VER-16: a huge declaration is repeated truncated to 40 characters", () => {
    const version = "x".repeat(500);
    const [warning] = marbles("a |", { a: started(version) }, "a |", { a: started(version) });
    expect(warning?.message).toContain(`"${"x".repeat(39)}…"`);
    expect(warning?.message).not.toContain("x".repeat(40));
  });

  it("R-VER-16: a non-string protocolVersion is a malformed value: FAIL", () => {
    marbles(
      "a |",
      { a: started(1.1) },
      "#",
      {},
      malformed(0, "R-PROC-4", "/protocolVersion (expected string, received non-integer number)"),
    );
  });

  it('#106 R-VER-17: RUN_STARTED protocolVersion "1.1" proceeds, warns, and 1.1-only fields are stripped with warnings', () => {
    const rev = ev.encryptedValue("message", "m1", "v", { encryptedValueType: "openai.encrypted_content" });
    const warnings = marbles("a b |", { a: started("1.1"), b: rev }, "a b |", {
      a: started("1.1"),
      b: ev.encryptedValue("message", "m1", "v"),
    });
    expect(codesAndPaths(warnings)).toEqual([
      ["PROTOCOL_VERSION", "/protocolVersion"],
      ["STRIPPED_PROPERTY", "/encryptedValueType"],
    ]);
  });

  it("#107 R-VER-15: RUN_STARTED without protocolVersion (pre-versioning peer) proceeds quietly", () => {
    expect(marbles("a |", { a: started() }, "a |", { a: started() })).toEqual([]);
  });

  it('#108 R-VER-16: RUN_STARTED protocolVersion "draft" proceeds with a warning', () => {
    const warnings = marbles("a b |", { a: started("draft"), b: rf }, "a b |", { a: started("draft"), b: rf });
    expect(warnings).toEqual([expect.objectContaining({ code: "PROTOCOL_VERSION", rule: "R-VER-16" })]);
  });

  it("R-VER-18: each RUN_STARTED declares its own run: a multi-run stream warns once per newer run", () => {
    const warnings = marbles("a b c d |", { a: started("1.1"), b: rf, c: started("1.0"), d: rf }, "a b c d |", {
      a: started("1.1"),
      b: rf,
      c: started("1.0"),
      d: rf,
    });
    expect(warnings.map((w) => [w.code, w.eventIndex])).toEqual([["PROTOCOL_VERSION", 0]]);
  });
});

describe("enforceSchema — clean traffic and identity", () => {
  it("R-PROC-6: a clean event is forwarded as the very object that arrived (no copy)", () => {
    const events = [
      rs,
      ev.reasoningStart("s1"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "x"),
      ev.reasoningMessageEnd("m1"),
      ev.encryptedValue("message", "m1", "v"),
      ev.reasoningEnd("s1"),
      rf,
    ];
    const run = runStage(createEnforceStage(), events);
    expect(run.warnings).toEqual([]);
    expect(run.out).toHaveLength(events.length);
    run.out.forEach((out, i) => expect(out).toBe(events[i]));
  });

  it("R-PROC-6: every delivered event is accepted by @ag-ui/core's EventSchema (zod stays the authority)", () => {
    const events = [
      ev.reasoningStart("s1", { title: "t" }),
      ev.runFinished("r1", { outcome: { type: "paused" } }),
      ev.messagesSnapshot([{ id: "c", role: "critic" }] as never),
    ];
    const run = runStage(createEnforceStage(), events);
    expect(run.out).toHaveLength(3);
    for (const out of run.out) expect(EventSchema.safeParse(out).success).toBe(true);
  });
});

describe("enforceSchema — conformance fixtures about processing", () => {
  const replay = (name: string) => runStage(createEnforceStage(), fixtureStream(name));

  it("R-PROC-6 fixture conformant-run-is-quiet: every event forwarded unchanged, no warning", () => {
    const stream = fixtureStream("conformant-run-is-quiet");
    const run = runStage(createEnforceStage(), stream);
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    run.out.forEach((out, i) => expect(out).toBe(stream[i]));
    expect(run.out).toHaveLength(stream.length);
  });

  it("R-PROC-1 fixture unknown-event-dropped: FUTURE_EVENT is dropped with a warning naming it", () => {
    const run = replay("unknown-event-dropped");
    expect(run.out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(run.warnings.map((w) => [w.code, w.eventType])).toEqual([["UNKNOWN_EVENT_TYPE", "FUTURE_EVENT"]]);
  });

  it("R-PROC-2 fixture unknown-property-stripped: /futureProp stripped, delta intact", () => {
    const run = replay("unknown-property-stripped");
    expect(run.error).toBeUndefined();
    expect(run.out[2]).toEqual({
      type: "TEXT_MESSAGE_CONTENT",
      messageId: "m-unknown-property",
      delta: "content survives",
    });
    expect(codesAndPaths(run.warnings)).toEqual([["STRIPPED_PROPERTY", "/futureProp"]]);
  });

  it("R-PROC-3 fixture unknown-outcome-stripped: /outcome removed, RUN_FINISHED delivered", () => {
    const run = replay("unknown-outcome-stripped");
    expect(run.out.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(run.out[1]).not.toHaveProperty("outcome");
    expect(codesAndPaths(run.warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/outcome"]]);
  });

  it("R-PROC-11 fixture unknown-part-in-message-list: the hologram part is dropped, both text parts stay", () => {
    const run = replay("unknown-part-in-message-list");
    const snapshot = run.out[1] as unknown as { messages: Array<{ content: unknown }> };
    expect(snapshot.messages[0]?.content).toEqual([
      { type: "text", text: "before" },
      { type: "text", text: "after" },
    ]);
    expect(codesAndPaths(run.warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/messages/0/content/1"]]);
  });

  it("R-PROC-11 fixture unknown-outcome-array-fatal: an array outcome is fatal, only RUN_STARTED delivered", () => {
    const run = replay("unknown-outcome-array-fatal");
    expect(run.out.map((e) => e.type)).toEqual(["RUN_STARTED"]);
    expect(run.error).toEqual(malformed(1, "R-PROC-4", "expected object, received array"));
  });

  it("R-PROC-4 fixture malformed-known-field-fatal: delta 42 fails at event #2, naming delta", () => {
    const run = replay("malformed-known-field-fatal");
    expect(run.out.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
    expect(run.error).toEqual(malformed(2, "R-PROC-4", "delta"));
  });

  it('#31 R-SCHEMA-2 fixture reasoning-message-wrong-role-fatal: fails with the reference wording expected "reasoning"', () => {
    const run = replay("reasoning-message-wrong-role-fatal");
    expect(run.error).toEqual(malformed(1, "R-SCHEMA-2", 'expected "reasoning"'));
  });

  it('R-PROC-3 fixture unknown-enum-value-role-fatal (admitted gap, we follow the rule): role "narrator" stripped with a warning', () => {
    const run = replay("unknown-enum-value-role-fatal");
    expect(run.error).toBeUndefined();
    expect(run.out[1]).toEqual({ type: "TEXT_MESSAGE_START", messageId: "m-unknown-role" });
    expect(codesAndPaths(run.warnings)).toEqual([["UNKNOWN_UNION_MEMBER", "/role"]]);
  });

  it("R-PROC-8 fixture open-object-patch-op-extras: the leftover value on a remove op arrives whole, no warning", () => {
    const stream = fixtureStream("open-object-patch-op-extras");
    const run = runStage(createEnforceStage(), stream);
    expect(run.out[2]).toBe(stream[2]);
    expect(run.warnings).toEqual([]);
  });

  it("R-META-2 fixture open-metadata-preserved: vendor keys and null values survive, no warning", () => {
    const stream = fixtureStream("open-metadata-preserved");
    const run = runStage(createEnforceStage(), stream);
    run.out.forEach((out, i) => expect(out).toBe(stream[i]));
    expect(run.warnings).toEqual([]);
  });

  it("R-VER-17 fixtures producer-declares-*: 1.0 quiet; 1.1 warns naming it; draft warns 'cannot interpret'", () => {
    expect(replay("producer-declares-same-version-quiet").warnings).toEqual([]);
    const newer = replay("producer-declares-newer-version-warns").warnings;
    expect(newer.map((w) => w.code)).toEqual(["PROTOCOL_VERSION"]);
    expect(newer[0]?.message).toContain("1.1");
    const draft = replay("producer-declares-uninterpretable-version-warns").warnings;
    expect(draft.map((w) => w.code)).toEqual(["PROTOCOL_VERSION"]);
    expect(draft[0]?.message).toContain("cannot interpret");
  });
});

describe("enforceSchema — error paths inside unions", () => {
  it("R-PROC-4: a malformed part inside a snapshot message's content names the exact field", () => {
    const snapshot = ev.messagesSnapshot([{ id: "u1", role: "user", content: [{ type: "text", text: 5 }] }] as never);
    marbles(
      "a |",
      { a: snapshot },
      "#",
      {},
      malformed(0, "R-PROC-4", "/messages/0/content/0/text (expected string, received number)"),
    );
  });
});

describe("enforceSchema — hostile objects", () => {
  it("R-PROC-4: an object whose properties cannot be read fails with MALFORMED_EVENT, never a bare TypeError", () => {
    const throwing = new Proxy(
      {},
      {
        get: () => {
          throw new TypeError("boom");
        },
      },
    );
    const getter = {
      type: "TEXT_MESSAGE_CONTENT",
      messageId: "m1",
      get delta(): string {
        throw new TypeError("boom");
      },
    };
    for (const input of [throwing, getter]) {
      const { error, out } = failure([rs, input]);
      expect([error.code, error.rule, error.eventIndex]).toEqual(["MALFORMED_EVENT", "R-PROC-4", 1]);
      expect(error.message).toContain("could not be read");
      expect(out).toEqual([rs]);
    }
  });
});

describe("enforceSchema — older declarations", () => {
  it('R-VER-20: an older declaration ("0.9") proceeds without a warning (nothing newer to strip; the processing model applies)', () => {
    const started = ev.runStarted("r1", { protocolVersion: "0.9" });
    expect(marbles("a |", { a: started }, "a |", { a: started })).toEqual([]);
  });
});

describe("unknown subtype beside a malformed known field", () => {
  it("#73 R-REASON-23: an unknown string subtype does not conceal a malformed entityId — the run fails", () => {
    const malformedEntity = {
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "artifact",
      entityId: null,
      encryptedValue: "",
    };
    const run = runStage(createEnforceStage(), [malformedEntity]);
    expect(run.error).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", rule: "R-REASON-23", eventIndex: 0 }));
    expect((run.error as Error).message).toContain("/entityId");
    expect((run.error as Error).message).not.toContain("/subtype");
  });

  it.each([
    [
      "before",
      { type: "REASONING_ENCRYPTED_VALUE", rawEvent: null, subtype: "artifact", entityId: "m1", encryptedValue: "" },
    ],
    [
      "after",
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "artifact", entityId: "m1", encryptedValue: "", rawEvent: null },
    ],
  ])(
    "R-REASON-24 R-DEP-6: a tolerated `rawEvent: null` %s an unknown subtype is no fault: the event goes with UNKNOWN_SUBTYPE alone",
    (_, event) => {
      const run = runStage(createEnforceStage(), [event]);
      expect(run.error).toBeUndefined();
      expect(run.out).toEqual([]);
      expect(run.warnings.map((w) => w.code)).toEqual(["UNKNOWN_SUBTYPE"]);
    },
  );

  it("R-REASON-23: a `null` no registry row tolerates beside an unknown subtype still fails the run", () => {
    const event = {
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "artifact",
      entityId: "m1",
      encryptedValue: "",
      metadata: null,
    };
    const run = runStage(createEnforceStage(), [event]);
    expect(run.error).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", rule: "R-REASON-23" }));
    expect((run.error as Error).message).toContain("/metadata");
  });
});
