/**
 * The second way in: `agent.use(reasoningMiddleware(options))` on a real `HttpAgent`, driven by
 * `agent.runAgent()` against the local HTTP server.
 */
import { HttpAgent } from "@ag-ui/client";
import { concat, from, lastValueFrom, NEVER, tap, toArray, type Observable } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import type { ReasoningHistory, ReasoningWarning } from "../../src";
import { ReasoningProtocolError } from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { mockAgent } from "../../src/testing/mock-agent";
import { useAgentServers } from "../support/sse-server";
import { ANSWER, THOUGHTS, VALUES, turnOne, turnTwo } from "../support/turns";
import { runInput } from "../support/http-run";

const serve = useAgentServers();

function sent(body: unknown): Array<Record<string, unknown>> {
  return (body as { messages?: Array<Record<string, unknown>> }).messages ?? [];
}

describe("reasoningMiddleware on HttpAgent.runAgent()", () => {
  it("R-REASON-17 the history is reachable by callback, subject and getter, and turn 2 sends every value back unchanged", async () => {
    const server = await serve([{ events: turnOne }, { events: turnTwo }]);
    const fromCallback: ReasoningHistory[] = [];
    const fromSubject: ReasoningHistory[] = [];
    const middleware = reasoningMiddleware({
      producer: server.url,
      onWarning: () => {},
      onHistory: (h) => fromCallback.push(h),
    });
    middleware.history$.subscribe((h) => fromSubject.push(h));
    const agent = new HttpAgent({ url: server.url, threadId: "thread-1" }).use(middleware);

    await agent.runAgent({ runId: "run-1" });
    expect(server.requests).toHaveLength(1);
    expect(middleware.history?.messages.map((m) => [m.id, m.role])).toEqual([
      ["think-1", "reasoning"],
      ["answer-1", "assistant"],
    ]);
    expect(middleware.history?.messages[0]).toEqual({
      id: "think-1",
      role: "reasoning",
      content: THOUGHTS.join(""),
      encryptedValue: VALUES.reasoning,
    });
    expect(fromSubject.at(-1)).toBe(middleware.history);
    expect(fromCallback.at(-1)).toBe(middleware.history);

    await agent.runAgent({ runId: "run-2" });
    const body = sent((await server.request(1)).json);
    const thinking = body.find((m) => m.id === "think-1");
    const answer = body.find((m) => m.id === "answer-1");
    expect(thinking?.encryptedValue).toBe(VALUES.reasoning);
    expect(answer).toMatchObject({ content: ANSWER.join(""), encryptedValue: VALUES.answer });
    expect((answer?.toolCalls as Array<Record<string, unknown>>).map((c) => c.encryptedValue)).toEqual([
      VALUES.toolCall,
    ]);
    expect(middleware.history?.messages.map((m) => m.id)).toEqual(["think-1", "answer-1", "answer-2"]);
    expect(fromSubject.at(-1)).toBe(middleware.history);
  });

  it("D-ISSUER a second agent sharing the history sends none of the first producer's values, with a VALUE_WITHHELD warning", async () => {
    const serverA = await serve([{ events: turnOne }]);
    const serverB = await serve([{ events: turnTwo }]);
    const first = reasoningMiddleware({ producer: serverA.url, onWarning: () => {} });
    const agentA = new HttpAgent({ url: serverA.url, threadId: "thread-1" }).use(first);
    await agentA.runAgent({ runId: "run-1" });

    const warnings: ReasoningWarning[] = [];
    const second = reasoningMiddleware({ producer: serverB.url, initialHistory: first.history, onWarning: () => {} });
    second.warnings$.subscribe((w) => warnings.push(w));
    const agentB = new HttpAgent({ url: serverB.url, threadId: "thread-1" }).use(second);
    agentB.setMessages(agentA.messages);
    expect(JSON.stringify(agentB.messages)).toContain("encryptedValue");

    await agentB.runAgent({ runId: "run-2" });
    const raw = serverB.requests[0]!.text;
    expect(raw).not.toContain("encryptedValue");
    expect(sent(serverB.requests[0]!.json).map((m) => m.id)).toEqual(["think-1", "answer-1"]);
    const withheld = warnings.filter((w) => w.code === "VALUE_WITHHELD");
    expect(withheld).toHaveLength(1);
    expect(withheld[0]!.lossy).toBe(true);
    expect(withheld[0]!.ids).toEqual(expect.arrayContaining(["think-1", "answer-1", "call-1"]));
  });

  it("R-REASON-9 a violation fails runAgent() with the ReasoningProtocolError, and the history keeps what arrived", async () => {
    const server = await serve([
      {
        events: [
          ev.runStarted(),
          ev.reasoningMessageStart("m1"),
          ev.reasoningMessageContent("m1", "kept"),
          ev.reasoningMessageEnd("m1"),
          ev.reasoningMessageContent("orphan", "x"),
          ev.runFinished(),
        ],
      },
    ]);
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const agent = new HttpAgent({ url: server.url }).use(middleware);
    const consoleError = jest.spyOn(console, "error").mockImplementation(() => {});
    try {
      const failure = await agent.runAgent().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(ReasoningProtocolError);
      expect(failure).toMatchObject({ code: "ORPHAN_CONTENT", eventIndex: 4, ids: ["orphan"] });
    } finally {
      consoleError.mockRestore();
    }
    expect(middleware.history?.messages).toEqual([{ id: "m1", role: "reasoning", content: "kept" }]);
    // In the middleware path the client owns the request, and its run() reads the response to the
    // end even after the failure (agent.abortRun() is how to stop it): let it finish.
    await expect(server.requests[0]!.end).resolves.toBe("finished");
  });
});

describe("abortRun() on a real HttpAgent, and the testing kit's mockAgent alike", () => {
  const events = [
    ev.runStarted(),
    ev.reasoningMessageStart("m1"),
    ev.reasoningMessageContent("m1", "Let me"),
    ev.reasoningMessageEnd("m1"),
    ev.textStart("a1"),
    ev.textContent("a1", "Hel"),
    ev.textContent("a1", "lo"),
    ev.runFinished(),
  ];

  /** Runs `agent` (with the middleware) until its first message's text arrived, aborts it, and reports. */
  async function abortMidAnswer(agent: {
    use(m: unknown): unknown;
    runAgent(): Promise<{ newMessages: Message[] }>;
    abortRun(): void;
    messages: Message[];
  }) {
    const seen: string[] = [];
    const middleware = reasoningMiddleware({ producer: "https://agent.test/run", onWarning: () => {} });
    agent.use((input: RunAgentInput, next: { run(i: RunAgentInput): Observable<{ type: string }> }) =>
      next.run(input).pipe(
        tap((e) => {
          seen.push(e.type);
          if (e.type === "TEXT_MESSAGE_CONTENT") setTimeout(() => agent.abortRun(), 50);
        }),
      ),
    );
    agent.use(middleware);
    const outcome = await agent.runAgent().then(
      (r) => ({ resolved: r.newMessages }),
      (e: unknown) => ({ rejected: e }),
    );
    return { outcome, seen, messages: agent.messages, incomplete: middleware.history?.incomplete };
  }

  it("D-RUN-ERROR R-RUN-13: runAgent resolves with what arrived; a RUN_ERROR (code abort) ends the run and the open answer is abandoned — the mock as the real client", async () => {
    const server = await serve([{ events, holdAfter: 6 }]);
    const real = await abortMidAnswer(new HttpAgent({ url: server.url }));
    const mock = await abortMidAnswer(mockAgent([() => concat(from(events.slice(0, 6)), NEVER)]));
    for (const run of [real, mock]) {
      expect(run.outcome).toEqual({
        resolved: [
          { id: "m1", role: "reasoning", content: "Let me" },
          { id: "a1", role: "assistant", content: "Hel" },
        ],
      });
      expect(run.seen.slice(-2)).toEqual(["TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
      expect(run.incomplete).toEqual([{ kind: "message", id: "a1", reason: "abandoned" }]);
    }
    expect(mock.messages).toEqual(real.messages);
  });

  it("D-RUN-ERROR: run() with a signal aborted before it is subscribed fails with an AbortError at once; no request, no scripted event — the mock as the real client", async () => {
    const server = await serve([{ events }]);
    const outcome = async (agent: { abortController: AbortController; run(i: RunAgentInput): Observable<unknown> }) => {
      agent.abortController.abort();
      const seen: unknown[] = [];
      const error = await lastValueFrom(agent.run(runInput()).pipe(tap((e) => seen.push(e)))).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      return { seen, error: error && { name: error.name, message: error.message } };
    };
    const real = await outcome(new HttpAgent({ url: server.url }));
    let scripted = 0;
    const mock = await outcome(mockAgent([() => from(events).pipe(tap(() => scripted++))]));
    expect(real).toEqual({ seen: [], error: { name: "AbortError", message: expect.any(String) } });
    expect(mock).toEqual(real);
    expect(server.requests).toHaveLength(0);
    expect(scripted).toBe(0);
  });
});

describe("reasoningMiddleware (the outgoing filter, with a stand-in for the next agent)", () => {
  const held: Message[] = [
    { id: "r1", role: "reasoning", content: "earlier", encryptedValue: "from-A" },
    {
      id: "a1",
      role: "assistant",
      content: "ok",
      toolCalls: [
        { id: "c1", type: "function", function: { name: "f", arguments: "{}" }, encryptedValue: "call-from-A" },
      ],
    },
  ];
  const script = [ev.runStarted(), ev.runFinished()];

  /** Runs the middleware once; returns the input the next agent received and the events. */
  async function runOnce(middleware: ReturnType<typeof reasoningMiddleware>, input: RunAgentInput) {
    let received: RunAgentInput | undefined;
    const next = {
      run: (i: RunAgentInput) => {
        received = i;
        return from(script);
      },
    };
    const events = await lastValueFrom((middleware(input, next) as Observable<{ type: string }>).pipe(toArray()));
    return { received: received!, events };
  }

  it("D-ISSUER values on messages the middleware has no record of are what the app gave this agent: sent, and attributed to it", async () => {
    const middleware = reasoningMiddleware({ producer: "A", onWarning: () => {} });
    const { received, events } = await runOnce(middleware, runInput({ messages: held }));
    expect(received.messages).toEqual(held);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(middleware.history?.messages).toEqual(held);
    expect(middleware.history?.issuers).toEqual(
      expect.arrayContaining([
        { subtype: "message", entityId: "r1", issuer: "A" },
        { subtype: "tool-call", entityId: "c1", issuer: "A" },
      ]),
    );
  });

  it("D-ISSUER R-REASON-26 values recorded for another producer are removed before the request, with one lossy warning", async () => {
    const fromA = reasoningMiddleware({ producer: "A", onWarning: () => {} });
    await runOnce(fromA, runInput({ messages: held }));
    const warnings: ReasoningWarning[] = [];
    const toB = reasoningMiddleware({
      producer: "B",
      initialHistory: fromA.history,
      onWarning: (w) => warnings.push(w),
    });
    expect(toB.history).toEqual(fromA.history);
    const { received } = await runOnce(toB, runInput({ messages: held }));
    expect(JSON.stringify(received.messages)).not.toContain("from-A");
    expect(received.messages.map((m) => m.id)).toEqual(["r1", "a1"]);
    expect(warnings.map((w) => [w.code, w.lossy, [...(w.ids ?? [])].sort()])).toEqual([
      ["VALUE_WITHHELD", true, ["c1", "r1"]],
    ]);
  });
});

describe("reasoningMiddleware: the application's onHistory failing", () => {
  const events = [
    ev.runStarted(),
    ev.reasoningMessageStart("m1"),
    ev.reasoningMessageContent("m1", "x"),
    ev.reasoningMessageEnd("m1"),
    ev.encryptedValue("message", "m1", "v1"),
    ev.runFinished(),
  ];

  it("fails the run with the application's error, as a throwing onWarning fails the facade's (nothing thrown later, outside the run)", async () => {
    const failure = new Error("the store is full");
    let calls = 0;
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      onHistory: () => {
        if (++calls === 3) throw failure;
      },
    });
    let scripted = 0;
    const next = { run: () => from(events).pipe(tap(() => scripted++)) };
    await expect(lastValueFrom((middleware(runInput(), next) as Observable<unknown>).pipe(toArray()))).rejects.toBe(
      failure,
    );
    // The histories published up to the failure are the thread's (kept before the callback ran).
    expect(middleware.history?.messages.map((m) => m.id)).toEqual(["m1"]);
    await new Promise((resolve) => setTimeout(resolve, 20)); // an error thrown outside the run would fail the test here
  });

  it("through a real HttpAgent: runAgent rejects with the application's error", async () => {
    const server = await serve([{ events, holdAfter: 2 }]);
    const failure = new Error("the store is full");
    const agent = new HttpAgent({ url: server.url }).use(
      reasoningMiddleware({
        producer: server.url,
        onWarning: () => {},
        onHistory: (h) => {
          if (h.messages.length > 0) throw failure;
        },
      }),
    );
    // The client logs a failed run itself ("Agent execution failed").
    const logged = jest.spyOn(console, "error").mockImplementation(() => {});
    try {
      await expect(agent.runAgent()).rejects.toBe(failure);
      expect(logged).toHaveBeenCalledWith("Agent execution failed:", failure);
    } finally {
      logged.mockRestore();
      agent.abortRun(); // the response the client let go of is still open
    }
  });
});
