/**
 * Input that is not an event at all (issue 6, "Hostile and unusual input"): `null`, numbers,
 * strings, arrays, symbols; objects without a string `type`; objects with getters that throw,
 * proxies, revoked proxies. Each is a MALFORMED_EVENT naming its index and kind (R-PROC-4) — never a
 * TypeError from inside the package.
 */
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  upcastThinking,
  verifyDiscipline,
} from "../../src/pipeline/operators";
import { ReasoningProtocolError } from "../../src/core/errors";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { toRunInputMessages } from "../../src/history/run-input";
import type { ReasoningHistory } from "../../src/history/types";
import { from } from "rxjs";
import { ev } from "../../src/testing/builders";
import type { AguiEvent } from "../../src/core/types";
import type { OperatorFunction } from "rxjs";
import { expectNoPollution, failureOf, prototypeFingerprint, runFacade, runOperator } from "./support/run";
import { LIST_PLACES, NON_OBJECTS, SECRETS, throwingGetter, UNREADABLE } from "./support/streams";

let fingerprint: string[];
beforeAll(() => {
  fingerprint = prototypeFingerprint();
});
afterEach(() => expectNoPollution(fingerprint));

describe("non-object events through the facade", () => {
  it.each(NON_OBJECTS)("R-PROC-4: $label as the first event fails MALFORMED_EVENT at #0", ({ value, type }) => {
    const run = runFacade([value(), ev.runStarted()]);
    expect(failureOf(run.error)).toEqual({ code: "MALFORMED_EVENT", rule: "R-PROC-4", eventIndex: 0, eventType: type });
    expect(run.events).toEqual([]);
  });

  it.each(NON_OBJECTS)(
    "R-PROC-4: $label inside a run fails MALFORMED_EVENT at its index; what came before stays delivered",
    ({ value, type }) => {
      const before = [
        ev.runStarted(),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", SECRETS.thought),
      ];
      const run = runFacade([...before, value(), ev.reasoningMessageEnd("m1"), ev.runFinished()]);
      expect(failureOf(run.error)).toEqual({
        code: "MALFORMED_EVENT",
        rule: "R-PROC-4",
        eventIndex: 3,
        eventType: type,
      });
      expect(run.events).toEqual(before);
      expect(run.history.messages).toEqual([{ id: "m1", role: "reasoning", content: SECRETS.thought }]);
    },
  );

  it("R-PROC-4: an event with a null prototype is judged on its fields like any other", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, ev.reasoningStart("s1"));
    const run = runFacade([ev.runStarted(), bare, ev.reasoningEnd("s1"), ev.runFinished()]);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.events[1]).toBe(bare);
  });
});

describe("unreadable events: getters that throw, proxies", () => {
  it.each(UNREADABLE)(
    "R-PROC-4: $label fails MALFORMED_EVENT at its index, never with the getter's TypeError",
    ({ value }) => {
      const run = runFacade([ev.runStarted(), value(), ev.runFinished()]);
      expect(failureOf(run.error)).toEqual(
        expect.objectContaining({ code: "MALFORMED_EVENT", rule: "R-PROC-4", eventIndex: 1 }),
      );
      expect(run.events).toEqual([ev.runStarted()]);
    },
  );

  it("R-PROC-4: upcastThinking alone passes an unreadable non-legacy event on untouched for enforcement to judge", () => {
    const getter = throwingGetter({ type: "RUN_STARTED" }, "type");
    const run = runOperator([getter], upcastThinking());
    expect(run.error).toBeUndefined();
    expect(run.out[0]).toBe(getter);
  });

  it("R-PROC-4: upcastThinking alone rejects a legacy event whose fields cannot be read, naming its legacy type", () => {
    const legacy = throwingGetter(ev.thinkingTextMessageContent(SECRETS.thought), "delta");
    const run = runOperator(
      [ev.runStarted(), ev.thinkingTextMessageStart(), legacy],
      upcastThinking({ onWarning: () => {} }),
    );
    expect(failureOf(run.error)).toEqual({
      code: "MALFORMED_EVENT",
      rule: "R-PROC-4",
      eventIndex: 2,
      eventType: "THINKING_TEXT_MESSAGE_CONTENT",
    });
    expect((run.error as ReasoningProtocolError).event).toBe(legacy);
  });

  const readableType = UNREADABLE.filter((u) => u.label.startsWith("a legacy"));
  it.each(UNREADABLE.filter((u) => !readableType.includes(u)))(
    "R-PROC-4: enforceSchema alone rejects $label with MALFORMED_EVENT",
    ({ value }) => {
      const run = runOperator([ev.runStarted(), value()], enforceSchema({ onWarning: () => {} }));
      expect(failureOf(run.error)).toEqual(
        expect.objectContaining({ code: "MALFORMED_EVENT", rule: "R-PROC-4", eventIndex: 1 }),
      );
    },
  );

  it.each(readableType)(
    "R-PROC-1: enforceSchema alone drops $label as an unknown type without reading its fields",
    ({ value }) => {
      const warnings: string[] = [];
      const run = runOperator([ev.runStarted(), value()], enforceSchema({ onWarning: (w) => warnings.push(w.code) }));
      expect(run.error).toBeUndefined();
      expect(run.out).toEqual([ev.runStarted()]);
      expect(warnings).toEqual(["UNKNOWN_EVENT_TYPE"]);
    },
  );

  it("R-PROC-4: a getter that throws only after validation ends the stream with its own error or a protocol error, never a TypeError of ours", () => {
    // Time-of-check/time-of-use: the getter behaves while enforcement reads it, then throws. Events are
    // JSON data, so the package does not copy each one to defend against this (docs/security.md): the
    // getter's own error (the source's) is what may surface — never a TypeError or RangeError of ours.
    const own = new Error("late getter");
    for (const field of ["type", "messageId", "delta", "metadata"]) {
      for (let reads = 0; reads < 8; reads++) {
        let count = 0;
        const base: Record<string, unknown> = {
          type: "REASONING_MESSAGE_CONTENT",
          messageId: "m1",
          delta: SECRETS.thought,
          metadata: { k: 1 },
        };
        const held = base[field];
        delete base[field];
        Object.defineProperty(base, field, {
          enumerable: true,
          get() {
            if (++count > reads) throw own;
            return held;
          },
        });
        const run = runFacade([
          ev.runStarted(),
          ev.reasoningMessageStart("m1"),
          base,
          ev.reasoningMessageEnd("m1"),
          ev.runFinished(),
        ]);
        if (run.error !== undefined && run.error !== own) expect(run.error).toBeInstanceOf(ReasoningProtocolError);
      }
    }
  });
});

describe("a sparse list in an event (2³²−1 slots for nothing: a structured clone keeps holes)", () => {
  const sparse = (first: unknown) => Object.assign(new Array<unknown>(2 ** 32 - 1), { 0: first });
  const user = { id: "u1", role: "user", content: "hi" };
  // Each place, and the index of the event holding the list.
  const lists = LIST_PLACES.map(([name, events]) => [name, events, events([]).length - 1] as const);
  it.each(lists)(
    "R-PROC-4: %s fails MALFORMED_EVENT at its index through the facade, at the first hole",
    (_name, events, at) => {
      const run = runFacade([...events(sparse(user)), ev.runFinished()]);
      expect(failureOf(run.error)).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: at }));
      expect((run.error as Error).message).toContain("a sparse array: JSON has no holes");
    },
  );
  it.each(lists)(
    "R-PROC-4: %s through the history stage alone fails; verification alone does its bookkeeping and goes on",
    (_name, events, at) => {
      const stream = [...events(sparse(user)), ev.runFinished()];
      const history = runOperator(stream, deriveHistory({ onWarning: () => {} }) as never);
      // State and subagents are not the history's (R-STATE-3): a STATE_DELTA or SUBAGENT_FINISHED goes through it unread.
      if (["STATE_DELTA", "SUBAGENT_FINISHED"].includes(stream[at]!.type)) expect(history.error).toBeUndefined();
      else
        expect(failureOf(history.error)).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: at }));
      const verified = runOperator(stream, verifyDiscipline({ onWarning: () => {} }) as never);
      expect(verified.error).toBeUndefined();
      expect(verified.out).toHaveLength(stream.length);
    },
  );
});

describe("an unreadable seed: initialHistory and initialMessages with getters that throw, proxies", () => {
  const history = (parts: Record<string, unknown>) =>
    ({ messages: [], incomplete: [], issuers: [], durations: [], ...parts }) as unknown as ReasoningHistory;
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    return proxy;
  };
  const message = { id: "m1", role: "reasoning", content: SECRETS.thought };
  it.each([
    ["its message list's getter", throwingGetter(history({}) as never, "messages"), "initialHistory.messages"],
    ["a message's getter", history({ messages: [throwingGetter(message, "id")] }), "initialHistory.messages[0]"],
    ["a revoked proxy as its issuer list", history({ issuers: revoked() }), "initialHistory.issuers"],
    [
      "an issuer record's getter",
      history({ issuers: [throwingGetter({ subtype: "message", entityId: "m1" }, "entityId")] }),
      "initialHistory.issuers[0]",
    ],
  ])(
    "R-PROC-4 D-REDACT: initialHistory with %s throwing is a TypeError naming it, not the getter's error",
    (_name, seed, name) => {
      const create = () => reasoningPipeline(from([]), { initialHistory: seed as ReasoningHistory });
      expect(create).toThrow(new TypeError(`agui-reasoning: ${name} cannot be read (a read of it threw)`));
      // The middleware says so when it is made, as it does a bad pace, not at the agent's first run.
      const install = () => reasoningMiddleware({ producer: "P", initialHistory: seed as ReasoningHistory });
      expect(install).toThrow(new TypeError(`agui-reasoning: ${name} cannot be read (a read of it threw)`));
    },
  );
  it("R-PROC-4: a seed's sparse list (2³²−1 slots, a structured clone's) is refused by name at its first hole, not copied", () => {
    const sparse = Object.assign(new Array(2 ** 32 - 1), { 0: message });
    const notJson = new TypeError(
      "agui-reasoning: initialHistory.messages is not JSON data: a sparse array: JSON has no holes",
    );
    expect(() => reasoningPipeline(from([]), { initialHistory: history({ messages: sparse }) })).toThrow(notJson);
    expect(() => reasoningMiddleware({ producer: "P", initialHistory: history({ messages: sparse }) })).toThrow(
      notJson,
    );
    expect(() => reasoningPipeline(from([]), { initialMessages: sparse as never })).toThrow(
      new TypeError("agui-reasoning: initialMessages is not JSON data: a sparse array: JSON has no holes"),
    );
  });
  it("R-EVT-8 D-HISTORY-IDS: the middleware refuses an initialHistory naming one message twice when it is made", () => {
    const twice = history({
      messages: [
        { id: "u1", role: "user", content: "a" },
        { id: "u1", role: "user", content: "b" },
      ],
    });
    expect(() => reasoningMiddleware({ producer: "P", initialHistory: twice })).toThrow(
      /^agui-reasoning: initialHistory\.messages\[1\] repeats .* of initialHistory\.messages\[0\]/,
    );
  });
  it("R-PROC-4 D-REDACT: initialMessages with a message whose getter throws is a TypeError naming its index", () => {
    const create = () =>
      reasoningPipeline(from([]), { initialMessages: [message, throwingGetter(message, "role")] as never });
    expect(create).toThrow(new TypeError("agui-reasoning: initialMessages[1] cannot be read (a read of it threw)"));
    // Any field the history keeps, not only the ones the check reads.
    const content = () =>
      reasoningPipeline(from([]), { initialMessages: [throwingGetter(message, "content")] as never });
    expect(content).toThrow(new TypeError("agui-reasoning: initialMessages[0] cannot be read (a read of it threw)"));
    const seed = history({ messages: [{ ...message, content: () => SECRETS.thought }] });
    expect(() => reasoningMiddleware({ producer: "P", initialHistory: seed })).toThrow(
      new TypeError("agui-reasoning: initialHistory.messages[0] is not JSON data: it holds a function"),
    );
  });

  it.each([
    ["a string startedAt", { kind: "message", id: "m1", startedAt: "0", startObserved: true }],
    ["a fractional endedAt", { kind: "message", id: "m1", startedAt: 0, startObserved: true, endedAt: 1.5 }],
  ])(
    "D-DURATION D-HISTORY-IDS: initialHistory with a duration record of %s is refused naming it, as parseHistory refuses it",
    (_name, record) => {
      const seed = history({ messages: [message], durations: [record] });
      const refusal = new TypeError(
        "agui-reasoning: initialHistory.durations[0] must have an integer `startedAt` (and `endedAt`, if any) in milliseconds",
      );
      expect(() => reasoningPipeline(from([]), { initialHistory: seed })).toThrow(refusal);
      expect(() => reasoningMiddleware({ producer: "P", initialHistory: seed })).toThrow(refusal);
    },
  );

  it("D-NO-ALIAS D-KEEPER: the pipeline keeps its own copy of the seed: an app editing the objects it gave afterwards changes neither the history nor the run input", () => {
    const given = () => ({
      messages: [{ id: "r1", role: "reasoning", content: "thought", encryptedValue: "VALUE" }],
      issuers: [{ subtype: "message", entityId: "r1", issuer: "P" }],
    });
    // What a UI store does to messages it normalizes: drops the fields it does not know.
    const edit = (messages: Record<string, unknown>[]) => {
      delete messages[0]!.encryptedValue;
      messages[0]!.content = "edited";
    };
    const fromMessages = given();
    const facade = reasoningPipeline(from([]), { producer: "P", initialMessages: fromMessages.messages as never });
    edit(fromMessages.messages);
    const fromHistory = given();
    const operator = deriveHistory({ producer: "P", initialHistory: history(fromHistory) });
    edit(fromHistory.messages);
    const derived = runOperator([], operator as unknown as OperatorFunction<unknown, ReasoningHistory>).out;
    const fromKept = given();
    const middleware = reasoningMiddleware({ producer: "P", initialHistory: history(fromKept) });
    edit(fromKept.messages);
    for (const h of [facade.history, derived.at(-1)!, middleware.history!]) {
      const kept = [{ id: "r1", role: "reasoning", content: "thought", encryptedValue: "VALUE" }];
      expect(h.messages).toEqual(kept);
      expect(toRunInputMessages(h, { producer: "P" })).toEqual(kept);
    }
  });
});

describe("non-object events through the single operators", () => {
  // Stages after enforcement expect validated events, but still must not crash on values that are not objects.
  const operators: readonly [string, () => OperatorFunction<unknown, unknown>][] = [
    ["enforceSchema", () => enforceSchema({ onWarning: () => {} })],
    ["expandChunks", () => expandChunks() as OperatorFunction<unknown, unknown>],
    ["verifyDiscipline", () => verifyDiscipline() as OperatorFunction<unknown, unknown>],
    ["deriveHistory", () => deriveHistory() as unknown as OperatorFunction<unknown, unknown>],
  ];

  it.each(operators)(
    "R-PROC-4: %s rejects every non-object value with MALFORMED_EVENT at its index",
    (_name, operator) => {
      for (const { value, label } of NON_OBJECTS.filter((n) => !n.label.startsWith("an object"))) {
        const run = runOperator([ev.runStarted(), value()], operator());
        expect({ label, failure: failureOf(run.error) }).toEqual({
          label,
          failure: expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: 1 }),
        });
      }
    },
  );

  it("R-PROC-4: upcastThinking passes non-objects through unchanged (enforcement is the judge)", () => {
    const values = NON_OBJECTS.map((n) => n.value());
    const run = runOperator(values, upcastThinking());
    expect(run.error).toBeUndefined();
    expect(run.out).toHaveLength(values.length);
    run.out.forEach((out, i) => expect(Object.is(out, values[i] as AguiEvent)).toBe(true));
  });
});
