/**
 * D-KEEPER: the middleware keeps the conversation across runs, whatever the application's message
 * store drops. A real `HttpAgent` over loopback; between the turns the "application" rebuilds the
 * agent's messages from a lossy store, as chat-UI libraries do (assistant-ui drops tool calls'
 * values), and the request the server receives on turn 2 must still carry every value that server
 * issued, byte for byte, and none issued by another producer.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import { messagesOf, type ReasoningHistory, type ReasoningWarning } from "../../src";
import type { PipelineSnapshot } from "../../src/resilience";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { useAgentServers } from "../support/sse-server";
import { runInput } from "../support/http-run";
import { dropsToolCallValues, textOnly, type Store } from "../support/lossy-stores";

const serve = useAgentServers();

/** Values as hostile as an opaque string gets: astral characters, NUL, U+2028, quotes, 100 kB. */
const B_VALUES = {
  reasoning: "b:\u{1F914}\u{1D11E} NUL\u0000 LS\u2028 PS\u2029 \"double\" 'single' \\back`tick",
  toolCall: `b:${'\u{1F600}\u0000\u2028"\\ZW5jcnlwdGVk'.repeat(5000)}`.slice(0, 100_000),
  answer: 'b:{"looks":"like json"}\u0000',
};

/** The producer the conversation started with, and the values it issued (they must never reach B). */
const A_URL = "http://127.0.0.1:9/agent-a";
const A_VALUES = { reasoning: "a:reasoning-secret\u2028", toolCall: "a:tool-call-secret\u0000" };

/** A's conversation, as the application saved it: values of A and an item A's run left truncated. */
const fromA: ReasoningHistory = {
  messages: [
    { id: "u1", role: "user", content: "Compare the prices" },
    { id: "a-think", role: "reasoning", content: "A thought", encryptedValue: A_VALUES.reasoning },
    {
      id: "a-answer",
      role: "assistant",
      content: "Looking",
      toolCalls: [
        {
          id: "a-call",
          type: "function",
          function: { name: "lookup", arguments: "{}" },
          encryptedValue: A_VALUES.toolCall,
        },
      ],
    },
    { id: "a-result", role: "tool", toolCallId: "a-call", content: "42" },
    { id: "a-cut", role: "reasoning", content: "cut o" },
  ],
  durations: [],
  incomplete: [{ kind: "message", id: "a-cut", reason: "truncated" }],
  issuers: [
    { subtype: "message", entityId: "a-think", issuer: A_URL },
    { subtype: "tool-call", entityId: "a-call", issuer: A_URL },
  ],
};

const turnOne = [
  ev.runStarted("b-run-1", { threadId: "thread-k" }),
  ev.reasoningMessageStart("b-think"),
  ev.reasoningMessageContent("b-think", "B weighs \u{1F914}"),
  ev.reasoningMessageEnd("b-think"),
  ev.encryptedValue("message", "b-think", B_VALUES.reasoning),
  ev.textStart("b-answer"),
  ev.textContent("b-answer", "Prices: \u20AC12"),
  ev.textEnd("b-answer"),
  ev.toolCallStart("b-call", "lookup_prices", { parentMessageId: "b-answer" }),
  ev.toolCallArgs("b-call", '{"item":"caf\u00e9"}'),
  ev.toolCallEnd("b-call"),
  ev.encryptedValue("tool-call", "b-call", B_VALUES.toolCall),
  ev.encryptedValue("message", "b-answer", B_VALUES.answer),
  ev.runFinished("b-run-1", { threadId: "thread-k" }),
];
const turnTwo = [
  ev.runStarted("b-run-2", { threadId: "thread-k" }),
  ev.textStart("b-answer-2"),
  ev.textContent("b-answer-2", "Restored."),
  ev.textEnd("b-answer-2"),
  ev.runFinished("b-run-2", { threadId: "thread-k" }),
];

/** A store that rebuilds its list in another order, loses the first user message, and every value. */
const reordersAndRemoves: Store = (messages) => textOnly(messages.filter((m) => m.id !== "u1")).reverse();

const stores: Array<[string, Store]> = [
  ["drops tool calls' values", dropsToolCallValues],
  ["drops every value", textOnly],
  ["reorders and removes a message", reordersAndRemoves],
];

interface SentMessage {
  id: string;
  encryptedValue?: string;
  toolCalls?: Array<{ id: string; encryptedValue?: string }>;
}
const sentMessages = (json: unknown): SentMessage[] => (json as { messages: SentMessage[] }).messages;
const valueOf = (messages: readonly SentMessage[], id: string): string | undefined =>
  messages.find((m) => m.id === id)?.encryptedValue;
const callValueOf = (messages: readonly SentMessage[], id: string): string | undefined =>
  messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === id)?.encryptedValue;

/** Runs turn 1 and turn 2 with the application's messages going through `store` before each. */
async function twoTurns(store: Store) {
  const server = await serve([
    { events: turnOne, writeSize: 65_536 },
    { events: turnTwo, writeSize: 65_536 },
  ]);
  const warnings: ReasoningWarning[] = [];
  const middleware = reasoningMiddleware({ producer: server.url, initialHistory: fromA, onWarning: () => {} });
  middleware.warnings$.subscribe((w) => warnings.push(w));
  const agent = new HttpAgent({ url: server.url, threadId: "thread-k" }).use(middleware);
  // As docs/integration.md shows: the saved history is the middleware's, its messages the application's.
  agent.setMessages(store(messagesOf(fromA)));
  await agent.runAgent({ runId: "b-run-1" });
  const afterOne = middleware.history!;
  agent.setMessages([...store(agent.messages), { id: "u2", role: "user", content: "And now?" }]);
  const expectedOrder = agent.messages.map((m) => m.id);
  await agent.runAgent({ runId: "b-run-2" });
  return { server, middleware, afterOne, warnings, expectedOrder };
}

describe("D-KEEPER the middleware keeps the conversation whatever the application's message store drops", () => {
  it.each(stores)(
    "D-KEEPER R-REASON-17 a store that %s: turn 2's request carries every value the server issued, byte-identical, and none of another producer",
    async (_name, store) => {
      const { server, expectedOrder } = await twoTurns(store);
      const request = await server.request(1);
      const sent = sentMessages(request.json);
      expect(sent.map((m) => m.id)).toEqual(expectedOrder);
      expect(valueOf(sent, "b-think")).toBe(B_VALUES.reasoning);
      expect(valueOf(sent, "b-answer")).toBe(B_VALUES.answer);
      expect(callValueOf(sent, "b-call")).toBe(B_VALUES.toolCall);
      // Byte for byte on the wire too: the JSON text of each value is in the body as JSON.stringify writes it.
      const raw = request.text;
      for (const value of Object.values(B_VALUES)) expect(raw).toContain(JSON.stringify(value).slice(1, -1));
      for (const value of Object.values(A_VALUES)) expect(raw).not.toContain(JSON.stringify(value).slice(1, -1));
      expect(raw).not.toContain("a:");
      // Turn 1 sent none of A's values either.
      expect(server.requests[0]!.text).not.toContain("a:");
    },
  );

  it.each(stores)(
    "D-KEEPER a store that %s: after turn 2 the middleware's history still holds every value, issuer record and incomplete item",
    async (_name, store) => {
      const { server, middleware, expectedOrder } = await twoTurns(store);
      const history = middleware.history!;
      // The application's order; a message it no longer sends has left (u1, for the store that removes it).
      expect(history.messages.map((m) => m.id)).toEqual([...expectedOrder, "b-answer-2"]);
      const held = history.messages as readonly SentMessage[];
      expect(valueOf(held, "a-think")).toBe(A_VALUES.reasoning);
      expect(callValueOf(held, "a-call")).toBe(A_VALUES.toolCall);
      expect(valueOf(held, "b-think")).toBe(B_VALUES.reasoning);
      expect(valueOf(held, "b-answer")).toBe(B_VALUES.answer);
      expect(callValueOf(held, "b-call")).toBe(B_VALUES.toolCall);
      expect([...history.issuers].sort((x, y) => x.entityId.localeCompare(y.entityId))).toEqual([
        { subtype: "tool-call", entityId: "a-call", issuer: A_URL },
        { subtype: "message", entityId: "a-think", issuer: A_URL },
        { subtype: "message", entityId: "b-answer", issuer: server.url },
        { subtype: "tool-call", entityId: "b-call", issuer: server.url },
        { subtype: "message", entityId: "b-think", issuer: server.url },
      ]);
      expect(history.incomplete).toEqual([{ kind: "message", id: "a-cut", reason: "truncated" }]);
    },
  );

  it("D-KEEPER finding 1: with a store that drops tool calls' values, the history after turn 2 still holds the tool call's value (it re-seeded from the lossy list)", async () => {
    const { middleware, afterOne } = await twoTurns(dropsToolCallValues);
    expect(callValueOf(afterOne.messages as readonly SentMessage[], "b-call")).toBe(B_VALUES.toolCall);
    // The run-2 seed (the first history of run 2) came from the middleware, not from the lossy list.
    expect(callValueOf(middleware.history!.messages as readonly SentMessage[], "b-call")).toBe(B_VALUES.toolCall);
  });

  it("D-KEEPER D-ISSUER finding 2: another producer's values, records and incomplete items survive a run to B, and go back to A", async () => {
    const { middleware } = await twoTurns(textOnly);
    // Back to A with the history B's middleware kept: A gets its own values again, and none of B's.
    const serverA = await serve([{ events: turnTwo, writeSize: 65_536 }]);
    const history = middleware.history!;
    const toA = reasoningMiddleware({
      producer: serverA.url,
      initialHistory: {
        ...history,
        issuers: history.issuers.map((r) => (r.issuer === A_URL ? { ...r, issuer: serverA.url } : r)),
      },
      onWarning: () => {},
    });
    const agentA = new HttpAgent({ url: serverA.url, threadId: "thread-k" }).use(toA);
    agentA.setMessages(textOnly(messagesOf(history)));
    await agentA.runAgent({ runId: "a-run-2" });
    const sent = sentMessages((await serverA.request(0)).json);
    expect(valueOf(sent, "a-think")).toBe(A_VALUES.reasoning);
    expect(callValueOf(sent, "a-call")).toBe(A_VALUES.toolCall);
    expect(serverA.requests[0]!.text).not.toContain("b:");
  });

  it("D-KEEPER the values left out for another producer are reported once per run, lossy, naming ids only", async () => {
    const { warnings } = await twoTurns(textOnly);
    const withheld = warnings.filter((w) => w.code === "VALUE_WITHHELD");
    expect(withheld).toHaveLength(2);
    for (const w of withheld) {
      expect(w.lossy).toBe(true);
      expect([...(w.ids ?? [])].sort()).toEqual(["a-call", "a-think"]);
      expect(JSON.stringify(w)).not.toContain("secret");
    }
  });
});

describe("D-KEEPER the middleware's next run (with a stand-in for the next agent)", () => {
  const script = [ev.runStarted(), ev.runFinished()];

  /** Runs the middleware once with these messages; returns what the next agent received. */
  async function runOnce(middleware: ReturnType<typeof reasoningMiddleware>, messages: Message[]) {
    let received: RunAgentInput | undefined;
    const next = {
      run: (i: RunAgentInput) => {
        received = i;
        return from(script);
      },
    };
    await lastValueFrom((middleware(runInput({ messages }), next) as Observable<unknown>).pipe(toArray()));
    return received!.messages;
  }

  const call = (id: string, encryptedValue?: string) => ({
    id,
    type: "function" as const,
    function: { name: "f", arguments: "{}" },
    ...(encryptedValue === undefined ? {} : { encryptedValue }),
  });

  it("D-KEEPER finding 3: resumeFrom is refused when the middleware is created, with a clear error", () => {
    const snapshot = { format: "agui-reasoning/pipeline-state" } as unknown as PipelineSnapshot;
    expect(() => reasoningMiddleware({ producer: "P", resumeFrom: snapshot } as never)).toThrow(
      /reasoningMiddleware does not take resumeFrom.*initialHistory/,
    );
  });

  it("D-KEEPER D-ISSUER a value the application sets itself is sent as given and held as this producer's", async () => {
    const initialHistory: ReasoningHistory = {
      messages: [
        { id: "r1", role: "reasoning", content: "x", encryptedValue: "held-A" },
        { id: "a1", role: "assistant", toolCalls: [call("c1", "held-P")] },
      ],
      durations: [],
      incomplete: [],
      issuers: [
        { subtype: "message", entityId: "r1", issuer: "A" },
        { subtype: "tool-call", entityId: "c1", issuer: "P" },
      ],
    };
    const middleware = reasoningMiddleware({ producer: "P", initialHistory, onWarning: () => {} });
    const sent = await runOnce(middleware, [
      { id: "r1", role: "reasoning", content: "x", encryptedValue: "app-set" },
      { id: "a1", role: "assistant", toolCalls: [call("c1", "app-set-too")] },
    ]);
    expect(sent).toEqual([
      { id: "r1", role: "reasoning", content: "x", encryptedValue: "app-set" },
      { id: "a1", role: "assistant", toolCalls: [call("c1", "app-set-too")] },
    ]);
    expect(middleware.history?.messages).toEqual(sent);
    expect(middleware.history?.issuers).toEqual([
      { subtype: "message", entityId: "r1", issuer: "P" },
      { subtype: "tool-call", entityId: "c1", issuer: "P" },
    ]);
  });

  it("D-KEEPER R-INPUT-4 held activity messages, which a client never sends, stay after the message they followed", async () => {
    const activity = (id: string): Message => ({ id, role: "activity", activityType: "plan", content: { step: id } });
    const initialHistory: ReasoningHistory = {
      messages: [
        activity("act0"),
        { id: "u1", role: "user", content: "a" },
        activity("act1"),
        activity("act2"),
        { id: "u2", role: "user", content: "b" },
      ],
      durations: [],
      incomplete: [],
      issuers: [],
    };
    const middleware = reasoningMiddleware({ producer: "P", initialHistory, onWarning: () => {} });
    const sent = await runOnce(middleware, [
      { id: "u2", role: "user", content: "b" },
      { id: "u1", role: "user", content: "a" },
    ]);
    expect(sent.map((m) => m.id)).toEqual(["u2", "u1"]);
    expect(middleware.history?.messages.map((m) => m.id)).toEqual(["act0", "u2", "u1", "act1", "act2"]);
  });

  it("D-KEEPER D-TOOL-RESULT-ID a tool message and an assistant message under one id are two messages: each gets its own value back", async () => {
    const initialHistory: ReasoningHistory = {
      messages: [
        { id: "X", role: "assistant", toolCalls: [call("c1", "call-value")], encryptedValue: "assistant-value" },
        { id: "X", role: "tool", toolCallId: "c1", content: "42" },
      ],
      durations: [],
      incomplete: [],
      issuers: [
        { subtype: "message", entityId: "X", issuer: "P" },
        { subtype: "tool-call", entityId: "c1", issuer: "P" },
      ],
    };
    const middleware = reasoningMiddleware({ producer: "P", initialHistory, onWarning: () => {} });
    const sent = await runOnce(middleware, [
      { id: "X", role: "assistant", toolCalls: [call("c1")] },
      { id: "X", role: "tool", toolCallId: "c1", content: "42" },
    ]);
    expect(sent).toEqual(initialHistory.messages);
    expect(middleware.history?.messages).toEqual(initialHistory.messages);
  });

  it("D-KEEPER R-EVT-8 a message the application sends twice is held once; each copy gets the held values", async () => {
    const initialHistory: ReasoningHistory = {
      messages: [{ id: "r1", role: "reasoning", content: "x", encryptedValue: "v" }],
      durations: [],
      incomplete: [],
      issuers: [{ subtype: "message", entityId: "r1", issuer: "P" }],
    };
    const middleware = reasoningMiddleware({ producer: "P", initialHistory, onWarning: () => {} });
    const copy: Message = { id: "r1", role: "reasoning", content: "x" };
    const sent = await runOnce(middleware, [copy, { ...copy }]);
    expect(sent).toEqual([initialHistory.messages[0], initialHistory.messages[0]]);
    expect(middleware.history?.messages).toEqual(initialHistory.messages);
  });

  it("D-KEEPER a run input message that is not a message fails the run with an error naming its index", async () => {
    const middleware = reasoningMiddleware({ producer: "P", onWarning: () => {} });
    await expect(
      runOnce(middleware, [{ id: "u1", role: "user", content: "a" }, { role: "user" } as never]),
    ).rejects.toThrow(
      "agui-reasoning: reasoningMiddleware: run input messages[1]: `id` must be a string (got undefined)",
    );
  });

  it("D-KEEPER a sparse run input message list (a store's structured clone) fails at its first hole, not slot by slot", async () => {
    const middleware = reasoningMiddleware({ producer: "P", onWarning: () => {} });
    const sparse = Object.assign(new Array<Message>(2 ** 32 - 1), { 0: { id: "u1", role: "user", content: "a" } });
    await expect(runOnce(middleware, sparse)).rejects.toThrow(
      /^agui-reasoning: reasoningMiddleware: run input messages\[1\]: /,
    );
  });
});
