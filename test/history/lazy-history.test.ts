import { from } from "rxjs";
import { countingClock } from "../support/clock";
import type { Message } from "@ag-ui/core";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { createHistoryStage } from "../../src/history/history-stage";
import type { ReasoningHistory } from "../../src/history/types";
import { ev } from "../../src/testing/builders";

/**
 * Histories of long conversations build their `messages` array when it is read (conversation.ts,
 * `LazyHistory`), so that a delta does not copy the whole conversation. These tests pin that such a
 * history is indistinguishable from a plain one for every way a consumer looks at it.
 */

const prior = (n: number): Message[] =>
  Array.from({ length: n }, (_, i) => ({ id: `u${i}`, role: "user", content: `q${i}` }));

const stream = [
  ev.runStarted(),
  ev.reasoningMessageStart("m1"),
  ev.reasoningMessageContent("m1", "ab"),
  ev.reasoningMessageContent("m1", "cd"),
  ev.reasoningMessageEnd("m1"),
  ev.runFinished(),
];

/** m1's duration record while it streams (the counting clock's first reading, D-DURATION). */
const openM1 = { kind: "message", id: "m1", startedAt: 0, startObserved: true };

function histories(n: number): ReasoningHistory[] {
  const seen: ReasoningHistory[] = [];
  const p = reasoningPipeline(from(stream), {
    initialMessages: prior(n),
    onWarning: () => {},
    scheduler: countingClock(),
  });
  p.history$.subscribe((h) => seen.push(h));
  p.events$.subscribe();
  return seen;
}

describe("histories of long conversations (lazy messages)", () => {
  it("R-STATE-3: each published history of a 200-message conversation equals the plain one, key for key", () => {
    const seen = histories(200);
    // initial, START, two deltas, END (RUN_FINISHED changes nothing).
    expect(seen).toHaveLength(5);
    const third = seen[3]!;
    expect(Object.keys(third)).toEqual(["messages", "incomplete", "issuers", "durations"]);
    expect(third).toEqual({
      messages: [...prior(200), { id: "m1", role: "reasoning", content: "abcd" }],
      incomplete: [{ kind: "message", id: "m1", reason: "open" }],
      issuers: [],
      durations: [openM1],
    });
    // An earlier history still shows its own version, read after later ones were published.
    expect(seen[2]!.messages[200]).toEqual({ id: "m1", role: "reasoning", content: "ab" });
    expect(seen[1]!.messages[200]).toEqual({ id: "m1", role: "reasoning", content: "" });
    expect(seen[4]!.incomplete).toEqual([]);
  });

  it("R-STATE-3: a lazy history reads the same through JSON, spread and structuredClone, and keeps one array", () => {
    const h = histories(200)[3]!;
    const plain = { messages: h.messages, incomplete: h.incomplete, issuers: h.issuers, durations: h.durations };
    expect(h.messages).toBe(h.messages);
    expect(JSON.stringify(h)).toBe(JSON.stringify(plain));
    expect({ ...h }).toEqual(plain);
    expect(structuredClone(h)).toEqual(plain);
    expect(h.messages).toHaveLength(201);
    expect(h.constructor).not.toBe(Object);
  });

  it("R-STATE-3: short and long conversations give equal histories for the same events", () => {
    const short = histories(3).map((h) => ({ ...h, messages: h.messages.slice(3) }));
    const long = histories(300).map((h) => ({ ...h, messages: h.messages.slice(300) }));
    expect(long).toEqual(short);
  });

  it("R-STATE-3: unchanged messages keep their identity across lazy histories (structural sharing)", () => {
    const seen = histories(150);
    expect(seen[3]!.messages[17]).toBe(seen[1]!.messages[17]);
    expect(seen[3]!.messages[150]).not.toBe(seen[2]!.messages[150]);
  });

  it("R-STATE-3: the history stage alone, stepped past the eager size, still publishes equal histories", () => {
    const stage = createHistoryStage({ initialMessages: prior(170) });
    let state = stage.init();
    const events = [ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", "x")];
    events.forEach((e, index) => {
      state = stage.step(state, e, { index }).state;
    });
    expect(state.history.messages).toHaveLength(171);
    expect(state.history.messages[170]).toEqual({ id: "m1", role: "reasoning", content: "x" });
  });

  it("R-STATE-3: where the engine has no __defineGetter__, the accessor is defined by Object.defineProperty, alike", () => {
    // conversation.ts picks how it defines the accessor when it is loaded; load it afresh without one.
    const proto = Object.prototype as { __defineGetter__?: unknown };
    const saved = Object.getOwnPropertyDescriptor(Object.prototype, "__defineGetter__")!;
    delete proto.__defineGetter__;
    const seen: ReasoningHistory[] = [];
    const defineProperty = jest.spyOn(Object, "defineProperty");
    try {
      jest.isolateModules(() => {
        const fresh = jest.requireActual<typeof import("../../src/pipeline/reasoning-pipeline")>(
          "../../src/pipeline/reasoning-pipeline",
        );
        const p = fresh.reasoningPipeline(from(stream), {
          initialMessages: prior(200),
          onWarning: () => {},
          scheduler: countingClock(),
        });
        p.history$.subscribe((h) => seen.push(h));
        p.events$.subscribe();
      });
    } finally {
      Object.defineProperty(Object.prototype, "__defineGetter__", saved);
    }
    const messagesDefinitions = defineProperty.mock.calls.filter(([, key]) => key === "messages").length;
    defineProperty.mockRestore();
    // One accessor per lazy history: the initial one is the seed itself (a plain object).
    expect(messagesDefinitions).toBe(seen.length - 1);
    const h = seen[3]!;
    expect(Object.getOwnPropertyDescriptor(h, "messages")).toEqual(
      expect.objectContaining({ enumerable: true, configurable: true }),
    );
    expect(typeof Object.getOwnPropertyDescriptor(h, "messages")!.get).toBe("function");
    expect(structuredClone(h)).toEqual({
      messages: [...prior(200), { id: "m1", role: "reasoning", content: "abcd" }],
      incomplete: [{ kind: "message", id: "m1", reason: "open" }],
      issuers: [],
      durations: [openM1],
    });
    // The same property as the default path defines (another module instance: another getter function).
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the getters are compared away, never called
    const { get: _fallbackGetter, ...fallback } = Object.getOwnPropertyDescriptor(h, "messages")!;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the getters are compared away, never called
    const { get: _defaultGetter, ...usual } = Object.getOwnPropertyDescriptor(histories(200)[3]!, "messages")!;
    expect(fallback).toEqual(usual);
  });

  it("D-ISSUER R-STATE-3: issuer records of a long conversation are built on first read, equal to plain ones, each history its own", () => {
    // 200 prior messages (a LazyHistory), then values on three messages, one of them stored again (D-REPEAT).
    const events = [
      ev.runStarted(),
      ev.encryptedValue("message", "u1", "v1"),
      ev.encryptedValue("message", "u2", "v2"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "ab"),
      ev.encryptedValue("message", "u1", "v1-again"),
      ev.reasoningMessageContent("m1", "cd"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ];
    const seen: ReasoningHistory[] = [];
    const p = reasoningPipeline(from(events), { initialMessages: prior(200), producer: "p", onWarning: () => {} });
    p.history$.subscribe((h) => seen.push(h));
    p.events$.subscribe();
    const records = (...ids: string[]) => ids.map((entityId) => ({ subtype: "message", entityId, issuer: "p" }));
    // Read newest first: no history's records depend on an older one having been read.
    const last = seen[seen.length - 1]!;
    expect(last.issuers).toEqual(records("u1", "u2"));
    expect(last.issuers).toBe(last.issuers);
    // The history after the first value, read only now, still shows one record.
    expect(seen[1]!.issuers).toEqual(records("u1"));
    expect(seen[2]!.issuers).toEqual(records("u1", "u2"));
    // A history published while the records had no array yet reads like a plain one everywhere.
    const mid = seen[4]!;
    const plain = {
      messages: mid.messages,
      incomplete: mid.incomplete,
      issuers: mid.issuers,
      durations: mid.durations,
    };
    expect(Object.keys(mid)).toEqual(["messages", "incomplete", "issuers", "durations"]);
    expect(JSON.stringify(mid)).toBe(JSON.stringify(plain));
    expect({ ...mid }).toEqual(plain);
    expect(structuredClone(mid)).toEqual(plain);
    // Histories between two values share the one array once it is built (no copy per delta).
    expect(seen[seen.length - 2]!.issuers).toBe(last.issuers);
  });
});
