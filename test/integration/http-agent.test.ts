/**
 * The package where its users use it: a real `HttpAgent` (`@ag-ui/client` 1.0.0) talking to a real
 * HTTP server on 127.0.0.1 (text/event-stream, one `data:` frame per event, frames cut into small
 * TCP writes, also inside multi-byte characters), piped through `reasoningPipeline`.
 */
import { HttpAgent } from "@ag-ui/client";
import type { AssistantMessage, Message } from "@ag-ui/core";
import { reasoningPipeline, toRunInputMessages, ReasoningProtocolError, type ReasoningWarning } from "../../src";
import { agentEvents } from "../../src/integration/agent-events";
import { ev, sequentialIds } from "../../src/testing/builders";
import { useAgentServers } from "../support/sse-server";
import { runInput, runOverHttp } from "../support/http-run";
import { ANSWER, THOUGHTS, VALUES, turnOne, turnTwo } from "../support/turns";

const serve = useAgentServers();

/** The message with this id in a parsed request body. */
function sentMessage(body: unknown, id: string): Record<string, unknown> | undefined {
  const messages = (body as { messages?: Array<Record<string, unknown>> }).messages ?? [];
  return messages.find((m) => m.id === id);
}

describe("HttpAgent over real HTTP through reasoningPipeline", () => {
  it("R-TRANS-1 one HTTP request per run with events$, history$ and warnings$ all subscribed; multi-byte characters split across writes survive", async () => {
    const server = await serve([{ events: turnOne, writeSize: 5 }]);
    const agent = new HttpAgent({ url: server.url });
    const pipeline = reasoningPipeline(agentEvents(agent, runInput({ threadId: "thread-1", runId: "run-1" })), {
      producer: server.url,
      onWarning: () => {},
    });
    const types: string[] = [];
    const warnings: ReasoningWarning[] = [];
    let histories = 0;
    pipeline.history$.subscribe(() => histories++);
    pipeline.history$.subscribe(() => {});
    pipeline.warnings$.subscribe((w) => warnings.push(w));
    pipeline.warnings$.subscribe(() => {});
    pipeline.events$.subscribe(() => {});
    await new Promise<void>((resolve, reject) =>
      pipeline.events$.subscribe({ next: (e) => types.push(e.type), error: reject, complete: resolve }),
    );

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.stats.cutsInsideCharacters).toBeGreaterThan(0);
    expect(types).toEqual([
      "RUN_STARTED",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      ...THOUGHTS.map(() => "REASONING_MESSAGE_CONTENT"),
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "REASONING_ENCRYPTED_VALUE",
      "TEXT_MESSAGE_START",
      ...ANSWER.map(() => "TEXT_MESSAGE_CONTENT"),
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "REASONING_ENCRYPTED_VALUE",
      "REASONING_ENCRYPTED_VALUE",
      "RUN_FINISHED",
    ]);
    expect(warnings).toEqual([]);
    expect(histories).toBeGreaterThan(1);
    const [thinking, answer] = pipeline.history.messages;
    expect(thinking).toEqual({
      id: "think-1",
      role: "reasoning",
      content: THOUGHTS.join(""),
      encryptedValue: VALUES.reasoning,
    });
    expect(answer).toMatchObject({ id: "answer-1", role: "assistant", content: ANSWER.join(""), encryptedValue: "" });
    expect((answer as AssistantMessage).toolCalls).toEqual([
      {
        id: "call-1",
        type: "function",
        function: { name: "lookup_prices", arguments: '{"item":"café"}' },
        encryptedValue: VALUES.toolCall,
      },
    ]);
  });

  it("R-REASON-17 D-ISSUER turn 2 carries every turn-1 encrypted value byte-identical on its message or tool call; another producer receives none, with a warning", async () => {
    const agentA = await serve([{ events: turnOne }, { events: turnTwo }]);
    const agentB = await serve([{ events: turnTwo }]);

    const first = await runOverHttp(agentA.url, runInput({ threadId: "thread-1", runId: "run-1" }));
    expect(first.error).toBeUndefined();

    // Turn 2 to the producer that issued the values.
    const toA = toRunInputMessages(first.history, { producer: agentA.url, onWarning: () => {} });
    const second = await runOverHttp(agentA.url, runInput({ threadId: "thread-1", runId: "run-2", messages: toA }), {
      initialHistory: first.history,
    });
    expect(second.error).toBeUndefined();
    const bodyA = (await agentA.request(1)).json;
    const thinking = sentMessage(bodyA, "think-1");
    const answer = sentMessage(bodyA, "answer-1");
    expect(thinking).toMatchObject({ role: "reasoning", content: THOUGHTS.join("") });
    expect(thinking?.encryptedValue).toBe(VALUES.reasoning);
    expect(Buffer.from(thinking?.encryptedValue as string, "utf8")).toEqual(Buffer.from(VALUES.reasoning, "utf8"));
    expect(answer?.encryptedValue).toBe(VALUES.answer);
    const calls = answer?.toolCalls as Array<Record<string, unknown>>;
    expect(calls.map((c) => [c.id, c.encryptedValue])).toEqual([["call-1", VALUES.toolCall]]);
    expect((agentA.requests[1]!.text.match(/ZW5jcnlwdGVk/g) ?? []).length).toBe(2000);

    // The same history offered to another producer: nothing of A's leaves, and a warning says what.
    const withheld: ReasoningWarning[] = [];
    const toB = toRunInputMessages(second.history, { producer: agentB.url, onWarning: (w) => withheld.push(w) });
    const third = await runOverHttp(agentB.url, runInput({ threadId: "thread-1", runId: "run-3", messages: toB }));
    expect(third.error).toBeUndefined();
    const rawB = agentB.requests[0]!.text;
    expect(rawB).not.toContain("encryptedValue");
    expect(rawB).not.toContain("ZW5jcnlwdGVk");
    expect(sentMessage(agentB.requests[0]!.json, "think-1")).toMatchObject({
      role: "reasoning",
      content: THOUGHTS.join(""),
    });
    expect(withheld.map((w) => [w.code, w.lossy])).toEqual([["VALUE_WITHHELD", true]]);
    expect(withheld[0]!.ids).toEqual(expect.arrayContaining(["think-1", "answer-1", "call-1"]));
    expect(withheld[0]!.message).not.toContain("gAAAAA");
    expect(withheld[0]!.message).not.toContain("ZW5jcnlwdGVk");
  });

  it("R-DEP-2 a legacy producer streaming THINKING_* ends up as reasoning messages with role `reasoning`", async () => {
    const server = await serve([
      {
        events: [
          ev.runStarted("legacy-run"),
          ev.thinkingStart({ title: "Planning" }),
          ev.thinkingTextMessageStart(),
          ev.thinkingTextMessageContent("Старый "),
          ev.thinkingTextMessageContent("протокол 😀"),
          ev.thinkingTextMessageEnd(),
          ev.thinkingEnd(),
          ev.textStart("legacy-answer"),
          ev.textContent("legacy-answer", "Done."),
          ev.textEnd("legacy-answer"),
          ev.runFinished("legacy-run"),
        ],
        writeSize: 3,
      },
    ]);
    const run = await runOverHttp(server.url, runInput(), { idFactory: sequentialIds("legacy-") });

    expect(run.error).toBeUndefined();
    expect(run.events.map((e) => e.type).filter((t) => t.startsWith("THINKING_"))).toEqual([]);
    const reasoning = run.history.messages.filter((m) => m.role === "reasoning");
    expect(reasoning).toEqual([
      { id: expect.stringMatching(/^legacy-/), role: "reasoning", content: "Старый протокол 😀" },
    ]);
    expect(run.history.messages.map((m) => m.role)).toEqual(["reasoning", "assistant"]);
    const span = run.events.find((e) => e.type === "REASONING_START");
    expect(span?.metadata).toEqual({ "agui-reasoning": { thinkingTitle: "Planning" } });
    expect(run.warnings.filter((w) => w.code === "THINKING_UPCAST")).toHaveLength(6);
    expect(run.warnings.map((w) => w.code)).toContain("THINKING_TITLE_MOVED");
    expect(run.warnings.some((w) => w.message.includes("Planning"))).toBe(false);
  });

  it("R-RUN-5 unsubscribing mid-stream aborts the request: the server sees the connection close", async () => {
    const server = await serve([{ events: turnOne, holdAfter: 4 }]);
    const agent = new HttpAgent({ url: server.url });
    const pipeline = reasoningPipeline(agentEvents(agent, runInput()), { producer: server.url, onWarning: () => {} });
    const seen: string[] = [];
    let ended = false;
    const history = pipeline.history$.subscribe();
    const warnings = pipeline.warnings$.subscribe();
    const events = pipeline.events$.subscribe({
      next: (e) => seen.push(e.type),
      error: () => (ended = true),
      complete: () => (ended = true),
    });
    const request = await server.request(0);
    await waitFor(() => request.stats.framesSent === 4 && seen.length >= 5);

    events.unsubscribe();
    history.unsubscribe();
    warnings.unsubscribe();

    await expect(withTimeout(request.end, 5_000)).resolves.toBe("client-closed");
    expect(ended).toBe(false);
    expect(seen).toEqual([
      "RUN_STARTED",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_CONTENT",
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it("D-TRUNC a server ending the response mid-run yields RUN_TRUNCATED, and the history keeps what arrived", async () => {
    // Stops after the second answer delta: the reasoning is complete, the answer is not.
    const cut = turnOne.findIndex((e) => e.type === "TEXT_MESSAGE_CONTENT") + 2;
    const server = await serve([{ events: turnOne, endAfter: cut }]);
    const run = await runOverHttp(server.url, runInput());

    expect(run.error).toBeInstanceOf(ReasoningProtocolError);
    const error = run.error as ReasoningProtocolError;
    expect(error.code).toBe("RUN_TRUNCATED");
    expect(error.eventIndex).toBe(cut);
    expect(error.ids).toContain("answer-1");
    expect(run.events.map((e) => e.type)).not.toContain("RUN_FINISHED");
    expect(run.events.at(-1)).toEqual(ev.textContent("answer-1", ANSWER[1]!));
    expect(run.history.messages).toEqual<Message[]>([
      { id: "think-1", role: "reasoning", content: THOUGHTS.join(""), encryptedValue: VALUES.reasoning },
      { id: "answer-1", role: "assistant", content: ANSWER.slice(0, 2).join("") },
    ]);
    expect(run.history.incomplete).toEqual([{ kind: "message", id: "answer-1", reason: "truncated" }]);
    expect((await server.request(0)).stats.framesSent).toBe(cut);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
