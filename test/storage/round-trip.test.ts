/**
 * D-HISTORY-IDS for the writers of the stored form: whatever `serializeHistory`, `historyToJSON` or
 * `saveHistory` into a shipped store accepts, `parseHistory` (and the store's `load`) reads back
 * equal (toEqual) to what was given; whatever would not read back so is refused when written, a
 * `TypeError` naming the JSON pointer in the words `parseHistory` uses, never the content (D-REDACT).
 * A record the writer accepts and the reader refuses loses the conversation at the next reload.
 *
 * A table of the known cases, then a property: hostile values (and plain JSON ones) put at random
 * places of a valid history the pipeline derived — deep in metadata, in content parts, in a tool
 * call's function, beside a message's fields, in the incomplete, issuer and duration records.
 */
import fc from "fast-check";
import type { Message } from "@ag-ui/core";
import type { ReasoningHistory } from "../../src";
import { historyToJSON, parseHistory, serializeHistory } from "../../src/storage/history-format";
import { saveHistory, type HistoryStore } from "../../src/storage/history-store";
import { InMemoryHistoryStore } from "../../src/storage/in-memory-store";
import { KeyValueHistoryStore } from "../../src/storage";
import { stripValues } from "../../src/storage/strip-values";
import { ev } from "../../src/testing/builders";
import { runPipeline } from "../../src/testing/run-pipeline";
import { caseCount } from "../support/case-count";
import { from } from "rxjs";
import { reasoningPipeline } from "../../src";
import { resumable, type PipelineSnapshot } from "../../src/resilience";

const SEED = Number(process.env.FC_SEED ?? 20261207);
const SECRET = "secret thought";

type Obj = Record<string, any>;

/** A valid history: reasoning with a value, a tool call with its result, issuers, durations, an incomplete item, content parts. */
const BASE: ReasoningHistory = (() => {
  const run = runPipeline([
    ev.runStarted("r1"),
    ev.reasoningStart("s1"),
    ev.reasoningChunk("m1", "Let me think", { metadata: { provider: { step: 1 } } }),
    ev.reasoningEnd("s1"),
    ev.encryptedValue("message", "m1", "gAAAA-opaque"),
    ev.textChunk("a1", "Calling"),
    ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
    ev.toolCallArgs("tc1", '{"q":"x"}'),
    ev.toolCallEnd("tc1"),
    ev.toolCallResult("t1", "tc1", "found"),
    ev.reasoningMessageStart("m2"),
    ev.reasoningMessageContent("m2", "cut"),
    ev.runError("boom"),
  ]);
  expect(run.error).toBeUndefined();
  const user = { id: "u1", role: "user", content: [{ type: "text", text: "hi" }] } as Message;
  return { ...run.history, messages: [user, ...run.history.messages] };
})();

/** A fresh, mutable copy of the valid history. */
const base = (): Obj => structuredClone(BASE);
const messageOf = (h: Obj, role: string): Obj => (h.messages as Obj[]).find((m) => m.role === role)!;
const assistantWithCalls = (h: Obj): Obj => (h.messages as Obj[]).find((m) => Array.isArray(m.toolCalls))!;

/** A string store over a Map, for the key-value store. */
function stringStore(): { get(k: string): string | undefined; set(k: string, v: string): void } {
  const strings = new Map<string, string>();
  return { get: (k) => strings.get(k), set: (k, v) => void strings.set(k, v) };
}

interface Written {
  /** The writer's text or JSON value, or the store after `saveHistory`. */
  readonly out?: unknown;
  /** The refusal, without its lead (`agui-reasoning: serializeHistory: `…). */
  readonly problem?: string;
  readonly error?: unknown;
}

/** Every writer of the stored form, each with the lead its refusal starts with. */
const WRITERS: readonly [string, (h: ReasoningHistory) => Promise<unknown>, string][] = [
  ["serializeHistory", async (h) => serializeHistory(h), "agui-reasoning: serializeHistory: "],
  ["historyToJSON", async (h) => historyToJSON(h), "agui-reasoning: historyToJSON: "],
  ...(
    [
      ["InMemoryHistoryStore", () => new InMemoryHistoryStore()],
      ["KeyValueHistoryStore", () => new KeyValueHistoryStore(stringStore())],
    ] as const
  ).map(([name, make]): [string, (h: ReasoningHistory) => Promise<unknown>, string] => [
    `saveHistory into ${name}`,
    async (h) => {
      const store: HistoryStore = make();
      await saveHistory(store, "t", h);
      return store;
    },
    `agui-reasoning: ${name}: refused to save a history that load would refuse: `,
  ]),
  // A store that cannot carry values: saveHistory reads the history itself (historyToJSON) to strip them.
  [
    "saveHistory into a store without values",
    async (h) => {
      const store = new InMemoryHistoryStore({ encryptedValues: false });
      await saveHistory(store, "t", h, { onWarning: () => {} });
      return store;
    },
    "agui-reasoning: saveHistory: not a history a store can keep: ",
  ],
];

async function write(
  writer: (h: ReasoningHistory) => Promise<unknown>,
  lead: string,
  h: ReasoningHistory,
): Promise<Written> {
  try {
    return { out: await writer(h) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // saveHistory refuses what every way in refuses (checkHistory) before the store sees it.
    const leads = [lead, "agui-reasoning: saveHistory: not a history a store can keep: "];
    const found = leads.find((l) => message.startsWith(l));
    return { error, problem: found === undefined ? `(another lead) ${message}` : message.slice(found.length) };
  }
}

/** What was written read back: by `parseHistory`, or by the store's `load`. */
async function readBack(name: string, out: unknown): Promise<ReasoningHistory | undefined> {
  if (name === "serializeHistory" || name === "historyToJSON") return parseHistory(out);
  return (out as HistoryStore).load("t");
}

/**
 * The property for one history: every writer refuses it with the same problem (a TypeError naming a
 * JSON pointer, no content), or every writer accepts it and it reads back equal. Returns the problem.
 */
async function expectRoundTrip(h: ReasoningHistory): Promise<string | undefined> {
  const outcomes: [string, Written][] = [];
  for (const [name, writer, lead] of WRITERS) outcomes.push([name, await write(writer, lead, h)]);
  const [, first] = outcomes[0]!;
  for (const [name, outcome] of outcomes) {
    if (outcome.problem !== undefined) {
      expect({ name, type: (outcome.error as Error).constructor.name }).toEqual({ name, type: "TypeError" });
      expect({ name, message: (outcome.error as Error).message }).not.toEqual({
        name,
        message: expect.stringContaining(SECRET),
      });
    }
    // One verdict, in one set of words (D-PATHS): a pointer first.
    expect({ name, problem: outcome.problem }).toEqual({ name, problem: first.problem });
    if (outcome.problem === undefined) {
      const back = await readBack(name, outcome.out);
      // A store without values keeps the history without them (stripped, with a warning, R-REASON-19).
      const kept = name === "saveHistory into a store without values" ? stripValues(h).history : h;
      expect({ name, back }).toEqual({ name, back: kept });
    }
  }
  if (first.problem !== undefined) expect(first.problem).toMatch(/^\/\S* /);
  return first.problem;
}

// ---------------------------------------------------------------------------------------------
// The known cases
// ---------------------------------------------------------------------------------------------

const sparse = (...items: [number, unknown][]): unknown[] => {
  const list: unknown[] = [];
  for (const [i, item] of items) list[i] = item;
  return list;
};
const cyclic = (): Obj => {
  const o: Obj = { note: SECRET };
  o.self = o;
  return o;
};
const throwingGetter = (): Obj =>
  Object.defineProperty({}, "x", {
    enumerable: true,
    get: () => {
      throw new Error(SECRET);
    },
  });

const NOT_PLAIN =
  "cannot be read as JSON data (it holds an object that is not a plain object (a Date, a Map, a boxed primitive…): JSON writes it otherwise)";
const NOT_KEPT = "is not kept by the stored form (it would read back otherwise)";

/** [case, how to make the valid history so, the problem every writer names]. */
const KNOWN: [string, (h: Obj) => void, string][] = [
  ["a Date in metadata", (h) => (h.messages[0].metadata = { at: new Date(0) }), `/messages/0 ${NOT_PLAIN}`],
  [
    "a Date as a tool call's arguments",
    (h) => (assistantWithCalls(h).toolCalls[0].function.arguments = new Date(0)),
    `/messages/2 ${NOT_PLAIN}`,
  ],
  [
    "a Map, a boxed string and a typed array in metadata",
    (h) => (h.messages[0].metadata = { m: new Map([[SECRET, 1]]) }),
    `/messages/0 ${NOT_PLAIN}`,
  ],
  [
    "a boxed string in content parts",
    (h) => (h.messages[0].content[0].text = new String(SECRET)),
    `/messages/0 ${NOT_PLAIN}`,
  ],
  [
    "a typed array in metadata",
    (h) => (h.messages[0].metadata = { bytes: new Uint8Array(2) }),
    `/messages/0 ${NOT_PLAIN}`,
  ],
  [
    "an undefined item in content parts",
    (h) => h.messages[0].content.push(undefined),
    "/messages/0 cannot be read as JSON data (an array item is undefined: JSON writes it as null)",
  ],
  [
    "an undefined item in a metadata list",
    (h) => (h.messages[1].metadata = { list: [SECRET, undefined] }),
    "/messages/1 cannot be read as JSON data (an array item is undefined: JSON writes it as null)",
  ],
  [
    "a sparse list of content parts",
    (h) => (h.messages[0].content = sparse([0, { type: "text", text: SECRET }], [2, { type: "text", text: "b" }])),
    "/messages/0 cannot be read as JSON data (a sparse array: JSON has no holes)",
  ],
  [
    "a sparse list in a tool call's function",
    (h) => (assistantWithCalls(h).toolCalls[0].function.extra = sparse([1, SECRET])),
    "/messages/2 cannot be read as JSON data (a sparse array: JSON has no holes)",
  ],
  [
    "a BigInt in metadata",
    (h) => (h.messages[0].metadata = { n: 1n }),
    "/messages/0 cannot be read as JSON data (it holds a BigInt)",
  ],
  [
    "NaN in metadata",
    (h) => (h.messages[0].metadata = { n: NaN }),
    "/messages/0 cannot be read as JSON data (it holds a number JSON cannot hold (NaN or ±Infinity))",
  ],
  [
    "Infinity in a content part",
    (h) => (h.messages[0].content[0].weight = -Infinity),
    "/messages/0 cannot be read as JSON data (it holds a number JSON cannot hold (NaN or ±Infinity))",
  ],
  [
    "-0 in metadata",
    (h) => (h.messages[0].metadata = { n: -0 }),
    "/messages/0 cannot be read as JSON data (it holds -0: JSON writes it as 0)",
  ],
  [
    "a cycle in metadata",
    (h) => (h.messages[0].metadata = cyclic()),
    "/messages/0 cannot be read as JSON data (it contains a cycle)",
  ],
  [
    "a getter that throws, deep in a tool call",
    (h) => (assistantWithCalls(h).toolCalls[0].function.extra = throwingGetter()),
    "/messages/2 cannot be read as JSON data (a read of it threw)",
  ],
  [
    "a function in metadata",
    (h) => (h.messages[0].metadata = { f: () => SECRET }),
    "/messages/0 cannot be read as JSON data (it holds a function)",
  ],
  [
    "a toJSON method in metadata",
    (h) => (h.messages[0].metadata = { t: { toJSON: () => SECRET } }),
    "/messages/0 cannot be read as JSON data (it holds a function)",
  ],
  [
    "a symbol-keyed entry in metadata",
    (h) => (h.messages[0].metadata = { [Symbol("s")]: SECRET }),
    "/messages/0 cannot be read as JSON data (it holds a symbol-keyed entry: JSON leaves it out)",
  ],
  [
    "a list with an entry that is not an item",
    (h) => (h.messages[0].metadata = { list: Object.assign([1], { note: SECRET }) }),
    "/messages/0 cannot be read as JSON data (an array with an entry that is not an item: JSON leaves it out)",
  ],
  [
    "a tool call's arguments that are not a string",
    (h) => (assistantWithCalls(h).toolCalls[0].function.arguments = { q: SECRET }),
    "/messages/2 is not an AG-UI 1.0 message: the schema rejects /toolCalls/0/function/arguments (expected string, received object)",
  ],
  [
    "a message the schema refuses",
    (h) => (h.messages[0].content = 42),
    "/messages/0 is not an AG-UI 1.0 message: the schema rejects /content (matches none of the allowed shapes, received number)",
  ],
  [
    "a repeated message id",
    (h) => h.messages.push({ ...h.messages[0] }),
    '/messages/5/id repeats the id "u1": a history holds each message once (R-EVT-8)',
  ],
  [
    "a field of an incomplete item the reader does not keep",
    (h) => (h.incomplete[0].note = SECRET),
    `/incomplete/0/note ${NOT_KEPT}`,
  ],
  [
    "a field of an issuer record the reader does not keep",
    (h) => (h.issuers[0].note = SECRET),
    `/issuers/0/note ${NOT_KEPT}`,
  ],
  ["an issuer `null` (read back as undefined)", (h) => (h.issuers[0].issuer = null), `/issuers/0/issuer ${NOT_KEPT}`],
  [
    "an issuer that is not a string",
    (h) => (h.issuers[0].issuer = 7),
    "/issuers/0/issuer must be a string or null (got number)",
  ],
  [
    "a duration with an end and no endObserved",
    (h) => delete h.durations[0].endObserved,
    "/durations/0/endObserved must be a boolean (got undefined)",
  ],
  [
    "a duration's field the reader does not keep",
    (h) => (h.durations[0].note = SECRET),
    `/durations/0/note ${NOT_KEPT}`,
  ],
  [
    "a Date as a duration's start",
    (h) => (h.durations[0].startedAt = new Date(0)),
    `/durations/0/startedAt ${NOT_PLAIN}`,
  ],
  [
    "-0 as a duration's start",
    (h) => (h.durations[0].startedAt = -0),
    "/durations/0/startedAt cannot be read as JSON data (it holds -0: JSON writes it as 0)",
  ],
  [
    "a symbol-keyed field of an incomplete item",
    (h) => (h.incomplete[0][Symbol("s")] = SECRET),
    "/incomplete/0 cannot be read as JSON data (it holds a symbol-keyed entry: JSON leaves it out)",
  ],
  [
    "a Map in a field of an issuer record",
    (h) => (h.issuers[0].note = new Map([[SECRET, 1]])),
    `/issuers/0/note ${NOT_PLAIN}`,
  ],
  ["a field beside the four lists", (h) => (h.note = SECRET), `/note ${NOT_KEPT}`],
];

/** Values JSON writes as data that reads back equal: every writer keeps them, and parseHistory of a value reads them as text. */
const KEPT_AS_DATA: [string, (h: Obj) => void][] = [
  [
    "a class instance in metadata (JSON writes its own fields)",
    (h: Obj) => {
      class Step {
        kind = "search";
      }
      h.messages[0].metadata = { step: new Step() };
    },
  ],
  [
    "a metadata object without a prototype",
    (h: Obj) => (h.messages[0].metadata = Object.assign(Object.create(null), { a: 1 })),
  ],
  ["an undefined field (JSON leaves it out, as toEqual does)", (h: Obj) => (h.messages[0].name = undefined)],
  ["an own `__proto__` key in metadata", (h: Obj) => (h.messages[0].metadata = JSON.parse('{"__proto__":{"a":1}}'))],
];

describe("D-HISTORY-IDS the stored form round-trips: what a writer accepts reads back equal", () => {
  it("D-HISTORY-IDS: the valid history the cases start from is written, and read back equal, by every writer", async () => {
    expect(BASE.issuers.length).toBeGreaterThan(0);
    expect(BASE.incomplete.length).toBeGreaterThan(0);
    expect(BASE.durations.some((d) => d.endObserved !== undefined)).toBe(true);
    expect(await expectRoundTrip(base() as ReasoningHistory)).toBeUndefined();
  });

  it.each(KNOWN)(
    "D-HISTORY-IDS D-REDACT: %s is refused by every writer, naming the JSON pointer in parseHistory's words",
    async (_name, make, problem) => {
      const h = base();
      make(h);
      expect(await expectRoundTrip(h as ReasoningHistory)).toBe(problem);
    },
  );

  it("D-HISTORY-IDS: the words are parseHistory's own: a stored document holding the same fault is refused so", () => {
    const doc = historyToJSON(BASE) as unknown as Obj;
    const messages = structuredClone(doc.messages) as Obj[];
    messages[0]!.content = sparse([1, { type: "text", text: SECRET }]);
    expect(() => parseHistory({ ...doc, messages })).toThrow(
      "agui-reasoning: parseHistory: /messages/0 cannot be read as JSON data (a sparse array: JSON has no holes)",
    );
    messages[0]!.content = 42;
    expect(() => parseHistory(JSON.stringify({ ...doc, messages }))).toThrow(
      "agui-reasoning: parseHistory: /messages/0 is not an AG-UI 1.0 message: the schema rejects /content (matches none",
    );
  });

  it.each([...KEPT_AS_DATA, ["an issuer none was configured for", (h: Obj) => (h.issuers[0].issuer = undefined)]])(
    "D-HISTORY-IDS: %s is written and read back equal",
    async (_name, make) => {
      const h = base();
      make(h);
      expect(await expectRoundTrip(h as ReasoningHistory)).toBeUndefined();
    },
  );

  it("D-HISTORY-IDS D-DURATION: a history built before durations existed (no such list) is written with none and reads back with none", async () => {
    const h = base();
    delete h.durations;
    expect(await expectRoundTrip({ ...h, durations: [] } as unknown as ReasoningHistory)).toBeUndefined();
    expect(parseHistory(serializeHistory(h as ReasoningHistory))).toEqual({ ...h, durations: [] });
  });

  it("D-HISTORY-IDS: a value nested deeper than JSON.stringify recurses is written and read back whole", () => {
    const h = base();
    let deep: unknown = SECRET;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    h.messages[0].metadata = { deep };
    const text = serializeHistory(h as ReasoningHistory);
    // toEqual recurses too: the texts are compared.
    expect(serializeHistory(parseHistory(text))).toBe(text);
    expect(text).toContain(`${"[".repeat(20_000)}"${SECRET}"`);
  });
});

// ---------------------------------------------------------------------------------------------
// The reader given a value (not text) reads as strictly as the writers write
// ---------------------------------------------------------------------------------------------

/** What a `make` of the table does to a history, done to its stored form (the same four lists). */
const storedWith = (make: (h: Obj) => void): Obj => {
  const doc = structuredClone(historyToJSON(BASE)) as unknown as Obj;
  make(doc);
  return doc;
};

/** The refusal `read` throws, checked to carry no content (D-REDACT); `undefined` when it reads. */
function refusal(read: () => unknown): { readonly type: string; readonly message: string } | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    const e = error as Error;
    expect(e.message).not.toContain(SECRET);
    // No cause: a thrown getter's own error (which may quote content) is not passed on.
    expect(e.cause).toBeUndefined();
    return { type: e.constructor.name, message: e.message };
  }
}

/** The KNOWN cases a value in a message or a list entry makes: faults of the value itself, not of the history's shape. */
const VALUE_FAULTS = KNOWN.filter(([, , problem]) => problem.includes(" cannot be read as JSON data ("));

describe("D-HISTORY-IDS D-PATHS parseHistory of a value refuses what the writers refuse, in their words", () => {
  it("D-HISTORY-IDS: the table holds the values the brief names (and the stored form without them reads)", () => {
    expect(VALUE_FAULTS.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "a Date in metadata",
        "a Map, a boxed string and a typed array in metadata",
        "a function in metadata",
        "an undefined item in content parts",
        "NaN in metadata",
        "Infinity in a content part",
        "a sparse list of content parts",
        "a getter that throws, deep in a tool call",
        "a symbol-keyed entry in metadata",
        "-0 in metadata",
        "a Date as a duration's start",
      ]),
    );
    expect(parseHistory(storedWith(() => {}))).toEqual(BASE);
  });

  it.each(VALUE_FAULTS)(
    "D-HISTORY-IDS D-REDACT: %s: parseHistory(object) refuses it as serializeHistory does, naming the pointer",
    (_name, make, problem) => {
      const h = base();
      make(h);
      const written = refusal(() => serializeHistory(h as ReasoningHistory));
      expect(written).toEqual({ type: "TypeError", message: `agui-reasoning: serializeHistory: ${problem}` });
      const read = refusal(() => parseHistory(storedWith(make)));
      expect(read).toEqual({ type: "TypeError", message: `agui-reasoning: parseHistory: ${problem}` });
    },
  );

  it.each(KEPT_AS_DATA)(
    "D-HISTORY-IDS: %s: what the writers accept, parseHistory(object) reads as it reads the text",
    (_name, make) => {
      const h = base();
      make(h);
      expect(refusal(() => serializeHistory(h as ReasoningHistory))).toBeUndefined();
      const doc = storedWith(make);
      expect(parseHistory(doc)).toEqual(parseHistory(JSON.stringify(doc)));
      expect(parseHistory(doc)).toEqual(h);
    },
  );

  it("D-HISTORY-IDS: text holds JSON data only: a -0 in stored text reads as 0, as a writer wrote it", () => {
    const text = serializeHistory(BASE).replace(/"startedAt":\d+/, '"startedAt":-0');
    expect(Object.is(parseHistory(text).durations[0]!.startedAt, 0)).toBe(true);
  });

  it.each([
    [
      "a Date in a message's metadata",
      (h: Obj) => (h.messages[0].metadata = { at: new Date(0) }),
      "/messages/0",
      NOT_PLAIN,
    ],
    [
      "-0 as a duration's start",
      (h: Obj) => (h.durations[0].startedAt = -0),
      "/durations/0/startedAt",
      "cannot be read as JSON data (it holds -0: JSON writes it as 0)",
    ],
  ])(
    "D-HISTORY-IDS D-PATHS: resumeFrom given a snapshot value holding %s refuses it as parseHistory does; through JSON it reads",
    (_name, make, pointer, problem) => {
      const quiet = { quiet: true, onWarning: () => {} };
      const first = reasoningPipeline(from([{ type: "RUN_STARTED", threadId: "t1", runId: "r1" }]), quiet);
      first.events$.subscribe({ error: () => {} });
      const snapshot = structuredClone(first.exportState()) as unknown as Obj;
      snapshot.history.history = storedWith(make);
      const resume = (s: unknown) => () =>
        reasoningPipeline(from([]), { ...quiet, resumeFrom: resumable(s as PipelineSnapshot) });
      expect(refusal(resume(snapshot))).toEqual({
        type: "TypeError",
        message: `agui-reasoning: resumeFrom: /history/history${pointer} ${problem}`,
      });
      expect(refusal(resume(JSON.stringify(snapshot)))).toBeUndefined();
    },
  );
});

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

/** Values that break a naive writer, each made fresh (a cycle, a getter, a proxy). */
const HOSTILE: Record<string, () => unknown> = {
  date: () => new Date(0),
  map: () => new Map([[SECRET, 1]]),
  set: () => new Set([SECRET]),
  boxed: () => new String(SECRET),
  typed: () => new Uint8Array(3),
  regexp: () => /secret thought/,
  error: () => new Error(SECRET),
  undefined: () => undefined,
  undefinedItem: () => [SECRET, undefined],
  sparse: () => sparse([2, SECRET]),
  nonItem: () => Object.assign([SECRET], { note: SECRET }),
  bigint: () => 10n,
  nan: () => NaN,
  infinity: () => Infinity,
  negativeZero: () => -0,
  function: () => () => SECRET,
  symbol: () => Symbol(SECRET),
  symbolKey: () => ({ [Symbol("k")]: SECRET }),
  toJSON: () => ({ toJSON: () => SECRET }),
  cycle: cyclic,
  getter: throwingGetter,
  revoked: () => {
    const { proxy, revoke } = Proxy.revocable({ note: SECRET }, {});
    revoke();
    return proxy;
  },
  classInstance: () =>
    new (class Step {
      note = SECRET;
    })(),
  nullPrototype: () => Object.assign(Object.create(null), { note: SECRET }),
  null: () => null,
  string: () => SECRET,
};

const valueArb: fc.Arbitrary<() => unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.values(HOSTILE)) },
  // Plain JSON values (fast-check's jsonValue): these the writers keep where the schema allows them.
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => () => structuredClone(v)) },
);

/** Where a value goes: a field of some part of the history, under `wrap` levels of objects and lists. */
const PLACES = [
  "metadata",
  "messageField",
  "contentPart",
  "partField",
  "functionField",
  "toolCallField",
  "incomplete",
  "issuer",
  "duration",
  "top",
] as const;
const KEYS = [
  "note",
  "content",
  "name",
  "arguments",
  "id",
  "issuer",
  "startedAt",
  "reason",
  "encryptedValue",
  "metadata",
];

const placeArb = fc.record({
  place: fc.constantFrom(...PLACES),
  index: fc.nat(),
  key: fc.constantFrom(...KEYS),
  wrap: fc.array(fc.boolean(), { maxLength: 3 }),
});

type Place = { place: (typeof PLACES)[number]; index: number; key: string; wrap: boolean[] };

function insert(h: Obj, where: Place, make: () => unknown): void {
  let value = make();
  // true: inside an object; false: inside a list, after an item.
  for (const inObject of where.wrap) value = inObject ? { [where.key]: value } : [SECRET, value];
  const pick = <T>(list: T[]): T => list[where.index % list.length]!;
  const set = (target: Obj): void => void (target[where.key] = value);
  const messages = h.messages as Obj[];
  switch (where.place) {
    case "metadata": {
      const message = pick(messages);
      message.metadata = { ...message.metadata, [where.key]: value };
      return;
    }
    case "messageField":
      return set(pick(messages));
    case "contentPart":
      return void (messageOf(h, "user").content as unknown[]).splice(where.index % 2, 0, value);
    case "partField":
      return set(messageOf(h, "user").content[0]);
    case "functionField":
      return set(assistantWithCalls(h).toolCalls[0].function);
    case "toolCallField":
      return set(assistantWithCalls(h).toolCalls[0]);
    case "incomplete":
      return set(pick(h.incomplete));
    case "issuer":
      return set(pick(h.issuers));
    case "duration":
      return set(pick(h.durations));
    case "top":
      return set(h);
  }
}

describe("D-HISTORY-IDS the stored form round-trips (property)", () => {
  it("D-HISTORY-IDS D-REDACT D-PATHS: any value anywhere in a valid history: every writer refuses it alike, naming a pointer, or it reads back equal", async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(placeArb, valueArb, async (where, make) => {
        const h = base();
        insert(h, where, make);
        const problem = await expectRoundTrip(h as ReasoningHistory);
        if (problem === undefined) accepted++;
        else refused++;
      }),
      { seed: SEED, numRuns: caseCount(400) },
    );
    // Both sides of the property are reached.
    expect(accepted).toBeGreaterThan(caseCount(400) / 20);
    expect(refused).toBeGreaterThan(caseCount(400) / 4);
  });
});
