/**
 * Every way a history comes back into the package gives one answer on the same hand-built history
 * (D-HISTORY-IDS, D-PATHS): what one refuses, every other refuses — a `TypeError` naming where, never
 * what the caller's objects hold or threw (D-REDACT) — and none fails inside. The table of ways is
 * checked against the public API reports (etc/*.api.md): a way added there and not here fails.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { from, isObservable, of, type Observable } from "rxjs";
import * as main from "../../src";
import { resumable } from "../../src/resilience";
import * as stages from "../../src/stages";
import { IndexedDbHistoryStore, KeyValueHistoryStore } from "../../src/storage";

type History = main.ReasoningHistory;

/** The error `run` throws, rejects with, or gives its observable, if any. */
async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    const result = run();
    if (result instanceof Promise) await result;
    else if (isObservable(result)) {
      let error: unknown;
      result.subscribe({ error: (e: unknown) => (error = e) });
      return error;
    }
  } catch (e) {
    return e;
  }
  return undefined;
}

const quiet = { quiet: true, onWarning: () => {} };
const RUN_STARTED = { type: "RUN_STARTED", threadId: "t1", runId: "r1" };

/** A snapshot of a pipeline cut inside a run, whose history is `h`'s lists. */
function snapshotHolding(h: History): unknown {
  const first = main.reasoningPipeline(of(RUN_STARTED), quiet);
  first.events$.subscribe({ error: () => {} });
  const snapshot = JSON.parse(JSON.stringify(first.exportState())) as { history: { history: object } };
  snapshot.history.history = { ...snapshot.history.history, ...h };
  return snapshot;
}

/** A store that keeps nothing, declaring it cannot keep encrypted values: saveHistory strips for it. */
const strippingStore = {
  save: () => Promise.resolve(),
  load: () => Promise.resolve(undefined),
  capabilities: { encryptedValues: false },
};

const REACHED = new Error("the store reached its database");
const reachedDatabase = (): never => {
  throw REACHED;
};

/** [the way in, its call on a history]. */
const WAYS_IN: [string, (h: History) => unknown][] = [
  ["serializeHistory", (h) => main.serializeHistory(h)],
  ["historyToJSON", (h) => main.historyToJSON(h)],
  ["parseHistory", (h) => main.parseHistory({ format: main.HISTORY_FORMAT, version: 2, ...h })],
  ["saveHistory", (h) => main.saveHistory(new main.InMemoryHistoryStore(), "t1", h)],
  ["saveHistory (a store without encrypted values)", (h) => main.saveHistory(strippingStore, "t1", h, quiet)],
  ["InMemoryHistoryStore", (h) => new main.InMemoryHistoryStore().save("t1", h)],
  ["KeyValueHistoryStore", (h) => new KeyValueHistoryStore({ get: () => null, set: () => {} }).save("t1", h)],
  [
    "IndexedDbHistoryStore",
    // A history it takes reaches the database (here one that is not there); one it refuses does not.
    (h) =>
      new IndexedDbHistoryStore({ indexedDB: { open: reachedDatabase } }).save("t1", h).catch((e: unknown) => {
        if (e !== REACHED) throw e;
      }),
  ],
  ["messagesOf", (h) => main.messagesOf(h)],
  ["toRunInputMessages", (h) => main.toRunInputMessages(h, { producer: "p", ...quiet })],
  ["reasoningView", (h) => main.reasoningView(h)],
  ["reasoningView (not running)", (h) => main.reasoningView(h, undefined, { running: false })],
  ["reasoningPipeline", (h) => main.reasoningPipeline(from([]), { ...quiet, initialHistory: h }).history$],
  [
    "reasoningPipeline (initialMessages)",
    (h) => main.reasoningPipeline(from([]), { ...quiet, initialMessages: h.messages }).history$,
  ],
  [
    "reasoningPipeline (resumeFrom)",
    (h) => main.reasoningPipeline(from([]), { ...quiet, resumeFrom: resumable(snapshotHolding(h) as never) }).history$,
  ],
  ["deriveHistory", (h) => of().pipe(main.deriveHistory({ ...quiet, initialHistory: h }))],
  ["deriveHistory (initialMessages)", (h) => of().pipe(main.deriveHistory({ ...quiet, initialMessages: h.messages }))],
  ["createHistoryStage", (h) => stages.createHistoryStage({ ...quiet, initialHistory: h }).init()],
  ["reasoningMiddleware", (h) => main.reasoningMiddleware({ producer: "p", ...quiet, initialHistory: h })],
  [
    "reasoningMiddleware (run input)",
    (h) =>
      main.reasoningMiddleware({ producer: "p", ...quiet })(
        {
          threadId: "t1",
          runId: "r1",
          messages: [...h.messages],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
        },
        { run: () => of(RUN_STARTED, { type: "RUN_FINISHED", threadId: "t1", runId: "r1" }) },
      ) as Observable<unknown>,
  ],
];

const call0 = { id: "c0", type: "function", function: { name: "f", arguments: "{}" } };
const call2 = { id: "c2", type: "function", function: { name: "g", arguments: "{}" } };
const withMessage = (message: object): History =>
  ({
    messages: [{ id: "u1", role: "user", content: "secret thought" }, message],
    incomplete: [],
    issuers: [],
    durations: [],
  }) as unknown as History;
const assistant = (toolCalls: unknown) => withMessage({ id: "a1", role: "assistant", content: "", toolCalls });

describe("D-HISTORY-IDS D-PATHS: every way a history comes back in refuses a hole in its tool calls", () => {
  it.each([
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    ["[call0, , call2]", () => assistant([call0, , call2])],
    ["Object.assign(new Array(3), {0: call0})", () => assistant(Object.assign(new Array(3), { 0: call0 }))],
  ])("%s", async (_, holey) => {
    for (const [way, run] of WAYS_IN) {
      const error = await errorOf(() => run(holey()));
      expect([way, error]).toEqual([way, expect.any(TypeError)]);
      const message = (error as Error).message;
      // Named by where it is (the second message), refused as an event's hole is: JSON has none.
      expect([way, message]).toEqual([way, expect.stringMatching(/^agui-reasoning: .*messages(\/|\[)1/i)]);
      expect([way, message]).toEqual([way, expect.stringContaining("JSON has no holes")]);
      expect(message).not.toContain("secret");
    }
  });

  it("the same history without the hole goes in every way", async () => {
    for (const [way, run] of WAYS_IN)
      expect([way, await errorOf(() => run(assistant([call0, call2])))]).toEqual([way, undefined]);
  });

  it("the table names every public function, store and option that takes a history (etc/*.api.md)", () => {
    const reports = ["", "-storage", "-stages", "-resilience"].map((suffix) =>
      readFileSync(resolve(__dirname, `../../etc/agui-reasoning${suffix}.api.md`), "utf8"),
    );
    const takers = new Set<string>();
    for (const report of reports) {
      for (const [, name, params] of report.matchAll(/^export function (\w+)(?:<[^(]*>)?\(([^)]*)\)/gm))
        if (
          /ReasoningHistory|HistoryOptions|ReasoningPipelineOptions|ReasoningMiddlewareOptions|VerifyOptions/.test(
            params!,
          )
        )
          takers.add(name!);
      for (const [, name] of report.matchAll(/^export class (\w+) implements HistoryStore/gm)) takers.add(name!);
    }
    takers.add("parseHistory"); // takes the stored form (unknown in its signature)
    const named = new Set(WAYS_IN.map(([way]) => way.split(" ")[0]));
    expect([...takers].filter((name) => !named.has(name) && !EXEMPT.has(name))).toEqual([]);
  });
});

/**
 * Takers that hold no history: the discipline's `initialMessages` tell it only which ids have which
 * role (known-roles.ts), read leniently (what is no message is skipped), and its stage is the same.
 */
const EXEMPT = new Set(["verifyDiscipline", "createVerifyStage"]);

/** `base` with `key` answering its first read with `first`, and every later one with `then` (or a throw). */
function fickle(base: object, key: string, first: unknown, then: unknown): object {
  let reads = 0;
  return Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get() {
      if (reads++ === 0) return first;
      if (then === THROWS) throw new Error("secret thought");
      return then;
    },
  });
}
const THROWS = Symbol("throws");

const reasoning = { id: "r1", role: "reasoning", content: "secret thought", encryptedValue: "E" };
const withLists = (lists: object): History =>
  ({ messages: [reasoning], incomplete: [], issuers: [], durations: [], ...lists }) as unknown as History;

/** [what answers its first read only, the history]: fresh each call (a getter counts its reads). */
const FICKLE: [string, () => History][] = [
  ...(
    [
      ["id", "r1"],
      ["role", "reasoning"],
      ["content", "secret thought"],
      ["encryptedValue", "E"],
    ] as const
  ).flatMap(([key, first]): [string, () => History][] => [
    [`a message's ${key}, then throws`, () => withLists({ messages: [fickle(reasoning, key, first, THROWS)] })],
    [`a message's ${key}, then 42`, () => withLists({ messages: [fickle(reasoning, key, first, 42)] })],
  ]),
  ...[THROWS, [null], 5].map((then): [string, () => History] => [
    `an assistant message's toolCalls, then ${then === THROWS ? "throws" : JSON.stringify(then)}`,
    () => withMessage(fickle({ id: "a1", role: "assistant" }, "toolCalls", [call0], then)),
  ]),
  [
    "a tool call's id, then throws",
    () => assistant([fickle({ type: "function", function: call0.function }, "id", "c0", THROWS)]),
  ],
  [
    "an incomplete item's kind, then throws",
    () => withLists({ incomplete: [fickle({ id: "r1", reason: "open" }, "kind", "message", THROWS)] }),
  ],
  [
    "an issuer record's entityId, then throws",
    () => withLists({ issuers: [fickle({ subtype: "message", issuer: "p" }, "entityId", "r1", THROWS)] }),
  ],
  [
    "a duration's id, then throws",
    () =>
      withLists({ durations: [fickle({ kind: "message", startedAt: 1, startObserved: true }, "id", "r1", THROWS)] }),
  ],
  ...[THROWS, null].map((then): [string, () => History] => [
    `the history's messages, then ${then === THROWS ? "throws" : "null"}`,
    () => fickle({ incomplete: [], issuers: [], durations: [] }, "messages", [reasoning], then) as History,
  ]),
];

describe("D-REDACT: a history whose getter answers a second read otherwise than the first fails no way in inside", () => {
  it.each(FICKLE)("%s", async (_, fickleHistory) => {
    for (const [way, run] of WAYS_IN) {
      const error = await errorOf(() => run(fickleHistory()));
      if (error === undefined) continue; // read once, or read the same
      expect([way, error]).toEqual([way, expect.any(TypeError)]);
      expect([way, (error as Error).message]).toEqual([way, expect.stringMatching(/^agui-reasoning: /)]);
      expect((error as Error).message).not.toContain("secret");
    }
  });
  it("verifyDiscipline reads its initialMessages once, when made: each subscription starts from that read", () => {
    const once = [fickle({ id: "r1", content: "secret thought" }, "role", "reasoning", THROWS)];
    const verify = main.verifyDiscipline({ ...quiet, initialMessages: once as never });
    const errors: unknown[] = [];
    for (let run = 0; run < 2; run++)
      of()
        .pipe(verify)
        .subscribe({ error: (e: unknown) => errors.push(e) });
    expect(errors).toEqual([]);
    const unreadable = new Proxy([], {
      get() {
        throw new Error("secret thought");
      },
    });
    expect(() => main.verifyDiscipline({ initialMessages: unreadable })).toThrow(
      new TypeError("agui-reasoning: verifyDiscipline: a read of initialMessages threw"),
    );
  });
});
