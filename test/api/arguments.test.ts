/**
 * A public function called with a wrong argument — from JavaScript, through `any`, or with a history
 * that is still `undefined` on a UI's first render — throws a `TypeError` naming the function (an
 * `agui-reasoning:` message), never a failure from inside it ("Cannot read properties of null").
 * Absent options stay the defaults.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { of, type Observable } from "rxjs";
import * as main from "../../src";
import * as stages from "../../src/stages";
import * as testing from "../../src/testing";
import { IndexedDbHistoryStore, KeyValueHistoryStore } from "../../src/storage";
import * as resilience from "../../src/resilience";
import { DowncastError } from "../../src/resilience";

type AnyFn = (...args: any[]) => unknown;
const call =
  (fn: unknown, ...args: unknown[]) =>
  () =>
    (fn as AnyFn)(...args);
const make =
  (cls: unknown, ...args: unknown[]) =>
  () =>
    new (cls as new (...a: unknown[]) => unknown)(...args);

const history = main.emptyHistory();
const VALID_INIT = {
  code: "MALFORMED_EVENT",
  rule: "R-PROC-4",
  eventIndex: 3,
  eventType: "TEXT_MESSAGE_CONTENT",
  detail: "secret detail",
};

/** [what is called, the name its error must give, the call]. */
/** A test name for `h` (a proxy whose reads throw has none JSON can give). */
function shown(h: unknown): string {
  try {
    return JSON.stringify(h);
  } catch {
    return "a history whose message throws when read";
  }
}

/** A getter that throws what a hostile read may throw: never in a message (D-REDACT). */
const throwsOn = <T extends object>(base: T, key: string): T =>
  Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get() {
      throw new Error("secret thought");
    },
  });
/** An array whose `length` a proxy makes `length`, every index holding `item`. */
const claiming = (length: unknown, item: unknown = {}): unknown[] =>
  new Proxy([], {
    get: (t, k) => (k === "length" ? length : typeof k === "string" && /^\d+$/.test(k) ? item : Reflect.get(t, k)),
  });
const user = { id: "u1", role: "user", content: "secret thought" };
const call1 = { id: "c1", type: "function", function: { name: "f", arguments: "" } };
const assistant = (toolCalls: unknown) => ({ id: "a1", role: "assistant", toolCalls });
const withLists = (lists: object) => ({ messages: [user], incomplete: [], issuers: [], durations: [], ...lists });

/** Histories a structured clone, a UI store or a proxy may hand over: [name, history]. */
const HOSTILE_HISTORIES: [string, unknown][] = [
  [
    "messages a sparse array claiming 2³²−1 slots",
    withLists({ messages: Object.assign(new Array(2 ** 32 - 1), { 0: user }) }),
  ],
  [
    "incomplete with a hole",
    withLists({ incomplete: Object.assign(new Array(3), { 0: { kind: "message", id: "u1", reason: "open" }, 2: {} }) }),
  ],
  ["messages whose length is NaN", withLists({ messages: claiming(NaN, user) })],
  ["messages whose length is -1", withLists({ messages: claiming(-1, user) })],
  ["a message whose content getter throws", withLists({ messages: [throwsOn(user, "content")] })],
  ["an issuer record whose getter throws", withLists({ issuers: [throwsOn({ subtype: "message" }, "entityId")] })],
  ["a duration whose getter throws", withLists({ durations: [throwsOn({ kind: "message" }, "id")] })],
  [
    "tool calls a sparse array claiming 2³²−1 slots",
    withLists({ messages: [assistant(Object.assign(new Array(2 ** 32 - 1), { 0: call1 }))] }),
  ],
  ["a tool call that is null", withLists({ messages: [assistant([null])] })],
  ["a tool call whose getter throws", withLists({ messages: [assistant([throwsOn(call1, "encryptedValue")])] })],
  ["a tool call whose function is a number", withLists({ messages: [assistant([{ ...call1, function: 5 }])] })],
];

/** Every public function and store taking options: [what is called, the name its error gives, the call]. */
const OPTION_TAKERS: [string, string, (options: unknown) => unknown][] = [
  ["reasoningPipeline", "reasoningPipeline", (o) => (main.reasoningPipeline as AnyFn)(of(), o)],
  ["upcastThinking", "upcastThinking", (o) => (main.upcastThinking as AnyFn)(o)],
  ["enforceSchema", "enforceSchema", (o) => (main.enforceSchema as AnyFn)(o)],
  ["expandChunks", "expandChunks", (o) => (main.expandChunks as AnyFn)(o)],
  ["verifyDiscipline", "verifyDiscipline", (o) => (main.verifyDiscipline as AnyFn)(o)],
  ["deriveHistory", "deriveHistory", (o) => (main.deriveHistory as AnyFn)(o)],
  ["createHistoryStage", "deriveHistory", (o) => (stages.createHistoryStage as AnyFn)(o)],
  ["createUpcastStage", "upcastThinking", (o) => (stages.createUpcastStage as AnyFn)(o)],
  ["createVerifyStage", "verifyDiscipline", (o) => (stages.createVerifyStage as AnyFn)(o)],
  ["stageOperator", "stageOperator", (o) => (stages.stageOperator as AnyFn)(stages.createEnforceStage(), o)],
  ["downcastToThinking", "downcastToThinking", (o) => (resilience.downcastToThinking as AnyFn)(o)],
  ["repairStream", "repairStream", (o) => (resilience.repairStream as AnyFn)(o)],
  ["reasoningMiddleware", "reasoningMiddleware", (o) => (main.reasoningMiddleware as AnyFn)(o)],
  ["toRunInputMessages", "toRunInputMessages", (o) => (main.toRunInputMessages as AnyFn)(history, o)],
  ["reasoningView", "reasoningView", (o) => (main.reasoningView as AnyFn)(history, undefined, o)],
  ["agentEvents", "agentEvents", (o) => (main.agentEvents as AnyFn)({ run: () => of() }, {}, o)],
  ["saveHistory", "saveHistory", (o) => (main.saveHistory as AnyFn)(new main.InMemoryHistoryStore(), "t1", history, o)],
  ["InMemoryHistoryStore", "InMemoryHistoryStore", (o) => new main.InMemoryHistoryStore(o as never)],
  ["IndexedDbHistoryStore", "IndexedDbHistoryStore", (o) => new IndexedDbHistoryStore(o as never)],
  [
    "KeyValueHistoryStore",
    "KeyValueHistoryStore",
    (o) => new KeyValueHistoryStore({ get: () => null, set: () => {} }, o as never),
  ],
];

const WRONG: [string, string, () => unknown][] = [
  ...HOSTILE_HISTORIES.flatMap(([name, h]): [string, string, () => unknown][] => [
    [`reasoningView(${name})`, "reasoningView", call(main.reasoningView, h)],
    [`messagesOf(${name})`, "messagesOf", call(main.messagesOf, h)],
    [`toRunInputMessages(${name})`, "toRunInputMessages", call(main.toRunInputMessages, h, { producer: "p" })],
  ]),
  // What the stored form reads: an array's length no array has is named by its pointer.
  ...[NaN, -1, 2 ** 32, 1.5, "3"].flatMap((length): [string, string, () => unknown][] => [
    [
      `historyToJSON(messages of length ${String(length)})`,
      "historyToJSON",
      call(main.historyToJSON, withLists({ messages: claiming(length) })),
    ],
    [
      `serializeHistory(messages of length ${String(length)})`,
      "serializeHistory",
      call(main.serializeHistory, withLists({ messages: claiming(length) })),
    ],
    [
      `parseHistory(messages of length ${String(length)})`,
      "parseHistory",
      call(main.parseHistory, {
        format: main.HISTORY_FORMAT,
        version: 2,
        ...withLists({ messages: claiming(length) }),
      }),
    ],
  ]),
  ...[null, 42, "x"].flatMap((options) =>
    OPTION_TAKERS.map(([label, name, run]): [string, string, () => unknown] => [
      `${label}(${String(options)})`,
      name,
      () => run(options),
    ]),
  ),
  ...[
    undefined,
    null,
    42,
    {},
    { messages: [] },
    { messages: {}, incomplete: [], issuers: [] },
    // Entries a UI store may hold: a null where a message was, a message without its id, a bad record.
    { messages: [null], incomplete: [], issuers: [] },
    { messages: [{ role: "user", content: "hi" }], incomplete: [], issuers: [] },
    { messages: [], incomplete: [7], issuers: [] },
    { messages: [], incomplete: [], issuers: [null] },
    { messages: [], incomplete: [], issuers: [], durations: [null] },
    {
      messages: [
        new Proxy(
          {},
          {
            get() {
              throw new Error("secret thought");
            },
          },
        ),
      ],
      incomplete: [],
      issuers: [],
    },
  ].flatMap((h): [string, string, () => unknown][] => [
    [`reasoningView(${shown(h)})`, "reasoningView", call(main.reasoningView, h)],
    [`messagesOf(${shown(h)})`, "messagesOf", call(main.messagesOf, h)],
    [`toRunInputMessages(${shown(h)})`, "toRunInputMessages", call(main.toRunInputMessages, h, { producer: "p" })],
  ]),
  ...[undefined, null, {}, { run: 1 }].flatMap((agent): [string, string, () => unknown][] => [
    [`agentEvents(${JSON.stringify(agent)})`, "agentEvents", call(main.agentEvents, agent, {})],
  ]),
  ...[undefined, null, {}, { init: () => 0 }].flatMap((stage): [string, string, () => unknown][] => [
    [`runStage(${JSON.stringify(stage)})`, "runStage", call(stages.runStage, stage, [])],
  ]),
  ...[undefined, null, 42].flatMap((w): [string, string, () => unknown][] => [
    [`formatWarning(${String(w)})`, "formatWarning", call(main.formatWarning, w)],
  ]),
  // An app building the errors its tests expect: each field checked, none quoted.
  ...[
    undefined,
    null,
    {},
    { ...VALID_INIT, code: 5 },
    { ...VALID_INIT, eventIndex: -1 },
    { ...VALID_INIT, eventIndex: "3" },
    { ...VALID_INIT, rule: 5 },
    { ...VALID_INIT, eventType: undefined },
    { ...VALID_INIT, detail: undefined },
    { ...VALID_INIT, ids: "secret-id" },
    { ...VALID_INIT, ids: [1] },
  ].map((init): [string, string, () => unknown] => [
    `new ReasoningProtocolError(${JSON.stringify(init)})`,
    "ReasoningProtocolError",
    make(main.ReasoningProtocolError, init),
  ]),
  // The same for the downcast's error (its arguments positional, as the stage builds it).
  ...(
    [
      [],
      [5, { index: 0 }, "REASONING_START", [], "secret detail"],
      ["D-DOWNCAST", undefined, "REASONING_START", [], "secret detail"],
      ["D-DOWNCAST", { index: -1 }, "REASONING_START", [], "secret detail"],
      ["D-DOWNCAST", { index: 0 }, null, [], "secret detail"],
      ["D-DOWNCAST", { index: 0 }, "REASONING_START", "secret-id", "secret detail"],
      ["D-DOWNCAST", { index: 0 }, "REASONING_START", [7], "secret detail"],
      ["D-DOWNCAST", { index: 0 }, "REASONING_START", ["secret-id"], undefined],
    ] as unknown[][]
  ).map((args): [string, string, () => unknown] => [
    `new DowncastError(${args.map((a) => JSON.stringify(a)).join(", ")})`,
    "DowncastError",
    make(DowncastError, ...args),
  ]),
];

describe("a public function called with a wrong argument names itself", () => {
  it.each(WRONG)("%s", async (_, name, run) => {
    let error: unknown;
    try {
      await run();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(new RegExp(`^agui-reasoning: ${name}\\b`));
    expect((error as Error).message).not.toContain("secret"); // D-REDACT: never what a hostile read threw
  });

  // D-REDACT: options whose reads throw (a getter, a proxy, a revoked proxy) — read once, when called.
  it.each(
    [
      ["a getter that throws", () => throwsOn({ quiet: true }, "onWarning"), "a read of `onWarning` threw"],
      [
        "a proxy whose reads throw",
        () =>
          new Proxy(
            { producer: "p" },
            {
              get() {
                throw new Error("secret thought");
              },
            },
          ),
        "a read of `producer` threw",
      ],
      [
        "a revoked proxy",
        () => {
          const { proxy, revoke } = Proxy.revocable({}, {});
          revoke();
          return proxy;
        },
        "listing its properties threw",
      ],
    ].flatMap(([what, options, why]) =>
      OPTION_TAKERS.map(([label, name, run]) => [
        `${label} with ${what as string} as options`,
        name,
        run,
        options,
        why,
      ]),
    ) as [string, string, (o: unknown) => unknown, () => unknown, string][],
  )(
    "%s is a TypeError naming the function and the option, never what was thrown",
    async (_, name, run, options, why) => {
      let error: unknown;
      try {
        await run(options());
      } catch (e) {
        error = e;
      }
      expect(error).toEqual(new TypeError(`agui-reasoning: ${name}'s options cannot be read: ${why}`));
      expect((error as Error).cause).toBeUndefined(); // what was thrown may quote anything (D-REDACT)
    },
  );

  it("the option takers' table names every public function and store taking options (etc/*.api.md)", () => {
    const takers: string[] = [];
    for (const suffix of ["", "-storage", "-stages", "-resilience"]) {
      const report = readFileSync(resolve(__dirname, `../../etc/agui-reasoning${suffix}.api.md`), "utf8");
      for (const [, name, params] of report.matchAll(/^export function (\w+)(?:<[^(]*>)?\(([^)]*)\)/gm))
        if (/(^|[\s,(])options\??:/.test(params!)) takers.push(name!);
      for (const [, name, body] of report.matchAll(/^export class (\w+)[^{]*\{([\s\S]*?)\n\}/gm))
        if (/(^|[\s,])options\??:/.test(/constructor\(([^)]*)\)/.exec(body!)?.[1] ?? "")) takers.push(name!);
    }
    // createEnforceStage, createExpandStage, createDowncastStage and createRepairStage read no option
    // (`_options`: the operator routes warnings); runStage takes none.
    expect(takers.filter((name) => !OPTION_TAKERS.some(([label]) => label === name))).toEqual([]);
  });

  it("options are read once, when called: a class's getters and methods count, a read the caller's object would throw on next is never made", () => {
    const warnings: main.ReasoningWarning[] = [];
    let reads = 0;
    class Options {
      get producer(): string {
        if (reads++ > 0) throw new Error("secret thought");
        return "https://p.test";
      }
      onWarning(w: main.ReasoningWarning): void {
        warnings.push(w);
      }
    }
    const withOtherValue = withLists({
      messages: [{ id: "r1", role: "reasoning", content: "", encryptedValue: "E" }],
      issuers: [{ subtype: "message", entityId: "r1", issuer: "https://other.test" }],
    }) as main.ReasoningHistory;
    expect(main.toRunInputMessages(withOtherValue, new Options())).toEqual([
      { id: "r1", role: "reasoning", content: "" },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["VALUE_WITHHELD"]);
    expect(reads).toBe(1);
  });

  it("new TransportError(endpoint, cause) with a cause that is no error names no kind it cannot read", () => {
    for (const cause of [null, 42, { name: 7 }])
      expect(new main.TransportError("http://agent.test/run", cause as never).message).toBe(
        "agui-reasoning: the connection to http://agent.test/run failed (unknown) while no run was open; a stream that ends without its own end is not a success",
      );
    const reset = Object.assign(new TypeError("terminated"), { cause: { code: "ECONNRESET" } });
    expect(new main.TransportError("http://agent.test/run", reset).message).toContain("(TypeError, ECONNRESET)");
  });

  it("messagesOf copies, without recursion, messages structuredClone cannot: a proxy, nesting deeper than its stack", () => {
    let deep: unknown = "secret thought";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const proxied = new Proxy({ ...user, metadata: { deep } }, {});
    const [copy] = main.messagesOf(withLists({ messages: [proxied] }) as main.ReasoningHistory);
    let depth = 0;
    for (
      let v = (copy as unknown as { metadata: { deep: unknown } }).metadata.deep;
      Array.isArray(v);
      v = v[0] as unknown
    )
      depth++;
    expect(depth).toBe(100_000);
    expect(copy).not.toBe(proxied);
    const throwing = withLists({ messages: [{ ...user, metadata: throwsOn({}, "x") }] });
    expect(() => main.messagesOf(throwing as main.ReasoningHistory)).toThrow(
      new TypeError("agui-reasoning: messagesOf: /messages/0 cannot be read as JSON data (a read of it threw)"),
    );
  });

  it("reasoningView reads no `previous` it did not return (any read of one may throw)", () => {
    const h = withLists({}) as main.ReasoningHistory;
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("secret thought");
        },
      },
    );
    for (const previous of [
      hostile,
      { turns: [null] },
      { turns: Object.assign(new Array(2 ** 32 - 1), { 0: {} }) },
      42,
    ])
      expect(main.reasoningView(h, previous as never)).toEqual(main.reasoningView(h));
    const view = main.reasoningView(h);
    expect(main.reasoningView(h, view)).toBe(view);
  });

  it.each([undefined, null, 42, {}, { save: "x" }])(
    "saveHistory(%p, …) rejects with a TypeError naming it",
    async (store) => {
      await expect(main.saveHistory(store as never, "t1", history)).rejects.toThrow(
        new TypeError("agui-reasoning: saveHistory needs a HistoryStore (an object with a `save` method)"),
      );
    },
  );

  it("the testing kit's readers name themselves, and read a sparse list no further than its first hole", () => {
    const sparse = (item: unknown) => Object.assign(new Array(2 ** 32 - 1), { 0: item });
    const issued = [{ subtype: "message", entityId: "m1", encryptedValue: "E" }] as const;
    const message = { id: "m1", role: "reasoning", encryptedValue: "E" };
    expect(testing.returnedValues({ messages: sparse(message) }, issued)).toEqual([
      { subtype: "message", entityId: "m1", bytes: 1, identical: true },
    ]);
    expect(testing.returnedValues({ messages: [{ id: "a1", toolCalls: sparse({ id: "m1" }) }] }, issued)).toEqual([
      { subtype: "message", entityId: "m1", bytes: 1, identical: false },
    ]);
    for (const wrong of [undefined, null, 42, [null], sparse(issued[0]), [{ subtype: "message" }]])
      expect(() => testing.returnedValues({ messages: [] }, wrong as never)).toThrow(
        "agui-reasoning/testing: returnedValues expects `issued` to be an array of IssuedValue objects",
      );
    for (const wrong of [undefined, null, 42, ["a"]])
      expect(() => testing.parseDiagram(wrong as never)).toThrow("agui-reasoning/testing: parseDiagram expects");
    for (const [wrong, shown] of [
      [undefined, "undefined"],
      [42, "a number"],
      [sparse("anthropic-style-thinking"), "an array"],
    ] as const)
      expect(() => testing.loadRecording(wrong as never)).toThrow(
        `agui-reasoning/testing: no recording named (${shown}) (known: `,
      );
  });

  it.each([
    ["run input", undefined, { run: () => of() }, "reasoningMiddleware's run input must be a RunAgentInput object"],
    ["run input", null, { run: () => of() }, "reasoningMiddleware's run input must be a RunAgentInput object"],
    ["next agent", {}, undefined, "reasoningMiddleware needs the next agent (an object with a `run` method)"],
    ["next agent", {}, { run: 5 }, "reasoningMiddleware needs the next agent (an object with a `run` method)"],
  ])("reasoningMiddleware with a wrong %s fails its run with a TypeError naming it", (_, input, next, message) => {
    const middleware = main.reasoningMiddleware({ producer: "p", quiet: true });
    let error: unknown;
    (middleware(input as never, next as never) as Observable<unknown>).subscribe({
      error: (e: unknown) => (error = e),
    });
    expect(error).toEqual(new TypeError(`agui-reasoning: ${message}`));
  });

  it("absent options are the defaults", () => {
    expect(() => main.reasoningPipeline(of()).events$.subscribe({ error: () => {} })).not.toThrow();
    expect(() => main.deriveHistory()).not.toThrow();
    expect(() => new main.InMemoryHistoryStore()).not.toThrow();
    expect(main.reasoningView(history)).toEqual({ turns: [] });
    expect(main.toRunInputMessages(history, { producer: "p" })).toEqual([]);
    expect(new main.ReasoningProtocolError({ ...VALID_INIT, code: "MALFORMED_EVENT" }).message).toBe(
      "MALFORMED_EVENT (R-PROC-4) at event #3 TEXT_MESSAGE_CONTENT: secret detail",
    );
    expect(new DowncastError("D-DOWNCAST", { index: 2 }, "REASONING_START", ["m1"], "no way", {}).message).toBe(
      'NOT_REPRESENTABLE (D-DOWNCAST) at event #2 REASONING_START ["m1"]: no way',
    );
  });
});
