/**
 * D-HISTORY-IDS (issue 21, finding 4): every way into a history accepts what the pipeline derives,
 * a tool message and a non-tool message under one id included (D-TOOL-RESULT-ID).
 *
 * The conversation below has the shape LangGraph's Python integration streams for an unstreamed tool
 * call (`TOOL_CALL_START` with `parentMessageId: X`, `TOOL_CALL_RESULT` with `messageId: X`, as
 * D-TOOL-RESULT-ID describes it), written out here rather than recorded: the repository vendors no
 * LangGraph stream (test/fixtures/real-streams/README.md).
 */
import { fixedClock } from "../support/clock";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import {
  parseHistory,
  reasoningPipeline,
  serializeHistory,
  toRunInputMessages,
  type ReasoningHistory,
  type ReasoningPipelineOptions,
} from "../../src";
import { ev } from "../../src/testing/builders";
import { resumable } from "../../src/resilience";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { runInput } from "../support/http-run";

const PRODUCER = "http://127.0.0.1:8123/langgraph";

/** Turn 1 as LangGraph Python streams it: reasoning, an unstreamed tool call on X, its result under X. */
const turnOne = [
  ev.runStarted("run-1", { threadId: "t1" }),
  ev.reasoningMessageStart("think-1"),
  ev.reasoningMessageContent("think-1", "Look the weather up."),
  ev.reasoningMessageEnd("think-1"),
  ev.encryptedValue("message", "think-1", "sig-think-1"),
  ev.toolCallStart("call-1", "get_weather", { parentMessageId: "X" }),
  ev.toolCallArgs("call-1", '{"city":"Paris"}'),
  ev.toolCallEnd("call-1"),
  ev.encryptedValue("tool-call", "call-1", "sig-call-1"),
  ev.toolCallResult("X", "call-1", "18 °C"),
  ev.textStart("answer-1"),
  ev.textContent("answer-1", "It is 18 °C."),
  ev.textEnd("answer-1"),
  ev.runFinished("run-1", { threadId: "t1" }),
];
const turnTwo = [
  ev.runStarted("run-2", { threadId: "t1" }),
  ev.textStart("answer-2"),
  ev.textContent("answer-2", "Still 18 °C."),
  ev.textEnd("answer-2"),
  ev.runFinished("run-2", { threadId: "t1" }),
];

async function run(events: readonly unknown[], options: ReasoningPipelineOptions = {}) {
  const pipeline = reasoningPipeline(from(events), {
    producer: PRODUCER,
    onWarning: () => {},
    scheduler: fixedClock(),
    ...options,
  });
  const out = await lastValueFrom(pipeline.events$.pipe(toArray()));
  return { history: pipeline.history, events: out, pipeline };
}

const shapeOf = (h: ReasoningHistory) => h.messages.map((m) => [m.id, m.role]);

describe("D-HISTORY-IDS a LangGraph Python conversation (assistant and tool message under one id)", () => {
  let saved: ReasoningHistory;
  beforeAll(async () => {
    saved = (await run(turnOne)).history;
  });

  it("D-TOOL-RESULT-ID the pipeline derives both messages under X", () => {
    expect(shapeOf(saved)).toEqual([
      ["think-1", "reasoning"],
      ["X", "assistant"],
      ["X", "tool"],
      ["answer-1", "assistant"],
    ]);
  });

  it("D-HISTORY-IDS finding 4: parseHistory(serializeHistory(h)) equals h, and the reloaded conversation continues", async () => {
    const reloaded = parseHistory(serializeHistory(saved));
    expect(reloaded).toEqual(saved);
    const next = await run(turnTwo, { initialHistory: reloaded });
    expect(shapeOf(next.history)).toEqual([...shapeOf(saved), ["answer-2", "assistant"]]);
    const input = toRunInputMessages(next.history, { producer: PRODUCER });
    expect(input.find((m) => m.id === "X" && m.role === "tool")).toMatchObject({ content: "18 °C" });
    expect(JSON.stringify(input)).toContain("sig-call-1");
  });

  it("D-HISTORY-IDS finding 4: parseHistory still refuses a real repeat (two tool messages, or two others, under one id)", () => {
    const twice = (m: Message): ReasoningHistory => ({ messages: [m, m], incomplete: [], issuers: [], durations: [] });
    expect(() =>
      parseHistory(serializeHistory(twice({ id: "X", role: "tool", toolCallId: "c", content: "a" }))),
    ).toThrow(/repeats the tool message id "X"/);
    expect(() => parseHistory(serializeHistory(twice({ id: "X", role: "user", content: "a" })))).toThrow(
      /repeats the id "X"/,
    );
  });

  it("D-HISTORY-IDS finding 4: resumeFrom takes the pipeline's own exportState() at every cut point and continues exactly", async () => {
    const whole = await run([...turnOne, ...turnTwo]);
    const events = [...turnOne, ...turnTwo];
    for (let cut = 0; cut <= events.length; cut++) {
      const first = reasoningPipeline(from(events.slice(0, cut)), {
        producer: PRODUCER,
        onWarning: () => {},
        scheduler: fixedClock(),
      });
      await lastValueFrom(first.events$.pipe(toArray())).catch(() => undefined);
      const snapshot = JSON.parse(JSON.stringify(first.exportState())) as ReturnType<typeof first.exportState>;
      const second = await run(events.slice(cut), { resumeFrom: resumable(snapshot) });
      expect(second.history).toEqual(whole.history);
    }
  });

  it("D-HISTORY-IDS finding 4: the run input given back as initialMessages, initialHistory, a RUN_STARTED.input echo or a MESSAGES_SNAPSHOT gives the same messages", async () => {
    const input = toRunInputMessages(saved, { producer: PRODUCER });
    const ways = await Promise.all([
      run([], { initialMessages: input }),
      run([], { initialHistory: { messages: input, incomplete: [], issuers: [], durations: [] } }),
      run([ev.runStarted("r", { input: { threadId: "t1", runId: "r", messages: input } }), ev.runFinished("r")]),
      run([ev.runStarted("r"), ev.messagesSnapshot(input), ev.runFinished("r")]),
    ]);
    for (const way of ways) expect(way.history.messages).toEqual(input);
  });
});

describe("D-HISTORY-IDS numbers JSON cannot tell apart", () => {
  it("D-HISTORY-IDS: a -0 in metadata or in a timestamp is held as 0, so the history stored and read back is equal", async () => {
    const { history } = await run([
      ev.runStarted("r"),
      ev.reasoningMessageStart("m1", { metadata: { k: { "": -0 } }, timestamp: -0 }),
      ev.reasoningMessageEnd("m1", { timestamp: -0 }),
      ev.runFinished("r"),
    ]);
    const metadata = (history.messages[0] as { metadata?: { k: Record<string, number> } }).metadata!;
    expect(Object.is(metadata.k[""], 0)).toBe(true);
    expect(Object.is(history.durations[0]!.startedAt, 0)).toBe(true);
    expect(Object.is(history.durations[0]!.endedAt, 0)).toBe(true);
    expect(parseHistory(serializeHistory(history))).toEqual(history);
  });
});

describe("D-ISSUER D-TOOL-RESULT-ID values on both messages under one id", () => {
  const B = "https://b.example/agent";
  const C = "https://c.example/agent";
  /** A saved conversation of B's in the shape above, the tool result holding a value of its own too. */
  const ofB: Message[] = [
    {
      id: "X",
      role: "assistant",
      toolCalls: [{ id: "call-1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
      encryptedValue: "b-assistant",
    },
    { id: "X", role: "tool", toolCallId: "call-1", content: "18 °C", encryptedValue: "b-tool-result" },
  ];

  it("D-HISTORY-IDS: a history the pipeline derives with both values (as initialMessages or a MESSAGES_SNAPSHOT) is stored, read back equal and resumed", async () => {
    const derived = [
      (await run([], { producer: B, initialMessages: ofB })).history,
      (await run([ev.runStarted("r"), ev.messagesSnapshot(ofB), ev.runFinished("r")], { producer: B })).history,
    ];
    for (const history of derived) {
      expect(history.issuers).toHaveLength(2);
      expect(parseHistory(serializeHistory(history))).toEqual(history);
      const first = reasoningPipeline(from([]), { producer: B, initialHistory: history });
      const resumed = await run([], { producer: B, resumeFrom: resumable(first.exportState()) });
      expect(resumed.history).toEqual(history);
    }
    // Each message has its own record (D-HISTORY-IDS): a second record for either is refused.
    expect(derived[0]!.issuers).toEqual([
      { subtype: "message", entityId: "X", issuer: B },
      { subtype: "message", entityId: "X", issuer: B, toolMessage: true },
    ]);
    for (const [at, kind] of [
      [0, "message"],
      [1, "tool message"],
    ] as const) {
      const again = JSON.parse(serializeHistory(derived[0]!)) as { issuers: unknown[] };
      again.issuers.push(again.issuers[at]);
      expect(() => parseHistory(again)).toThrow(`parseHistory: /issuers/2 is a second record for ${kind} "X"`);
    }
  });

  it("D-ISSUER D-HISTORY-IDS: each message's value goes back to the producer that issued it; C's value under X goes to C alone", async () => {
    const fromB = (await run([], { producer: B, initialMessages: ofB })).history;
    // C continues the conversation and issues a value for X: routed to the assistant message (D-TOOL-RESULT-ID).
    const { history } = await run(
      [ev.runStarted("r"), ev.encryptedValue("message", "X", "c-assistant"), ev.runFinished("r")],
      { producer: C, initialHistory: fromB },
    );
    const valuesFor = (producer: string) => {
      const warnings: string[] = [];
      const input = toRunInputMessages(history, { producer, onWarning: (w) => warnings.push(w.message) });
      return {
        values: input.map((m) => [m.role, (m as { encryptedValue?: string }).encryptedValue ?? null]),
        warnings,
      };
    };
    expect(valuesFor(C)).toEqual({
      values: [
        ["assistant", "c-assistant"],
        ["tool", null],
      ],
      warnings: [expect.stringContaining('1 value issued by https://b.example/agent (on message "X")')],
    });
    expect(valuesFor(B)).toEqual({
      values: [
        ["assistant", null],
        ["tool", "b-tool-result"],
      ],
      warnings: [expect.stringContaining('1 value issued by https://c.example/agent (on message "X")')],
    });
  });

  it("D-ISSUER D-HISTORY-IDS: a value routed to a tool message before a message of another role takes its id stays the tool message's", async () => {
    // The tool result comes first; the value names it (the only message X); then an answer reuses X.
    const { history } = await run(
      [
        ev.runStarted("r"),
        ev.toolCallStart("call-1", "get_weather"),
        ev.toolCallEnd("call-1"),
        ev.toolCallResult("X", "call-1", "18 °C"),
        ev.encryptedValue("message", "X", "b-tool-result"),
        ev.textStart("X"),
        ev.textEnd("X"),
        ev.runFinished("r"),
      ],
      { producer: B },
    );
    expect(history.issuers).toEqual([{ subtype: "message", entityId: "X", issuer: B, toolMessage: true }]);
    const warnings: unknown[] = [];
    const input = toRunInputMessages(history, { producer: B, onWarning: (w) => warnings.push(w) });
    expect(input.find((m) => m.role === "tool")).toMatchObject({ id: "X", encryptedValue: "b-tool-result" });
    expect(warnings).toEqual([]);
    expect(parseHistory(serializeHistory(history))).toEqual(history);
  });

  it("D-ISSUER D-KEEPER: a value the application sets on such a tool message is recorded as its own, and the other message's value still goes to B alone", async () => {
    const held = (
      await run([], { producer: B, initialMessages: [ofB[0]!, { ...ofB[1]!, encryptedValue: undefined } as Message] })
    ).history;
    const middleware = reasoningMiddleware({ producer: C, initialHistory: held, onWarning: () => {} });
    let received: RunAgentInput | undefined;
    const next = {
      run: (input: RunAgentInput) => {
        received = input;
        return from([ev.runStarted(), ev.runFinished()]);
      },
    };
    // The application's copies: the assistant message without its value, the tool result with one it set.
    const sent = [{ ...ofB[0]!, encryptedValue: undefined }, ofB[1]!] as Message[];
    await lastValueFrom((middleware(runInput({ messages: sent }), next) as Observable<unknown>).pipe(toArray()));
    expect(JSON.stringify(received!.messages)).not.toContain("b-assistant");
    expect(received!.messages.find((m) => m.role === "tool")).toMatchObject({ encryptedValue: "b-tool-result" });
    expect(middleware.history!.issuers).toEqual([
      { subtype: "message", entityId: "X", issuer: B },
      { subtype: "message", entityId: "X", issuer: C, toolMessage: true },
    ]);
  });

  it("D-HISTORY-IDS: a tool message's value reaching the history by a RUN_STARTED.input echo or a MESSAGES_SNAPSHOT has its own record", async () => {
    for (const events of [
      [ev.runStarted("r", { input: { threadId: "t1", runId: "r", messages: [ofB[1]!] } }), ev.runFinished("r")],
      [ev.runStarted("r"), ev.messagesSnapshot([ofB[1]!]), ev.runFinished("r")],
    ]) {
      const { history } = await run(events, { producer: B });
      expect(history.issuers).toEqual([{ subtype: "message", entityId: "X", issuer: B, toolMessage: true }]);
      expect(parseHistory(serializeHistory(history))).toEqual(history);
    }
  });

  it("D-HISTORY-IDS: `toolMessage` is `true` on a record of a message's value or absent; storage and a seed refuse anything else", () => {
    const history = {
      messages: ofB,
      incomplete: [],
      issuers: [{ subtype: "message" as const, entityId: "X", issuer: B, toolMessage: true as const }],
      durations: [],
    };
    expect(parseHistory(serializeHistory(history))).toEqual(history);
    for (const [record, pointer] of [
      [{ subtype: "message", entityId: "X", issuer: B, toolMessage: false }, "/issuers/0/toolMessage"],
      [{ subtype: "message", entityId: "X", issuer: B, toolMessage: "yes" }, "/issuers/0/toolMessage"],
      [{ subtype: "tool-call", entityId: "call-1", issuer: B, toolMessage: true }, "/issuers/0/toolMessage"],
    ] as const) {
      const stored = JSON.parse(serializeHistory(history)) as { issuers: unknown[] };
      stored.issuers = [record];
      expect(() => parseHistory(stored)).toThrow(`parseHistory: ${pointer}`);
      expect(() =>
        reasoningPipeline(from([]), { producer: B, initialHistory: { ...history, issuers: [record] } as never }),
      ).toThrow("initialHistory.issuers[0].toolMessage must be absent, or true");
    }
  });

  it("D-HISTORY-IDS: a stored history without any `toolMessage` may hold two records for an id a tool message shares, not three", () => {
    const plain = { subtype: "message" as const, entityId: "X", issuer: B };
    const stored = JSON.parse(
      serializeHistory({ messages: ofB, incomplete: [], issuers: [plain, plain], durations: [] }),
    ) as { issuers: unknown[] };
    expect(parseHistory(stored).issuers).toEqual([plain, plain]);
    stored.issuers.push(plain);
    expect(() => parseHistory(stored)).toThrow('parseHistory: /issuers/2 is a third record for message "X"');
  });

  it("D-HISTORY-IDS: a record written before tool messages had their own still reads as it meant", async () => {
    // A plain record naming only a tool message was that tool message's; with another X held it is the other's.
    const only: Message[] = [{ id: "X", role: "tool", toolCallId: "call-1", content: "18 °C", encryptedValue: "v" }];
    const legacy = {
      messages: only,
      incomplete: [],
      issuers: [{ subtype: "message" as const, entityId: "X", issuer: B }],
      durations: [],
    };
    expect(toRunInputMessages(legacy, { producer: B })[0]).toMatchObject({ encryptedValue: "v" });
    const own = [{ subtype: "message", entityId: "X", issuer: B, toolMessage: true }];
    expect((await run([], { producer: B, initialHistory: legacy })).history.issuers).toEqual(own);
    expect(parseHistory(serializeHistory(legacy)).issuers).toEqual(own);
    // A new value on it keeps one record, the new one, on every way in.
    const later = await run([ev.runStarted("r"), ev.encryptedValue("message", "X", "w"), ev.runFinished("r")], {
      producer: B,
      initialHistory: legacy,
    });
    expect(later.history.issuers).toEqual(own);
    expect(parseHistory(serializeHistory(later.history))).toEqual(later.history);
    const mixed = { ...legacy, issuers: [...legacy.issuers, { ...own[0]!, issuer: C }] } as ReasoningHistory;
    expect(parseHistory(serializeHistory(mixed)).issuers).toEqual([{ ...own[0], issuer: C }]);
    expect(toRunInputMessages(mixed, { producer: C, onWarning: () => {} })[0]).toMatchObject({ encryptedValue: "v" });
    const both = { ...legacy, messages: [ofB[0]!, ...only] };
    const warnings: unknown[] = [];
    const input = toRunInputMessages(both, { producer: B, onWarning: (w) => warnings.push(w) });
    expect(input.map((m) => (m as { encryptedValue?: string }).encryptedValue ?? null)).toEqual(["b-assistant", null]);
    expect(warnings).toHaveLength(1);
  });
});
