/**
 * D-KEEPER, R-REASON-17, R-INPUT-3: a chat UI's store may keep the user's and the assistant's messages and
 * drop the reasoning messages between them (a store of what it shows, reasoning folded into the answer).
 * That is a lossy store, not a removal: the middleware restores each held reasoning message the
 * application left out while it still sends the message the reasoning preceded, in its place, with its
 * value (to its producer only). A turn the application removed (regenerate, edit: the answer is gone)
 * takes its reasoning with it.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message, RunAgentInput } from "@ag-ui/core";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import type { ReasoningHistory, ReasoningWarning } from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { runInput } from "../support/http-run";
import { valueOf } from "../support/lossy-stores";
import { useAgentServers } from "../support/sse-server";

const serve = useAgentServers();
const P = "http://127.0.0.1:9/agent";
const OTHER = "http://127.0.0.1:9/other";

const user = (id: string): Message => ({ id, role: "user", content: id });
const reasoning = (id: string, encryptedValue?: string): Message => ({
  id,
  role: "reasoning",
  content: `${id} text`,
  ...(encryptedValue === undefined ? {} : { encryptedValue }),
});
const answer = (id: string, callId?: string): Message => ({
  id,
  role: "assistant",
  content: id,
  ...(callId === undefined
    ? {}
    : { toolCalls: [{ id: callId, type: "function", function: { name: "f", arguments: "{}" } }] }),
});
const tool = (id: string, callId: string): Message => ({ id, role: "tool", toolCallId: callId, content: "42" });

/** A conversation the middleware holds: two turns, reasoning around a tool call, values of P and of another producer. */
const held: ReasoningHistory = {
  messages: [
    user("u1"),
    reasoning("r1", "P:r1"),
    answer("a1", "c1"),
    tool("t1", "c1"),
    reasoning("r2", "OTHER:r2"),
    reasoning("r3"),
    answer("a2"),
    user("u2"),
    reasoning("r4", "P:r4"),
    answer("a3"),
  ],
  incomplete: [],
  issuers: [
    { subtype: "message", entityId: "r1", issuer: P },
    { subtype: "message", entityId: "r2", issuer: OTHER },
    { subtype: "message", entityId: "r4", issuer: P },
  ],
  durations: [],
};
const withoutReasoning = (messages: readonly Message[]): Message[] =>
  messages.filter((m) => m.role !== "reasoning").map((m) => ({ ...m }));

/** One middleware run over `messages`; what the next agent received, the history and the warnings. */
async function runOnce(messages: Message[], initialHistory: ReasoningHistory = held) {
  const warnings: ReasoningWarning[] = [];
  const middleware = reasoningMiddleware({ producer: P, initialHistory, onWarning: (w) => warnings.push(w) });
  let received: RunAgentInput | undefined;
  const next = {
    run: (input: RunAgentInput) => {
      received = input;
      return from([ev.runStarted(), ev.runFinished()]);
    },
  };
  await lastValueFrom((middleware(runInput({ messages }), next) as Observable<unknown>).pipe(toArray()));
  return { sent: received!.messages, history: middleware.history!, warnings };
}
const ids = (messages: readonly Message[]) => messages.map((m) => m.id);

describe("D-KEEPER reasoning messages the application's store dropped", () => {
  it("D-KEEPER R-REASON-17 R-INPUT-3 each is restored before the message it preceded, in the request and the history, with this producer's value", async () => {
    const { sent, history } = await runOnce([...withoutReasoning(held.messages), user("u3")]);
    expect(ids(sent)).toEqual(["u1", "r1", "a1", "t1", "r2", "r3", "a2", "u2", "r4", "a3", "u3"]);
    expect(valueOf(sent, "r1")).toBe("P:r1");
    expect(valueOf(sent, "r4")).toBe("P:r4");
    expect(ids(history.messages)).toEqual(ids(sent));
    expect(valueOf(history.messages, "r1")).toBe("P:r1");
  });

  it("D-KEEPER D-ISSUER R-REASON-26 a restored message's value of another producer stays in the history and is withheld from the request", async () => {
    const { sent, history, warnings } = await runOnce(withoutReasoning(held.messages));
    expect(ids(sent)).toContain("r2");
    expect(valueOf(sent, "r2")).toBeUndefined();
    expect(valueOf(history.messages, "r2")).toBe("OTHER:r2");
    expect(history.issuers).toContainEqual({ subtype: "message", entityId: "r2", issuer: OTHER });
    expect(warnings.filter((w) => w.code === "VALUE_WITHHELD").flatMap((w) => w.ids ?? [])).toEqual(["r2"]);
  });

  it("D-KEEPER a turn the application removed (regenerate: the answer is gone) takes its reasoning with it", async () => {
    const kept = withoutReasoning(held.messages).filter((m) => m.id !== "a3");
    const { sent, history } = await runOnce(kept);
    expect(ids(sent)).toEqual(["u1", "r1", "a1", "t1", "r2", "r3", "a2", "u2"]);
    expect(ids(history.messages)).not.toContain("r4");
    expect(history.issuers.map((r) => r.entityId)).not.toContain("r4");
  });

  it("D-KEEPER a reasoning message with no message after it (a cut turn) is not restored", async () => {
    const cut: ReasoningHistory = { ...held, messages: [user("u1"), reasoning("r1", "P:r1")] };
    const { sent } = await runOnce([user("u1")], cut);
    expect(ids(sent)).toEqual(["u1"]);
  });

  it("D-KEEPER R-REASON-17 through a real HttpAgent: an application keeping only what it shows sends the reasoning's value back on turn 2", async () => {
    const server = await serve([
      {
        events: [
          ev.runStarted("run-1", { threadId: "t" }),
          ev.reasoningMessageStart("think"),
          ev.reasoningMessageContent("think", "weighing"),
          ev.reasoningMessageEnd("think"),
          ev.encryptedValue("message", "think", "server:value\u2028\u0000"),
          ev.textStart("answer"),
          ev.textContent("answer", "42"),
          ev.textEnd("answer"),
          ev.runFinished("run-1", { threadId: "t" }),
        ],
      },
      { events: [ev.runStarted("run-2", { threadId: "t" }), ev.runFinished("run-2", { threadId: "t" })] },
    ]);
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const agent = new HttpAgent({ url: server.url, threadId: "t" }).use(middleware);
    agent.setMessages([user("q1")]);
    await agent.runAgent({ runId: "run-1" });
    agent.setMessages([...withoutReasoning(agent.messages), user("q2")]);
    await agent.runAgent({ runId: "run-2" });
    const second = (await server.request(1)).json as { messages: Array<{ id: string; encryptedValue?: string }> };
    expect(second.messages.map((m) => m.id)).toEqual(["q1", "think", "answer", "q2"]);
    expect(second.messages[1]!.encryptedValue).toBe("server:value\u2028\u0000");
  });
});
