/**
 * Hostile ids and keys (issue 6, "Hostile and unusual input"): ids that name Object.prototype
 * members, the empty id, a 1 MB id; `__proto__`/`constructor` as keys in open objects. Ids are
 * opaque (R-EVT-9): each works like any other id in every family and pollutes nothing.
 */
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  upcastThinking,
  verifyDiscipline,
} from "../../src/pipeline/operators";
import { from } from "rxjs";
import { truncateId } from "../../src/core/errors";
import { formatWarning } from "../../src/core/warnings";
import { ev } from "../../src/testing/builders";
import {
  expectNoPollution,
  expectProtocolError,
  failureOf,
  prototypeFingerprint,
  runFacade,
  runOperator,
} from "./support/run";
import {
  chunkStreamWithId,
  HOSTILE_IDS,
  reasoningStreamWithId,
  SECRETS,
  toolStreamWithId,
  violationsWithId,
} from "./support/streams";

let fingerprint: string[];
beforeAll(() => {
  fingerprint = prototypeFingerprint();
});
afterEach(() => expectNoPollution(fingerprint));

describe.each(HOSTILE_IDS)("hostile id $label", ({ id }) => {
  it("R-EVT-9: spans, reasoning messages, subagents, steps and a stored value all work under this id", () => {
    const events = reasoningStreamWithId(id);
    const run = runFacade(events);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.events).toEqual(events);
    expect(run.history).toEqual({
      messages: [{ id, role: "reasoning", content: SECRETS.thought, subagentRunId: id, encryptedValue: SECRETS.value }],
      incomplete: [],
      issuers: [{ subtype: "message", entityId: id, issuer: "hostile-test" }],
    });
    expect(run.warnings).toEqual([]);
  });

  it("R-EVT-9: a text message and a tool call under this id, with a value on the call and a result", () => {
    const run = runFacade(toolStreamWithId(id));
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.history.messages).toEqual([
      {
        id,
        role: "assistant",
        content: SECRETS.answer,
        toolCalls: [
          {
            id,
            type: "function",
            function: { name: "search", arguments: SECRETS.args },
            encryptedValue: SECRETS.value,
          },
        ],
      },
      { id: `${id}-result`, role: "tool", toolCallId: id, content: SECRETS.result },
    ]);
    expect(run.history.issuers).toEqual([{ subtype: "tool-call", entityId: id, issuer: "hostile-test" }]);
  });

  it("R-EVT-9 R-STREAM-10/12: chunked reasoning and a chunked tool call under this id expand and assemble", () => {
    const run = runFacade(chunkStreamWithId(id));
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "RUN_FINISHED",
    ]);
    expect(run.history.messages).toEqual([
      { id, role: "reasoning", content: SECRETS.thought + SECRETS.thought },
      {
        id: `${id}-answer`,
        role: "assistant",
        content: "",
        toolCalls: [{ id, type: "function", function: { name: "search", arguments: SECRETS.args + SECRETS.args } }],
      },
    ]);
  });

  it("R-EVT-9: the single operators, chained, emit what the facade emits and derive the same history", () => {
    for (const events of [reasoningStreamWithId(id), toolStreamWithId(id), chunkStreamWithId(id)]) {
      const facade = runFacade(events);
      const opts = { producer: "hostile-test", onWarning: () => {} };
      const chain = runOperator(events, (source) =>
        source.pipe(upcastThinking(opts), enforceSchema(opts), expandChunks(opts), verifyDiscipline(opts)),
      );
      expect(chain.error).toBeUndefined();
      expect(chain.out).toEqual(facade.events);
      const histories: unknown[] = [];
      from(chain.out)
        .pipe(deriveHistory(opts))
        .subscribe({ next: (h) => histories.push(h), error: (e: unknown) => histories.push(e) });
      expect(histories[histories.length - 1]).toEqual(facade.history);
    }
  });

  it.each(violationsWithId(id))(
    "R-EVT-9: $code names this id (truncated in the message) and nothing else",
    ({ code, events }) => {
      const run = runFacade(events);
      const error = expectProtocolError(run.error);
      expect({ code: error.code, eventIndex: error.eventIndex }).toEqual({ code, eventIndex: events.length - 1 });
      expect(error.ids).toContain(id);
      expect(error.message).toContain(JSON.stringify(truncateId(id)));
      // A 1 MB id costs at most 120 characters of any message.
      expect(error.message.length).toBeLessThan(1000);
    },
  );
});

describe("hostile keys in open objects", () => {
  // JSON.parse makes `__proto__` an own data property, as it arrives from the wire.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the parsed shape
  const parsed = <T>(json: string): T => JSON.parse(json) as T;

  it("R-META-2/4: metadata keys __proto__, constructor and toString are data: kept, merged key by key, polluting nothing", () => {
    const start = parsed<Record<string, unknown>>(
      '{"type":"REASONING_MESSAGE_START","messageId":"m1","role":"reasoning","metadata":{"__proto__":{"polluted":"start"},"constructor":{"prototype":{"polluted":1}},"toString":7}}',
    );
    const content = parsed<Record<string, unknown>>(
      '{"type":"REASONING_MESSAGE_CONTENT","messageId":"m1","delta":"x","metadata":{"__proto__":{"polluted":"content"},"hasOwnProperty":false}}',
    );
    const run = runFacade([ev.runStarted(), start, content, ev.reasoningMessageEnd("m1"), ev.runFinished()]);
    expect(failureOf(run.error)).toBeUndefined();
    const metadata = (run.history.messages[0] as { metadata: Record<string, unknown> }).metadata;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(metadata, "__proto__")?.value).toEqual({ polluted: "content" });
    expect(Object.getOwnPropertyDescriptor(metadata, "constructor")?.value).toEqual({ prototype: { polluted: 1 } });
    expect(Object.keys(metadata).sort()).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString"]);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- a hostile own property named toString, read as data
    expect(metadata.toString).toBe(7);
  });

  it("R-PROC-2/7: an undescribed __proto__ property of a closed event is stripped with a warning, not assigned", () => {
    const event = parsed<Record<string, unknown>>(
      '{"type":"REASONING_START","messageId":"s1","__proto__":{"polluted":true}}',
    );
    const run = runFacade([ev.runStarted(), event, ev.reasoningEnd("s1"), ev.runFinished()]);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.warnings.map((w) => [w.code, w.path])).toEqual([["STRIPPED_PROPERTY", "/__proto__"]]);
    const forwarded = run.events[1]!;
    expect(Object.getPrototypeOf(forwarded)).toBe(Object.prototype);
    expect(Object.keys(forwarded)).toEqual(["type", "messageId"]);
  });

  it("R-SNAP-3: activity content with a __proto__ key is patched as data; paths through constructor/prototype do not apply", () => {
    const snapshot = parsed<Record<string, unknown>>(
      '{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"plan","content":{"__proto__":{"step":1}}}',
    );
    const ok = {
      type: "ACTIVITY_DELTA",
      messageId: "act",
      activityType: "plan",
      patch: [{ op: "add", path: "/__proto__/polluted", value: true }],
    };
    const bad = {
      type: "ACTIVITY_DELTA",
      messageId: "act",
      activityType: "plan",
      patch: [{ op: "add", path: "/constructor/prototype/polluted", value: true }],
    };
    const run = runFacade([ev.runStarted(), snapshot, ok, bad, ev.runFinished()]);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.warnings.map((w) => [w.code, w.eventIndex])).toEqual([["ACTIVITY_SKIPPED", 3]]);
    const content = (run.history.messages[0] as { content: Record<string, unknown> }).content;
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(content, "__proto__")?.value).toEqual({ step: 1, polluted: true });
  });

  it("R-PASS-3: CUSTOM, RAW and state values with __proto__ keys pass through unchanged", () => {
    const custom = parsed<Record<string, unknown>>(
      '{"type":"CUSTOM","name":"__proto__","value":{"__proto__":{"polluted":true}}}',
    );
    const raw = parsed<Record<string, unknown>>(
      '{"type":"RAW","event":{"__proto__":{"polluted":true}},"source":"constructor"}',
    );
    const state = parsed<Record<string, unknown>>(
      '{"type":"STATE_SNAPSHOT","snapshot":{"__proto__":{"polluted":true}}}',
    );
    const run = runFacade([ev.runStarted(), custom, raw, state, ev.runFinished()]);
    expect(failureOf(run.error)).toBeUndefined();
    expect(run.events.slice(1, 4)).toEqual([custom, raw, state]);
    expect(run.events[1]).toBe(custom);
    expect(run.warnings).toEqual([]);
  });

  it("R-EVT-9: warnings naming a hostile id render it quoted and truncated", () => {
    const id = HOSTILE_IDS[HOSTILE_IDS.length - 1]!.id;
    const run = runFacade([ev.runStarted(), ev.encryptedValue("message", id, SECRETS.value), ev.runFinished()]);
    expect(run.warnings.map((w) => w.code)).toEqual(["UNKNOWN_ENTITY"]);
    const line = formatWarning(run.warnings[0]!);
    expect(line).toContain(JSON.stringify(truncateId(id)));
    expect(line.length).toBeLessThan(1000);
  });
});
