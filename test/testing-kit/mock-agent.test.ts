import type { RunAgentInput } from "@ag-ui/core";
import { FilterToolCallsMiddleware, type HttpAgent } from "@ag-ui/client";
import { map, Observable, tap } from "rxjs";
import { reasoningPipeline, toRunInputMessages } from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import {
  alphabet,
  createTestScheduler,
  ev,
  expectPipeline,
  historyOf,
  mockAgent,
  msg,
  protocolErrorWith,
  runPipeline,
  TEST_PRODUCER,
  type MockNextAgent,
} from "../../src/testing";

const input = (runId = "r1", messages: RunAgentInput["messages"] = []): RunAgentInput => ({
  threadId: "t1",
  runId,
  messages,
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
});

const turn1 = [
  ev.runStarted("r1"),
  ev.reasoningChunk("m1", "Let me"),
  ev.encryptedValue("message", "m1", "opaque-1"),
  ev.textChunk("a1", "Hi"),
  ev.runFinished("r1"),
];
const turn2 = [ev.runStarted("r2"), ev.textChunk("a2", "Again"), ev.runFinished("r2")];

describe("testing kit: mockAgent", () => {
  it("run(input) returns the next scripted turn and records the input it received", () => {
    const agent = mockAgent([turn1, turn2]);
    const first = runPipeline(agent.run(input("r1")));
    expect(first.error).toBeUndefined();
    expect(first.history.messages.map((m) => m.id)).toEqual(["m1", "a1"]);
    expect(runPipeline(agent.run(input("r2"))).history.messages.map((m) => m.id)).toEqual(["a2"]);
    expect(agent.inputs.map((i) => i.runId)).toEqual(["r1", "r2"]);
    expect(agent.lastInput).toBe(agent.inputs[1]);
    expect(agent.runs.map((r) => r.status)).toEqual(["completed", "completed"]);
  });

  it("a run beyond the script errors with a clear message instead of hanging", () => {
    const agent = mockAgent([turn1]);
    runPipeline(agent.run(input()));
    const extra = runPipeline(agent.run(input("r2")));
    expect((extra.error as Error).message).toBe(
      "agui-reasoning/testing: mockAgent has no turn for run #2 (the script has 1)",
    );
    expect(agent.runs[1]?.status).toBe("errored");
  });

  it("a turn may be built from the input, and a function may script every run", () => {
    const echo = mockAgent([(i) => [ev.runStarted(i.runId), ev.runFinished(i.runId)]]);
    expect(runPipeline(echo.run(input("r7"))).events).toEqual([ev.runStarted("r7"), ev.runFinished("r7")]);
    const every = mockAgent((i, n) => [ev.runStarted(`${i.runId}-${n}`), ev.runFinished(`${i.runId}-${n}`)]);
    runPipeline(every.run(input("x")));
    expect(runPipeline(every.run(input("x"))).events[0]).toEqual(ev.runStarted("x-2"));
  });

  it("R-REASON-9: a marble-scripted agent drives a pipeline inside the TestScheduler; unsubscribing is recorded", () => {
    createTestScheduler().run((helpers) => {
      const scripted = mockAgent([helpers.cold("R < c > C |", alphabet)]);
      const p = reasoningPipeline(scripted.run(input()), { producer: scripted.url, onWarning: () => {} });
      expectPipeline(helpers, p).toBe(
        { events: "R < c > #" },
        alphabet,
        protocolErrorWith("ORPHAN_CONTENT", { eventIndex: 4 }),
      );
      helpers.flush();
      // The pipeline unsubscribed the source on failure; the turn had a completion still to come.
      expect(scripted.runs[0]?.status).toBe("unsubscribed");
    });
  });

  it("R-REASON-17: runAgent applies events to messages and sends every value back byte-identical next turn", async () => {
    const agent = mockAgent([turn1, turn2], { initialMessages: [msg.user("u1", "Hello")] });
    const first = await agent.runAgent();
    expect(first.newMessages).toEqual([
      msg.reasoning("m1", "Let me", { encryptedValue: "opaque-1" }),
      msg.assistant("a1", "Hi"),
    ]);
    expect(agent.messages.map((m) => m.id)).toEqual(["u1", "m1", "a1"]);
    await agent.runAgent({ runId: "r2" });
    const sent = agent.inputs[1]!;
    expect(sent.runId).toBe("r2");
    expect(sent.protocolVersion).toBe("1.0");
    expect(sent.messages.find((m) => m.id === "m1")).toEqual(
      msg.reasoning("m1", "Let me", { encryptedValue: "opaque-1" }),
    );
    expect(agent.messages.map((m) => m.id)).toEqual(["u1", "m1", "a1", "a2"]);
  });

  it("R-INPUT-4: runAgent leaves activity messages out of the input, as AbstractAgent does", async () => {
    const agent = mockAgent([turn2], { initialMessages: [msg.user("u1", "Hi"), msg.activity("act1")] });
    await agent.runAgent();
    expect(agent.lastInput?.messages.map((m) => m.id)).toEqual(["u1"]);
  });

  it("R-RUN-13: runAgent rejects with the protocol error, keeping what was delivered", async () => {
    const agent = mockAgent([[ev.runStarted(), ev.textChunk("a1", "part"), ev.reasoningMessageContent("zz", "x")]]);
    await expect(agent.runAgent()).rejects.toEqual(protocolErrorWith("ORPHAN_CONTENT", { ids: ["zz"] }));
    expect(agent.messages).toEqual([msg.assistant("a1", "part")]);
    expect(agent.isRunning).toBe(false);
  });

  it("use(): middleware runs outermost-first around run(), as in @ag-ui/client, and sees the input", async () => {
    const order: string[] = [];
    const tag = (name: string) => (i: RunAgentInput, next: MockNextAgent) => {
      order.push(name);
      return next.run({ ...i, forwardedProps: { ...(i.forwardedProps as object), [name]: true } });
    };
    const agent = mockAgent([turn2]).use(tag("outer"), tag("inner"));
    await agent.runAgent();
    expect(order).toEqual(["outer", "inner"]);
    expect(agent.lastInput?.forwardedProps).toEqual({ outer: true, inner: true });
  });

  it("use(): a Middleware object from @ag-ui/client works on the mock (FilterToolCallsMiddleware)", async () => {
    const turn = [
      ev.runStarted(),
      ev.toolCallStart("tc1", "rm_rf"),
      ev.toolCallEnd("tc1"),
      ev.toolCallStart("tc2", "search"),
      ev.toolCallEnd("tc2"),
      ev.runFinished(),
    ];
    const agent = mockAgent([turn]).use(new FilterToolCallsMiddleware({ disallowedToolCalls: ["rm_rf"] }));
    await agent.runAgent();
    expect(agent.messages).toEqual([expect.objectContaining({ toolCalls: [msg.toolCall("tc2", "search")] })]);
  });

  it("D-ISSUER: with reasoningMiddleware, a second agent receives none of the first agent's values", async () => {
    const first = mockAgent([turn1], { url: "https://a.test/run" });
    await first.runAgent();
    const second = mockAgent([turn2], { url: "https://b.test/run", initialMessages: first.messages });
    const warnings: string[] = [];
    const history = historyOf(first.messages, {
      issuers: [{ subtype: "message", entityId: "m1", issuer: "https://a.test/run" }],
    });
    second.use(
      reasoningMiddleware({ producer: second.url, initialHistory: history, onWarning: (w) => warnings.push(w.code) }),
    );
    await second.runAgent();
    expect(second.lastInput?.messages.find((m) => m.id === "m1")).toEqual(msg.reasoning("m1", "Let me"));
    expect(warnings).toContain("VALUE_WITHHELD");
    expect(toRunInputMessages(history, { producer: "https://a.test/run" }).find((m) => m.id === "m1")).toEqual(
      msg.reasoning("m1", "Let me", { encryptedValue: "opaque-1" }),
    );
  });

  it("D-RUN-ERROR: abortRun() ends the run as HttpAgent's does: the scripted stream is unsubscribed, a RUN_ERROR (code abort) ends the run, runAgent resolves with what arrived", async () => {
    let release!: () => void;
    const agent = mockAgent([
      () =>
        new Observable<unknown>((s) => {
          s.next(ev.runStarted());
          s.next(ev.textStart("a1"));
          s.next(ev.textContent("a1", "Hel"));
          release = () => s.next(ev.runFinished());
        }),
    ]);
    const seen: string[] = [];
    agent.use((input, next) => next.run(input).pipe(tap((e) => seen.push(e.type))));
    const running = agent.runAgent();
    expect(agent.isRunning).toBe(true);
    agent.abortRun();
    // @ag-ui/client 1.0's HttpAgent over a real connection: RUN_ERROR code "abort", the promise resolves
    // with the partial message (checked against it in test/integration/http-agent.test.ts).
    await expect(running).resolves.toEqual({ result: undefined, newMessages: [msg.assistant("a1", "Hel")] });
    expect(agent.isRunning).toBe(false);
    expect(agent.runs[0]?.status).toBe("unsubscribed");
    expect(typeof release).toBe("function");
    expect(agent.messages).toEqual([msg.assistant("a1", "Hel")]);
    // The RUN_ERROR is the agent's own run's (HttpAgent's transport): the middleware sees it.
    expect(seen).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
    // A later abort (no run in progress) changes nothing.
    agent.abortRun();
    expect(agent.messages).toEqual([msg.assistant("a1", "Hel")]);
  });

  it("runAgent never throws, as AbstractAgent's async runAgent: bad messages, a throwing middleware or script reject", async () => {
    const bad = mockAgent([turn2]);
    bad.setMessages([{ id: 1 } as never]);
    const rejected = (agent: ReturnType<typeof mockAgent>) => {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = agent.runAgent())).not.toThrow();
      return expect(promise).rejects;
    };
    await rejected(bad).toThrow("initialMessages[0]: `id` must be a string");
    expect(bad.isRunning).toBe(false);
    await rejected(
      mockAgent([turn2]).use(() => {
        throw new Error("middleware failed");
      }),
    ).toThrow("middleware failed");
    await rejected(
      mockAgent(() => {
        throw new Error("script failed");
      }),
    ).toThrow("script failed");
    const wrong = mockAgent([null, 5] as never);
    await rejected(wrong).toThrow(
      new TypeError("agui-reasoning/testing: mockAgent's turn for run #1 is not an array or an Observable"),
    );
    // run() itself answers with a failing stream, recorded as errored, not with a throw.
    expect((runPipeline(wrong.run(input("r2"))).error as Error).message).toMatch(/run #2 is not an array/);
    expect(wrong.runs.map((r) => r.status)).toEqual(["errored", "errored"]);
    expect(() => mockAgent(undefined as never)).toThrow(
      new TypeError("agui-reasoning/testing: mockAgent's script must be a list of turns or a function"),
    );
  });

  it("as<HttpAgent>() hands the mock to code typed for an HttpAgent", () => {
    const agent = mockAgent([turn2]);
    const answerOf = (http: HttpAgent): Observable<string> =>
      (http.run(input()) as unknown as Observable<{ type: string }>).pipe(map((e) => e.type));
    const types: string[] = [];
    answerOf(agent.as<HttpAgent>()).subscribe((t) => types.push(t));
    expect(types).toEqual(turn2.map((e) => e.type));
    expect(agent.url).toBe(TEST_PRODUCER);
    expect([agent.threadId, agent.agentId]).toEqual(["t1", "mock-agent"]);
  });
});
