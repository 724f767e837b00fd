/**
 * The testing kit's functions called with a wrong argument — from JavaScript, through `any` — throw a
 * `TypeError` naming the function (an `agui-reasoning/testing:` message) and what is wrong, or fail as
 * the kit's own matcher failure: never a hang over a sparse list's claimed 2³²−1 slots, a `RangeError`
 * or `TypeError` from inside the kit, or a message quoting what a hostile read threw (D-REDACT). The
 * kit's sibling of test/api/arguments.test.ts.
 */
import { of } from "rxjs";
import * as testing from "../../src/testing";

type AnyFn = (...args: any[]) => unknown;
const call =
  (fn: unknown, ...args: unknown[]) =>
  () =>
    (fn as AnyFn)(...args);

/** A list a structured clone may hand over: a hole after `item`, claiming 2³²−1 slots. */
const sparse = (item: unknown = {}): unknown[] => Object.assign(new Array(2 ** 32 - 1), { 0: item });
/** An object whose getter throws what a hostile read may throw: never in a message (D-REDACT). */
const throwing = (): object =>
  Object.defineProperty({}, "x", {
    enumerable: true,
    get() {
      throw new Error("secret thought");
    },
  });
/** A message whose `encryptedValue` getter throws. */
const throwingValue = Object.defineProperty({ id: "m1", role: "reasoning" }, "encryptedValue", {
  enumerable: true,
  get() {
    throw new Error("secret thought");
  },
});
const revoked = (): object => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const events = [testing.ev.runStarted(), testing.ev.runFinished()];
const helpers = { expectObservable: () => ({ toBe: () => {} }) };
const views = { events$: of(), history$: of(), warnings$: of() };
const agent = () => testing.mockAgent([events]);
const matchers = testing.reasoningMatchers;
const context = { isNot: false, equals: (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b) };

/** [what is called, the name its error must start with, the call]. */
const WRONG: [string, string, () => unknown][] = [
  ...(
    [
      ["sparse", sparse("think-")],
      ["42", 42],
      ["revoked", revoked()],
    ] as const
  ).map(([name, prefix]): [string, string, () => unknown] => [
    `sequentialIds(${name})`,
    "sequentialIds's prefix must be a string",
    call(testing.sequentialIds, prefix),
  ]),
  ["historyOf([], null)", "historyOf's second argument must be an object", call(testing.historyOf, [], null)],
  ["historyOf([], revoked)", "historyOf's second argument cannot be read", call(testing.historyOf, [], revoked())],
  ["historyOf(sparse)", "historyOf: messages/1 cannot be read as JSON data", call(testing.historyOf, sparse())],
  [
    "historyOf([], { incomplete: sparse })",
    "historyOf: incomplete/1 cannot be read as JSON data",
    call(testing.historyOf, [], { incomplete: sparse() }),
  ],
  [
    "historyOf([], { issuers: null })",
    "historyOf: issuers must be an array (got null)",
    call(testing.historyOf, [], { issuers: null }),
  ],
  ...(
    [
      ["protocolErrorWith", "ORPHAN_CONTENT", "ERROR_CODES"],
      ["warningWith", "UNKNOWN_ENTITY", "WARNING_CODES"],
    ] as const
  ).flatMap(([name, code, catalogue]): [string, string, () => unknown][] => [
    [
      `${name}(sparse)`,
      `${name}'s code (an array) is not one of ${catalogue}`,
      call(testing[name], sparse("ORPHAN_CONTENT")),
    ],
    [`${name}(42)`, `${name}'s code (a number) is not one of ${catalogue}`, call(testing[name], 42)],
    [`${name}("X")`, `${name}'s code "X" is not one of ${catalogue}`, call(testing[name], "X")],
    [`${name}(code, null)`, `${name}'s expected fields must be an object`, call(testing[name], code, null)],
    [`${name}(code, throwing)`, `${name}'s expected fields cannot be read`, call(testing[name], code, throwing())],
    [
      `${name}(code, { ids: sparse })`,
      `${name}: expected ids/1 cannot be read as JSON data`,
      call(testing[name], code, { ids: sparse("m1") }),
    ],
    [
      `${name}(code, { ids: revoked })`,
      `${name}'s expected ids cannot be read`,
      call(testing[name], code, { ids: revoked() }),
    ],
  ]),
  [
    "ev.runStarted(id, throwing)",
    "the RUN_STARTED builder's extra fields cannot be read",
    call(testing.ev.runStarted, "r1", throwing()),
  ],
  [
    "ev.thinkingStart(revoked)",
    "the THINKING_START builder's extra fields cannot be read",
    call(testing.ev.thinkingStart, revoked()),
  ],
  [
    "msg.user(id, content, throwing)",
    "msg.user's extra fields cannot be read",
    call(testing.msg.user, "u1", "hi", throwing()),
  ],
  [
    "msg.toolCall(…, revoked)",
    "msg.toolCall's extra fields cannot be read",
    call(testing.msg.toolCall, "c1", "f", "", revoked()),
  ],
  ["extendAlphabet(null)", "extendAlphabet's extra must be an object", call(testing.extendAlphabet, null)],
  ["extendAlphabet(throwing)", "extendAlphabet's extra cannot be read", call(testing.extendAlphabet, throwing())],
  ["extendAlphabet({}, revoked)", "extendAlphabet's base cannot be read", call(testing.extendAlphabet, {}, revoked())],
  [
    "createTestScheduler(42)",
    "createTestScheduler expects an assertion function",
    call(testing.createTestScheduler, 42),
  ],
  [
    "expectPipeline(null, pipeline)",
    "expectPipeline expects the TestScheduler's run helpers",
    call(testing.expectPipeline, null, views),
  ],
  ["expectPipeline(helpers, null)", "expectPipeline expects a pipeline", call(testing.expectPipeline, helpers, null)],
  [
    "expectPipeline(helpers, pipeline).toBe(revoked)",
    "expectPipeline's diagram cannot be read",
    () => testing.expectPipeline(helpers, views).toBe(revoked()),
  ],
  ...(
    [
      ["null", null],
      ['"RUN_STARTED"', "RUN_STARTED"],
      ["revoked", revoked()],
    ] as const
  ).map(([name, source]): [string, string, () => unknown] => [
    `runPipeline(${name})`,
    "runPipeline expects an array of events or an Observable",
    call(testing.runPipeline, source),
  ]),
  ["runPipeline(events, null)", "runPipeline's options must be an object", call(testing.runPipeline, events, null)],
  [
    "runPipeline(events, throwing)",
    "runPipeline's options cannot be read",
    call(testing.runPipeline, events, throwing()),
  ],
  [
    "mockAgent(revoked)",
    "mockAgent's script must be a list of turns or a function",
    call(testing.mockAgent, revoked()),
  ],
  ["mockAgent(script, null)", "mockAgent's options must be an object", call(testing.mockAgent, [], null)],
  ["mockAgent(script, throwing)", "mockAgent's options cannot be read", call(testing.mockAgent, [], throwing())],
  [
    "mockAgent(script, { initialMessages: sparse })",
    "mockAgent: initialMessages/1 cannot be read as JSON data (a sparse array",
    call(testing.mockAgent, [], { initialMessages: sparse(testing.msg.user("u1", "hi")) }),
  ],
  [
    "agent.setMessages(sparse)",
    "MockAgent.setMessages: messages/1 cannot be read as JSON data (a sparse array",
    () => agent().setMessages(sparse(testing.msg.user("u1", "hi")) as never),
  ],
  [
    "agent.setMessages(null)",
    "MockAgent.setMessages: messages must be an array (got null)",
    () => agent().setMessages(null as never),
  ],
  [
    "agent.addMessages(sparse)",
    "MockAgent.addMessages: messages/1 cannot be read as JSON data (a sparse array",
    () => agent().addMessages(sparse(testing.msg.user("u1", "hi")) as never),
  ],
  [
    "agent.addMessages(42)",
    "MockAgent.addMessages: messages must be an array (got number)",
    () => agent().addMessages(42 as never),
  ],
  ["agent.use(null)", "MockAgent.use expects middleware", () => agent().use(null as never)],
  ["agent.use(revoked)", "MockAgent.use expects middleware", () => agent().use(revoked() as never)],
  [
    "parseRecording(revoked)",
    "parseRecording takes the recording's text, got object",
    call(testing.parseRecording, revoked()),
  ],
  [
    "returnedValues(throwing request)",
    "returnedValues cannot read the request",
    call(testing.returnedValues, { messages: [throwingValue] }, []),
  ],
  ["returnedValues(request, revoked)", "returnedValues expects `issued`", call(testing.returnedValues, {}, revoked())],
  // A matcher's own arguments are refused both ways: `.not` would pass on anything.
  ...(
    [
      [sparse("ORPHAN_CONTENT"), "sparse", "(an array)"],
      [null, "null", "(null)"],
      ["ORPHAN_CONTNT", '"ORPHAN_CONTNT"', '"ORPHAN_CONTNT"'],
    ] as const
  ).map(([code, shown, named]): [string, string, () => unknown] => [
    `toFailWithCode(events, ${shown})`,
    `toFailWithCode's code ${named} is not one of ERROR_CODES`,
    () => matchers.toFailWithCode.call(context, events, code as never),
  ]),
  [
    "toFailWithCode(events, code, null)",
    "toFailWithCode's expected fields must be an object",
    () => matchers.toFailWithCode.call(context, events, "ORPHAN_CONTENT", null as never),
  ],
  [
    "toWarnWith(events, sparse)",
    "toWarnWith's code (an array) is not one of WARNING_CODES",
    () => matchers.toWarnWith.call(context, events, sparse("UNKNOWN_ENTITY") as never),
  ],
  [
    "toWarnWith(events, revoked)",
    "toWarnWith's code (a value that cannot be read) is not one of WARNING_CODES",
    () => matchers.toWarnWith.call(context, events, revoked() as never),
  ],
  [
    "toWarnWith(events, code, { ids: sparse })",
    "toWarnWith: expected ids/1 cannot be read as JSON data",
    () => matchers.toWarnWith.call(context, events, "UNKNOWN_ENTITY", { ids: sparse("m1") as string[] }),
  ],
  [
    "toBeConformant(events, null)",
    "toBeConformant's options must be an object",
    () => matchers.toBeConformant.call(context, events, null as never),
  ],
  [
    "toBeConformant(events, { initialMessages: sparse })",
    "toBeConformant: initialMessages/1 cannot be read as JSON data (a sparse array",
    () =>
      matchers.toBeConformant.call(context, events, { initialMessages: sparse(testing.msg.user("u1", "hi")) as never }),
  ],
  [
    "toBeConformant(events, { initialMessages: [null] })",
    "toBeConformant: initialMessages/0 must be an object (got null)",
    () => matchers.toBeConformant.call(context, events, { initialMessages: [null] as never }),
  ],
];

/** The error `run` throws (or its promise rejects with). */
async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A wrong argument's error: a TypeError, the kit's prefix and `start`, nothing a hostile read threw. */
function expectNamed(error: unknown, start: string): void {
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).message.startsWith(`agui-reasoning/testing: ${start}`)).toBe(true);
  expect((error as Error).message).not.toContain("secret"); // D-REDACT
}

describe("a testing kit function called with a wrong argument names itself", () => {
  // Each case ended in a hang over 2³²−1 slots, a RangeError or an error from inside before: a
  // timeout of its own, so that a hang fails that case, not the file.
  it.each(WRONG)(
    "%s",
    async (_, start, run) => {
      const error = await errorOf(run);
      expectNamed(error, start);
    },
    10_000,
  );

  it.each([
    ["mockAgentServer(revoked)", "mockAgentServer's script must be a list of turns or a function", [revoked()]],
    ["mockAgentServer(script, null)", "mockAgentServer's options must be an object", [[], null]],
    ["mockAgentServer([revoked turn])", "mockAgentServer turn #0: must be an array of events", [[revoked()]]],
  ])("%s rejects", async (_, start, args) => {
    expectNamed(await errorOf(() => testing.mockAgentServer(...(args as [never]))), start);
  });

  it("MockAgent.runAgent rejects (never throws) with a wrong parameter or messages list, never an error from inside", async () => {
    expectNamed(
      await errorOf(() => agent().runAgent(null as never)),
      "MockAgent.runAgent's parameters must be an object",
    );
    const cleared = agent();
    cleared.messages = null as never;
    expectNamed(await errorOf(() => cleared.runAgent()), "MockAgent.runAgent: messages must be an array (got null)");
    // A scripted turn whose reads throw is no turn: the run fails naming it, not with what a read threw.
    const unreadableTurn = new Proxy([], {
      get() {
        throw new Error("secret thought");
      },
    });
    for (const turn of [revoked(), unreadableTurn])
      expectNamed(
        await errorOf(() => testing.mockAgent([turn as never]).runAgent()),
        "mockAgent's turn for run #1 is not an array or an Observable",
      );
    // A message that is no message is the pipeline's to refuse, as for any initialMessages.
    const holding = agent();
    holding.addMessage(null as never);
    const error = await errorOf(() => holding.runAgent());
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^agui-reasoning: initialMessages\[0\]/);
  });

  it("the matchers fail (never hang) on a received list with a hole, or one that cannot be read", () => {
    const failure = (result: { pass: boolean; message(): string }) => {
      expect(result.pass).toBe(false);
      return result.message();
    };
    expect(failure(matchers.toBeConformant.call(context, sparse(events[0])))).toBe(
      "expected an array of events, but events/1 cannot be read as JSON data (a sparse array: JSON has no holes)",
    );
    expect(failure(matchers.toBeConformant.call(context, revoked()))).toBe(
      "expected an array of events, but received a value that cannot be read",
    );
    const warning = { code: "UNKNOWN_ENTITY", message: "dropped" };
    expect(failure(matchers.toWarnWith.call(context, sparse(warning), "UNKNOWN_ENTITY"))).toBe(
      "expected warnings, but received/1 cannot be read as JSON data (a sparse array: JSON has no holes) (pass warnings, a collector, a run result or events)",
    );
    expect(failure(matchers.toWarnWith.call(context, { warnings: sparse(warning) }, "UNKNOWN_ENTITY"))).toContain(
      "received.warnings/1 cannot be read as JSON data",
    );
    for (const received of [
      revoked(),
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("secret thought");
          },
        },
      ),
    ])
      expect(failure(matchers.toFailWithCode.call(context, received, "ORPHAN_CONTENT"))).toBe(
        "expected a stream failing with ORPHAN_CONTENT, but received a value whose reads throw",
      );
    expect(testing.protocolErrorWith("ORPHAN_CONTENT").asymmetricMatch(revoked())).toBe(false);
  });

  it("returnedValues matches ids as they are: one that is a sparse array is no id, never 2³²−1 commas", () => {
    const issued = [{ subtype: "message", entityId: "m1", encryptedValue: "E" }] as const;
    expect(testing.returnedValues({ messages: [{ id: sparse("m1"), encryptedValue: "E" }] }, issued)).toEqual([
      { subtype: "message", entityId: "m1", bytes: 1, identical: false },
    ]);
  });

  it("historyOf checks its lists, not their entries: an expected history may hold asymmetric matchers", () => {
    expect(() => testing.historyOf([], null as never)).toThrow(
      new TypeError("agui-reasoning/testing: historyOf's second argument must be an object"),
    );
    expect(testing.historyOf([expect.anything() as never], {})).toEqual({
      messages: [expect.anything()],
      incomplete: [],
      issuers: [],
      durations: [],
    });
  });
});
