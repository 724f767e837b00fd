/**
 * Very large and very deep input (issue 6, "Hostile and unusual input"): 10 MB deltas and values,
 * values nested 10,000 levels in every open place of the protocol. Large values are carried whole
 * (no length limits, R-REASON-16); deep values are carried by reference and never walked
 * recursively, so nothing overflows the stack.
 */
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  upcastThinking,
  verifyDiscipline,
} from "../../src/pipeline/operators";
import { from } from "rxjs";
import type { ReasoningHistory } from "../../src/history/types";
import { ev } from "../../src/testing/builders";
import {
  deepArray,
  deepObject,
  depthOf,
  expectNoPollution,
  expectProtocolError,
  failureOf,
  prototypeFingerprint,
  runFacade,
  runOperator,
} from "./support/run";
import { deepStream, SECRETS } from "./support/streams";
import { InMemoryHistoryStore, parseHistory, serializeHistory } from "../../src";
import { KeyValueHistoryStore } from "../../src/storage";

const MB = 1024 * 1024;
const DEPTH = 10_000;

let fingerprint: string[];
beforeAll(() => {
  fingerprint = prototypeFingerprint();
});
afterEach(() => expectNoPollution(fingerprint));

describe("10 MB of content", () => {
  // Distinct strings, so a test cannot pass by comparing a string with itself by accident.
  const big = (seed: string): string => seed.repeat(Math.ceil((10 * MB) / seed.length)).slice(0, 10 * MB);

  it("R-SCHEMA-3: a 10 MB reasoning delta is appended whole, and a second one after it", () => {
    const first = big("reasoning-");
    const second = big("more-");
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", first),
      ev.reasoningMessageContent("m1", second),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    const content = (run.history.messages[0] as { content: string }).content;
    expect(content.length).toBe(20 * MB);
    expect(content === first + second).toBe(true);
  });

  it("R-STREAM-12/13: 10 MB chunks of every family expand into CONTENT carrying the very same strings", () => {
    const thought = big("thought-");
    const answer = big("answer-");
    const args = big("args-");
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningChunk("m1", thought),
      ev.textChunk("a1", answer),
      ev.toolCallChunk("tc1", "search", args),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    const deltas = run.events.filter((e) => typeof e.delta === "string").map((e) => e.delta);
    expect(deltas.length).toBe(3);
    expect([deltas[0] === thought, deltas[1] === answer, deltas[2] === args]).toEqual([true, true, true]);
  });

  it("R-REASON-16: a 10 MB encrypted value is stored byte-identical; an unroutable one is reported by its byte length only", () => {
    const value = big("gAAAA-");
    const stray = big("stray-");
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.encryptedValue("message", "m1", value),
      ev.encryptedValue("message", "nobody", stray),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    expect((run.history.messages[0] as { encryptedValue: string }).encryptedValue === value).toBe(true);
    expect(run.warnings.map((w) => w.code)).toEqual(["UNKNOWN_ENTITY"]);
    expect(run.warnings[0]!.message).toContain(`${10 * MB} bytes`);
    expect(JSON.stringify(run.warnings).length).toBeLessThan(1000);
  });

  it("R-PROC-4: a 10 MB delta of the wrong type fails with a short message", () => {
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", [big("x")] as never),
    ]);
    const error = expectProtocolError(run.error);
    expect({ code: error.code, eventIndex: error.eventIndex }).toEqual({ code: "MALFORMED_EVENT", eventIndex: 2 });
    expect(error.message.length).toBeLessThan(500);
  });
});

describe(`values nested ${DEPTH.toLocaleString("en-US")} levels deep`, () => {
  it("R-META-1/4 R-EVT-4 R-PASS-1: deep metadata, rawEvent, CUSTOM, RAW, state and input values pass through by reference", () => {
    const events = deepStream(DEPTH);
    const run = runFacade(events);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.warnings).toEqual([]);
    // Everything but the chunks is forwarded as the very object that arrived.
    const forwarded = run.events.filter((e) => events.includes(e));
    expect(forwarded.length).toBe(events.length - 2);
    const [m1] = run.history.messages as unknown as { id: string; metadata: { deep: unknown } }[];
    expect(m1!.id).toBe("m1");
    expect(depthOf(m1!.metadata.deep)).toBe(DEPTH);
  });

  it("R-META-4 D-NO-ALIAS: deep metadata merges by key; the history holds its own copies (an iterative copy: no stack overflow)", () => {
    const first = deepObject(DEPTH);
    const second = deepArray(DEPTH);
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningMessageStart("m1", { metadata: { a: first, keep: 1 } }),
      ev.reasoningMessageContent("m1", SECRETS.thought, { metadata: { a: second } }),
      ev.reasoningMessageEnd("m1", { metadata: { b: first } }),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    const metadata = (run.history.messages[0] as { metadata: Record<string, unknown> }).metadata;
    expect(metadata.a).not.toBe(second);
    expect(Array.isArray(metadata.a)).toBe(true);
    expect(metadata.b).not.toBe(first);
    expect(depthOf(metadata.b)).toBe(DEPTH);
    expect(metadata.keep).toBe(1);
  });

  it("R-SNAP-3 R-ACT-5: an ACTIVITY_DELTA edits and tests values 10,000 levels deep, and a failing deep test is skipped", () => {
    const content = deepObject(DEPTH, 1);
    const deepPointer = "/a".repeat(DEPTH);
    const patch = (ops: unknown[]) => ({ type: "ACTIVITY_DELTA", messageId: "act", activityType: "plan", patch: ops });
    const run = runFacade([
      ev.runStarted(),
      ev.activitySnapshot("act", "plan", content),
      // test a deep equal value, then replace the innermost leaf (a pointer 10,000 tokens long)
      patch([
        { op: "test", path: "", value: deepObject(DEPTH, 1) },
        { op: "replace", path: deepPointer, value: 2 },
      ]),
      // a deep test that does not hold: the whole patch is skipped (atomic)
      patch([
        { op: "replace", path: deepPointer, value: 3 },
        { op: "test", path: "", value: deepObject(DEPTH, 1) },
      ]),
      patch([{ op: "copy", from: "/a", path: "/b" }]),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.warnings.map((w) => [w.code, w.eventIndex])).toEqual([["ACTIVITY_SKIPPED", 3]]);
    const held = (run.history.messages[0] as { content: Record<string, unknown> }).content;
    let leaf: unknown = held;
    for (let i = 0; i < DEPTH; i++) leaf = (leaf as { a: unknown }).a;
    expect(leaf).toBe(2);
    expect(held.b).toBe((held as { a: unknown }).a);
    // Copy-on-write: the snapshot's objects were not edited in place.
    let original: unknown = content;
    for (let i = 0; i < DEPTH; i++) original = (original as { a: unknown }).a;
    expect(original).toBe(1);
  });

  it("R-PROC-2/7 R-PROC-1: deep values under undescribed keys and in unknown event types are stripped or dropped, not walked", () => {
    const run = runFacade([
      ev.runStarted("r1", { extra: deepObject(DEPTH) }),
      ev.reasoningStart("s1", { undescribed: deepArray(DEPTH) }),
      { type: "REASONING_SUMMARY", summary: deepObject(DEPTH, SECRETS.thought) },
      ev.reasoningEnd("s1"),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.warnings.map((w) => [w.code, w.path ?? null])).toEqual([
      ["STRIPPED_PROPERTY", "/extra"],
      ["STRIPPED_PROPERTY", "/undescribed"],
      ["UNKNOWN_EVENT_TYPE", null],
    ]);
  });

  it("R-PROC-4 R-META-1: a deep value where the schema wants another kind fails MALFORMED_EVENT with a short message", () => {
    for (const [event, path] of [
      [ev.reasoningStart("s1", { metadata: [deepObject(DEPTH)] }), "/metadata"],
      [ev.reasoningMessageContent("m1", deepObject(DEPTH) as never), "/delta"],
      [ev.encryptedValue("message", "m1", deepArray(DEPTH) as never), "/encryptedValue"],
    ] as const) {
      const run = runFacade([ev.runStarted(), event]);
      const error = expectProtocolError(run.error);
      expect({ code: error.code, eventIndex: error.eventIndex }).toEqual({ code: "MALFORMED_EVENT", eventIndex: 1 });
      expect(error.message).toContain(path);
      expect(error.message.length).toBeLessThan(500);
    }
  });

  it("D-THINK-TITLE: a legacy span with a title and deep metadata is translated with the title beside the deep value", () => {
    const deep = deepObject(DEPTH);
    const run = runFacade(
      [
        ev.runStarted(),
        ev.thinkingStart({ title: SECRETS.title, metadata: { deep } }),
        ev.thinkingEnd(),
        ev.runFinished(),
      ],
      {
        idFactory: () => "think-1",
      },
    );
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.events[1]).toEqual({
      type: "REASONING_START",
      messageId: "think-1",
      metadata: { deep, "agui-reasoning": { thinkingTitle: SECRETS.title } },
    });
  });

  it("R-EVT-4 R-META-1: every single operator carries deep values without overflowing the stack", () => {
    const events = deepStream(DEPTH);
    const opts = { onWarning: () => {} };
    const validated = runOperator(events, (s) => s.pipe(upcastThinking(opts), enforceSchema(opts)));
    expect(validated.error).toBeUndefined();
    const expanded = runOperator(validated.out, expandChunks(opts) as never);
    expect(expanded.error).toBeUndefined();
    const verified = runOperator(expanded.out, verifyDiscipline(opts) as never);
    expect(verified.error).toBeUndefined();
    let last: ReasoningHistory | undefined;
    from(verified.out as never[])
      .pipe(deriveHistory(opts))
      .subscribe((h) => (last = h));
    // The two histories hold equal copies (D-NO-ALIAS), compared without recursing 10,000 levels.
    const shape = (h: ReasoningHistory | undefined) =>
      h?.messages.map((m) => [m.id, m.role, depthOf((m as { metadata?: { deep?: unknown } }).metadata?.deep)]);
    expect(shape(last)).toEqual(shape(runFacade(events).history));
    expect(shape(last)).toEqual([["m1", "reasoning", DEPTH]]);
  });

  it("D-HISTORY-IDS R-REASON-17: the history of such a stream is written, read back and kept by the stores (past JSON.stringify's stack, a few thousand levels)", async () => {
    const events = deepStream(DEPTH);
    // Activity content too: an object and an array, each 10,000 levels deep.
    events.splice(-1, 0, ev.activitySnapshot("act", "plan", { deep: deepObject(DEPTH), list: deepArray(DEPTH) }));
    const run = runFacade(events);
    expect(failureOf(run.error)).toBeUndefined();
    const text = serializeHistory(run.history);
    const strings = new Map<string, string>();
    const stores = [
      new InMemoryHistoryStore(),
      new KeyValueHistoryStore({ get: (key) => strings.get(key), set: (key, value) => strings.set(key, value) }),
    ];
    for (const store of stores) await store.save("t1", run.history);
    expect([...strings.values()]).toEqual([text]);
    // Compared without recursing 10,000 levels: the text written again, and the depths held.
    for (const back of [parseHistory(text), ...(await Promise.all(stores.map((store) => store.load("t1"))))]) {
      expect(serializeHistory(back!)).toBe(text);
      const [m1, act] = back!.messages as unknown as [{ metadata: { deep: unknown } }, { content: { deep: unknown } }];
      expect([depthOf(m1.metadata.deep), depthOf(act.content.deep)]).toEqual([DEPTH, DEPTH]);
    }
    expect(text).toContain(`${"[".repeat(DEPTH)}"leaf"${"]".repeat(DEPTH)}`);
  });
});
