/**
 * Hostile objects nested in an event (issue 12, finding 3): `metadata`, activity content, snapshot
 * messages and tool-result parts that are Proxies with broken traps, getters that throw, revoked
 * proxies, cycles. Every read of them happens where a throw becomes MALFORMED_EVENT (index, type,
 * field), in the facade and in the history stage run alone (docs/security.md), and the history never
 * stores them: it stores its own copies (D-NO-ALIAS).
 */
import { deriveHistory } from "../../src/pipeline/operators";
import { ev } from "../../src/testing/builders";
import type { AguiEvent } from "../../src/core/types";
import { expectNoPollution, failureOf, prototypeFingerprint, runFacade, runOperator } from "./support/run";
import { revokedProxy, SECRETS } from "./support/streams";

let fingerprint: string[];
beforeAll(() => {
  fingerprint = prototypeFingerprint();
});
afterEach(() => expectNoPollution(fingerprint));

const refuse = (): never => {
  throw new TypeError(`trap refuses ${SECRETS.thought}`);
};

/** Hostile values for an object-typed field, each a fresh one per call. */
const HOSTILE: readonly { readonly label: string; readonly value: () => Record<string, unknown> }[] = [
  { label: "a Proxy whose ownKeys returns duplicates", value: () => new Proxy({}, { ownKeys: () => ["a", "a"] }) },
  { label: "a Proxy whose ownKeys throws", value: () => new Proxy({}, { ownKeys: refuse }) },
  { label: "a Proxy whose get throws", value: () => new Proxy({ a: 1 }, { get: refuse }) },
  {
    label: "an object whose getter throws",
    value: () => Object.defineProperty({}, "a", { enumerable: true, get: refuse }),
  },
  {
    label: "an object whose nested getter throws",
    value: () => ({ list: [1, Object.defineProperty({}, "b", { enumerable: true, get: refuse })] }),
  },
  { label: "a revoked proxy", value: () => revokedProxy() as Record<string, unknown> },
  { label: "an object nesting a revoked proxy", value: () => ({ inner: revokedProxy() }) },
  // Not JSON data: no wire carries them, and exportState()/storage could not hold them (found by the structure fuzz).
  { label: "an object nesting a BigInt", value: () => ({ inner: { n: 1n } }) },
  { label: "an object nesting a symbol", value: () => ({ inner: { s: Symbol("x") } }) },
  { label: "an object nesting NaN", value: () => ({ inner: [NaN] }) },
  { label: "an object nesting Infinity", value: () => ({ list: [Infinity] }) },
  // A hole is not JSON data either; a structured clone keeps one, and a sparse array claims 2³²−1 slots for nothing.
  { label: "an object nesting an array with a hole", value: () => ({ list: [1, , 3] }) }, // eslint-disable-line no-sparse-arrays
  {
    label: "an object nesting a sparse array of 2³²−1 slots",
    value: () => ({ list: Object.assign(new Array(2 ** 32 - 1), { 0: 1 }) }),
  },
  {
    label: "a cycle",
    value: () => {
      const o: Record<string, unknown> = { a: {} };
      (o.a as Record<string, unknown>).back = o;
      return o;
    },
  },
];

/** Streams placing `bad` where an event nests an object; `at` is the index of the event carrying it. */
const PLACES: readonly {
  readonly label: string;
  readonly events: (bad: Record<string, unknown>) => AguiEvent[];
  readonly at: number;
}[] = [
  {
    label: "TEXT_MESSAGE_START metadata",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.textStart("a1", "assistant", { metadata: bad })],
  },
  {
    label: "REASONING_MESSAGE_START metadata",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.reasoningMessageStart("m1", { metadata: bad })],
  },
  {
    label: "TOOL_CALL_START metadata",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.toolCallStart("tc1", "search", { metadata: bad })],
  },
  {
    label: "TEXT_MESSAGE_CHUNK opener metadata",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.textChunk("a1", "hi", { metadata: bad })],
  },
  {
    label: "REASONING_MESSAGE_CHUNK opener metadata",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.reasoningChunk("m1", "hm", { metadata: bad })],
  },
  {
    label: "TOOL_CALL_CHUNK opener metadata",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.toolCallChunk("tc1", "search", "{}", { metadata: bad })],
  },
  {
    label: "REASONING_MESSAGE_CONTENT metadata",
    at: 2,
    events: (bad) => [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "x", { metadata: bad }),
    ],
  },
  {
    label: "TOOL_CALL_RESULT content part",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.toolCallResult("t1", "tc1", "", { content: [bad] })],
  },
  {
    label: "THINKING_START metadata (with a title to merge in)",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.thinkingStart({ title: SECRETS.title, metadata: bad })],
  },
  {
    label: "ACTIVITY_SNAPSHOT content",
    at: 1,
    events: (bad) => [ev.runStarted(), ev.activitySnapshot("act1", "plan", bad)],
  },
  {
    label: "MESSAGES_SNAPSHOT message metadata",
    at: 1,
    events: (bad) => [
      ev.runStarted(),
      ev.messagesSnapshot([{ id: "u1", role: "user", content: "q", metadata: bad } as never]),
    ],
  },
];

/** A span's metadata is never stored: upcasting reads its top level only (to merge the title in), nothing nested. */
const readsNested = (place: (typeof PLACES)[number]): boolean => !place.label.startsWith("THINKING");
const CASES = PLACES.flatMap((place) =>
  HOSTILE.filter((hostile) => readsNested(place) || !/nest|cycle/.test(hostile.label)).map(
    (hostile) => [place.label, hostile.label, place, hostile] as const,
  ),
);

describe("hostile objects nested in events", () => {
  it.each(CASES)(
    "R-PROC-4 D-NO-ALIAS: %s as %s fails MALFORMED_EVENT at its index through the facade",
    (_p, _h, place, hostile) => {
      const events = place.events(hostile.value());
      const run = runFacade([...events, ev.runFinished()]);
      expect(failureOf(run.error)).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: place.at }));
      expect((run.error as Error).message).not.toContain(SECRETS.thought);
      expect((run.error as Error).message).not.toContain(SECRETS.title);
      expect(run.events).toEqual(events.slice(0, place.at));
    },
  );

  it.each(CASES)(
    "R-PROC-4 D-NO-ALIAS: %s as %s fails MALFORMED_EVENT in the history stage run alone",
    (_p, _h, place, hostile) => {
      if (/CHUNK|THINKING/.test(place.label)) return; // the history stage takes expanded, upcast events
      const run = runOperator(place.events(hostile.value()), deriveHistory({ onWarning: () => {} }) as never);
      expect(failureOf(run.error)).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: place.at }));
      expect((run.error as Error).message).toMatch(/could not be read as JSON data|must be/);
      expect((run.error as Error).message).not.toContain(SECRETS.thought);
    },
  );

  it("R-META-4 D-NO-ALIAS: a frozen or null-prototype metadata object is data like any other (copied, not rejected)", () => {
    const frozen = Object.freeze({ tags: Object.freeze(["x"]) });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: 1 });
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningMessageStart("m1", { metadata: frozen }),
      ev.reasoningMessageEnd("m1", { metadata: bare }),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    const metadata = (run.history.messages[0] as { metadata: Record<string, unknown> }).metadata;
    expect(metadata).toEqual({ tags: ["x"], k: 1 });
    expect(metadata.tags).not.toBe(frozen.tags);
  });

  it("D-NO-ALIAS: undefined entries are kept as JSON keeps them (left out of objects, null in arrays), so a resumed history is the same", () => {
    const metadata = { gone: undefined, list: [1, undefined], inner: { alsoGone: undefined, kept: 2 } };
    const run = runFacade([
      ev.runStarted(),
      ev.reasoningMessageStart("m1", { metadata }),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]);
    expect(failureOf(run.error)).toBeUndefined();
    const stored = (run.history.messages[0] as { metadata: Record<string, unknown> }).metadata;
    expect(stored).toStrictEqual({ list: [1, null], inner: { kept: 2 } });
    expect(JSON.parse(JSON.stringify(stored))).toStrictEqual(stored);
  });
});
