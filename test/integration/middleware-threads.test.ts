/**
 * D-KEEPER across threads: a chat UI moves one agent between threads (CopilotKit's thread switch sets
 * `threadId` and replaces the messages), or runs clones of one agent that share its middlewares
 * (`AbstractAgent.clone()` copies the middleware list, not the middlewares). The middleware keeps one
 * conversation per thread id, so a thread's values go back to its producer when the UI returns to it,
 * whatever the application's store dropped meanwhile, and nothing of one thread enters another.
 * A real `HttpAgent` over loopback; judged by what the agent server receives.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import { Subject, type Observable } from "rxjs";
import {
  InMemoryHistoryStore,
  messagesOf,
  parseHistory,
  saveHistory,
  serializeHistory,
  type ReasoningHistory,
} from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import type { RecordedRequest } from "../../src/testing/mock-agent-server";
import { runInput } from "../support/http-run";
import { runThrough } from "../support/middleware-run";
import { textOnly } from "../support/lossy-stores";
import { useAgentServers } from "../support/sse-server";

const serve = useAgentServers();

/** One thread's first turn: a reasoning message and a tool call, each with a value, and an activity. */
const firstTurn = (thread: string) => [
  ev.runStarted(`${thread}-run-1`, { threadId: thread }),
  ev.reasoningMessageStart(`${thread}-think`),
  ev.reasoningMessageContent(`${thread}-think`, `${thread} weighs`),
  ev.reasoningMessageEnd(`${thread}-think`),
  ev.encryptedValue("message", `${thread}-think`, `${thread}:reasoning-value\u2028`),
  ev.activitySnapshot(`${thread}-progress`, "progress", { step: 1 }),
  ev.textStart(`${thread}-answer`),
  ev.textContent(`${thread}-answer`, "Looking"),
  ev.textEnd(`${thread}-answer`),
  ev.toolCallStart(`${thread}-call`, "lookup", { parentMessageId: `${thread}-answer` }),
  ev.toolCallArgs(`${thread}-call`, "{}"),
  ev.toolCallEnd(`${thread}-call`),
  ev.encryptedValue("tool-call", `${thread}-call`, `${thread}:tool-call-value\u0000`),
  ev.runFinished(`${thread}-run-1`, { threadId: thread }),
];
const laterTurn = (thread: string, run: string) => [
  ev.runStarted(run, { threadId: thread }),
  ev.textStart(`${run}-answer`),
  ev.textContent(`${run}-answer`, "Done."),
  ev.textEnd(`${run}-answer`),
  ev.runFinished(run, { threadId: thread }),
];

interface Sent {
  id: string;
  encryptedValue?: string;
  toolCalls?: Array<{ id: string; encryptedValue?: string }>;
}
const sentOf = (request: RecordedRequest): { threadId: string; messages: Sent[] } =>
  request.json as { threadId: string; messages: Sent[] };
const values = (messages: readonly Sent[]): string[] =>
  messages
    .flatMap((m) => [m.encryptedValue, ...(m.toolCalls ?? []).map((c) => c.encryptedValue)])
    .filter((v): v is string => v !== undefined);

/** Routes each request by its thread: thread `t`'s n-th request gets `turns[t][n]`. */
function byThread(turns: Record<string, unknown[][]>) {
  const served: Record<string, number> = {};
  return (request: RecordedRequest) => {
    const thread = sentOf(request).threadId;
    const n = (served[thread] = (served[thread] ?? -1) + 1);
    return { events: turns[thread]![n]!, writeSize: 65_536 };
  };
}

const user = (id: string): Message => ({ id, role: "user", content: id });

describe("D-KEEPER the middleware keeps one conversation per thread", () => {
  it("D-KEEPER R-REASON-17 one agent switched A → B → A (the application keeps text only): A's second request carries A's values byte-identical, and none of B's", async () => {
    const server = await serve(byThread({ A: [firstTurn("A"), laterTurn("A", "A-run-2")], B: [firstTurn("B")] }));
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const agent = new HttpAgent({ url: server.url, threadId: "A" }).use(middleware);
    agent.setMessages([user("a-q1")]);
    await agent.runAgent({ runId: "A-run-1" });
    const savedA = textOnly(agent.messages);

    // The UI opens thread B, as a thread switch does: another thread id, that thread's messages.
    agent.threadId = "B";
    agent.setMessages([user("b-q1")]);
    await agent.runAgent({ runId: "B-run-1" });

    // Back to A, from the application's lossy store.
    agent.threadId = "A";
    agent.setMessages([...savedA, user("a-q2")]);
    await agent.runAgent({ runId: "A-run-2" });

    const third = sentOf(await server.request(2));
    expect(third.threadId).toBe("A");
    expect(third.messages.find((m) => m.id === "A-think")?.encryptedValue).toBe("A:reasoning-value\u2028");
    expect(third.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === "A-call")?.encryptedValue).toBe(
      "A:tool-call-value\u0000",
    );
    expect(values(third.messages).sort()).toEqual(["A:reasoning-value\u2028", "A:tool-call-value\u0000"]);
    expect((await server.request(2)).text).not.toContain("B:");
  });

  it("D-KEEPER nothing of thread A enters thread B's history: not its activity messages, values or issuer records", async () => {
    const server = await serve(byThread({ A: [firstTurn("A")], B: [firstTurn("B")] }));
    const histories: ReasoningHistory[] = [];
    const middleware = reasoningMiddleware({
      producer: server.url,
      onWarning: () => {},
      onHistory: (h) => histories.push(h),
    });
    const agent = new HttpAgent({ url: server.url, threadId: "A" }).use(middleware);
    agent.setMessages([user("a-q1")]);
    await agent.runAgent({ runId: "A-run-1" });
    agent.threadId = "B";
    agent.setMessages([user("b-q1")]);
    await agent.runAgent({ runId: "B-run-1" });

    const b = middleware.history!;
    expect(b.messages.map((m) => m.id)).toEqual(["b-q1", "B-think", "B-progress", "B-answer"]);
    expect(b.issuers.map((r) => r.entityId).sort()).toEqual(["B-call", "B-think"]);
    expect(JSON.stringify(b)).not.toContain("A-");
    expect(sentOf(await server.request(1)).messages.map((m) => m.id)).toEqual(["b-q1"]);
  });

  it("D-KEEPER onHistory names the thread of each history it is given, so an application can save each thread apart", async () => {
    const server = await serve(byThread({ A: [firstTurn("A")], B: [firstTurn("B")] }));
    const saved = new Map<string, ReasoningHistory>();
    const middleware = reasoningMiddleware({
      producer: server.url,
      onWarning: () => {},
      onHistory: (h, { threadId }) => saved.set(threadId, h),
    });
    const agent = new HttpAgent({ url: server.url, threadId: "A" }).use(middleware);
    await agent.runAgent({ runId: "A-run-1" });
    agent.threadId = "B";
    agent.setMessages([]);
    await agent.runAgent({ runId: "B-run-1" });
    expect([...saved.keys()].sort()).toEqual(["A", "B"]);
    expect(saved.get("A")!.messages.map((m) => m.id)).toEqual(["A-think", "A-progress", "A-answer"]);
    expect(saved.get("B")!.messages.map((m) => m.id)).toEqual(["B-think", "B-progress", "B-answer"]);
  });

  it("D-KEEPER clones of one agent share its middleware and run two threads at once: each thread's next request carries its own values only", async () => {
    const server = await serve(
      byThread({
        A: [firstTurn("A"), laterTurn("A", "A-run-2")],
        B: [firstTurn("B"), laterTurn("B", "B-run-2")],
      }),
    );
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const base = new HttpAgent({ url: server.url, threadId: "base" }).use(middleware);
    const [a, b] = ["A", "B"].map((thread) => {
      const clone = base.clone();
      clone.threadId = thread;
      return clone;
    }) as [HttpAgent, HttpAgent];
    await Promise.all([a.runAgent({ runId: "A-run-1" }), b.runAgent({ runId: "B-run-1" })]);
    a.setMessages([...textOnly(a.messages), user("a-q2")]);
    b.setMessages([...textOnly(b.messages), user("b-q2")]);
    // B's turn ends last this time: the thread that ran last must not become A's conversation.
    await a.runAgent({ runId: "A-run-2" });
    await b.runAgent({ runId: "B-run-2" });

    const second = (thread: string) => server.requests.map(sentOf).filter((r) => r.threadId === thread)[1]!.messages;
    expect(values(second("A")).sort()).toEqual(["A:reasoning-value\u2028", "A:tool-call-value\u0000"]);
    expect(values(second("B")).sort()).toEqual(["B:reasoning-value\u2028", "B:tool-call-value\u0000"]);
  });

  it("D-KEEPER initialHistory is the conversation of the thread the middleware first runs, and no other thread's", async () => {
    const server = await serve(byThread({ A: [laterTurn("A", "A-run-2")], B: [laterTurn("B", "B-run-1")] }));
    const restored: ReasoningHistory = {
      messages: [
        user("a-q1"),
        { id: "A-think", role: "reasoning", content: "A weighs", encryptedValue: "A:restored" },
        { id: "A-progress", role: "activity", activityType: "progress", content: { step: 1 } },
      ],
      incomplete: [],
      issuers: [{ subtype: "message", entityId: "A-think", issuer: server.url }],
      durations: [],
    };
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {}, initialHistory: restored });
    const agent = new HttpAgent({ url: server.url, threadId: "A" }).use(middleware);
    agent.setMessages(textOnly(messagesOf(restored)));
    await agent.runAgent({ runId: "A-run-2" });
    expect(sentOf(await server.request(0)).messages.find((m) => m.id === "A-think")?.encryptedValue).toBe("A:restored");

    agent.threadId = "B";
    agent.setMessages([user("b-q1")]);
    await agent.runAgent({ runId: "B-run-1" });
    expect(middleware.history!.messages.map((m) => m.id)).toEqual(["b-q1", "B-run-1-answer"]);
  });
});

describe("D-KEEPER how many threads a middleware keeps", () => {
  /** Thread "first" issues a value, then `others` other threads run, then "first" comes back from a text-only store. */
  async function backAfter(others: number): Promise<string[]> {
    const middleware = reasoningMiddleware({ producer: "P", onWarning: () => {} });
    await runThrough(middleware, "first", [user("q1")], firstTurn("first"));
    const saved = textOnly(middleware.history!.messages);
    for (let i = 0; i < others; i++) await runThrough(middleware, `other-${i}`, [user(`o${i}`)]);
    return values(await runThrough(middleware, "first", [...saved, user("q2")]));
  }

  it("D-KEEPER the 256 threads that ran last: a thread comes back with its values after 255 others ran", async () => {
    expect((await backAfter(255)).sort()).toEqual(["first:reasoning-value\u2028", "first:tool-call-value\u0000"]);
  });

  it("D-KEEPER the thread that ran longest ago is forgotten once 256 others ran (its next run starts from the application's messages)", async () => {
    expect(await backAfter(256)).toEqual([]);
  });

  it("D-KEEPER a run that fails on a bad run input keeps the thread's conversation: the next run still restores its values", async () => {
    const middleware = reasoningMiddleware({ producer: "P", onWarning: () => {} });
    await runThrough(middleware, "first", [user("q1")], firstTurn("first"));
    const saved = textOnly(middleware.history!.messages);
    await expect(runThrough(middleware, "first", [{ id: 5 } as never])).rejects.toThrow(/run input messages\[0\]/);
    expect(values(await runThrough(middleware, "first", saved)).sort()).toEqual([
      "first:reasoning-value\u2028",
      "first:tool-call-value\u0000",
    ]);
  });

  it("D-KEEPER running a thread makes it the newest: a thread that keeps running is never the one forgotten", async () => {
    const middleware = reasoningMiddleware({ producer: "P", onWarning: () => {} });
    await runThrough(middleware, "first", [user("q1")], firstTurn("first"));
    let saved = textOnly(middleware.history!.messages);
    for (let i = 0; i < 300; i++) {
      await runThrough(middleware, `other-${i}`, [user(`o${i}`)]);
      if (i % 200 === 199) saved = textOnly(await runThrough(middleware, "first", saved));
    }
    expect(values(await runThrough(middleware, "first", saved)).sort()).toEqual([
      "first:reasoning-value\u2028",
      "first:tool-call-value\u0000",
    ]);
  });
});

describe("D-KEEPER loadHistory: the saved conversation of a thread the middleware does not hold", () => {
  const both = ["first:reasoning-value\u2028", "first:tool-call-value\u0000"];

  /** Thread "first" runs once through a middleware saving each thread's history; the saved text and the store's copy. */
  async function savedFirst(): Promise<{ saved: Map<string, string>; shown: Message[] }> {
    const saved = new Map<string, string>();
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      onHistory: (history, { threadId }) => saved.set(threadId, serializeHistory(history)),
    });
    await runThrough(middleware, "first", [user("q1")], firstTurn("first"));
    return { saved, shown: textOnly(middleware.history!.messages) };
  }

  it("D-KEEPER R-REASON-17 after a reload, a thread opened after another one still gets its values back (initialHistory would have gone to the other)", async () => {
    const { saved, shown } = await savedFirst();
    const asked: string[] = [];
    const reloaded = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      loadHistory: (threadId) => {
        asked.push(threadId);
        const text = saved.get(threadId);
        return text === undefined ? undefined : parseHistory(text);
      },
    });
    await runThrough(reloaded, "new", [user("n1")]);
    expect(values(await runThrough(reloaded, "first", [...shown, user("q2")])).sort()).toEqual(both);
    // Once per thread: a thread it holds is not asked for again.
    await runThrough(reloaded, "first", [...shown, user("q2")]);
    expect(asked).toEqual(["new", "first"]);
  });

  it("D-KEEPER R-REASON-17 through real HttpAgents and a HistoryStore saved when each run ends (docs/resilience.md): after a restart, each of two threads gets its own values back", async () => {
    const server = await serve(
      byThread({
        A: [firstTurn("A"), laterTurn("A", "A-run-2")],
        B: [firstTurn("B"), laterTurn("B", "B-run-2")],
      }),
    );
    const store = new InMemoryHistoryStore();
    /** An agent as the application makes it, on `threadId`, saving to `store` and loading from it. */
    const made = (threadId: string) => {
      const latest = new Map<string, ReasoningHistory>();
      const reasoning = reasoningMiddleware({
        producer: server.url,
        onWarning: () => {},
        onHistory: (history, { threadId: thread }) => latest.set(thread, history),
        loadHistory: (thread) => store.load(thread),
      });
      const agent = new HttpAgent({ url: server.url, threadId }).use(reasoning);
      agent.subscribe({
        onRunFinalized: ({ input }) => saveHistory(store, input.threadId, latest.get(input.threadId)!),
      });
      return agent;
    };
    // Before the restart: a turn on each thread; the application's store keeps text only.
    const shown: Record<string, Message[]> = {};
    for (const thread of ["A", "B"]) {
      const agent = made(thread);
      agent.setMessages([user(`${thread.toLowerCase()}-q1`)]);
      await agent.runAgent({ runId: `${thread}-run-1` });
      shown[thread] = textOnly(agent.messages);
    }
    // After it: new agents, B first.
    for (const thread of ["B", "A"]) {
      const agent = made(thread);
      agent.setMessages([...shown[thread]!, user(`${thread.toLowerCase()}-q2`)]);
      await agent.runAgent({ runId: `${thread}-run-2` });
    }
    const sent = (index: number) => values(sentOf(server.requests[index]!).messages).sort();
    expect(sent(2)).toEqual(["B:reasoning-value\u2028", "B:tool-call-value\u0000"]);
    expect(sent(3)).toEqual(["A:reasoning-value\u2028", "A:tool-call-value\u0000"]);
  });

  it("D-KEEPER a promise of a history (an IndexedDB store's load) is waited for before the request goes out", async () => {
    const { saved, shown } = await savedFirst();
    const reloaded = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      loadHistory: async (threadId) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return parseHistory(saved.get(threadId)!);
      },
    });
    expect(values(await runThrough(reloaded, "first", [...shown, user("q2")])).sort()).toEqual(both);
  });

  it("D-KEEPER a thread the middleware forgot (256 others ran since) is loaded again", async () => {
    const { saved, shown } = await savedFirst();
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      loadHistory: (threadId) => (threadId === "first" ? parseHistory(saved.get("first")!) : undefined),
    });
    await runThrough(middleware, "first", [...shown]);
    for (let i = 0; i < 256; i++) await runThrough(middleware, `other-${i}`, [user(`o${i}`)]);
    expect(values(await runThrough(middleware, "first", [...shown, user("q2")])).sort()).toEqual(both);
  });

  it("D-KEEPER the thread initialHistory seeds is not asked for", async () => {
    const { saved } = await savedFirst();
    const asked: string[] = [];
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      initialHistory: parseHistory(saved.get("first")!),
      loadHistory: (threadId) => void asked.push(threadId),
    });
    await runThrough(middleware, "first", [user("q1")]);
    await runThrough(middleware, "second", [user("q1")]);
    expect(asked).toEqual(["second"]);
  });

  it("D-KEEPER D-NO-ALIAS a loaded history is checked and copied as initialHistory is: a bad one fails the run naming the thread and the part", async () => {
    const { saved, shown } = await savedFirst();
    const loaded = parseHistory(saved.get("first")!);
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      loadHistory: (threadId) =>
        threadId === "bad" ? ({ ...loaded, messages: [loaded.messages[0], loaded.messages[0]] } as never) : loaded,
    });
    await expect(runThrough(middleware, "bad", [user("q")])).rejects.toThrow(
      /^agui-reasoning: reasoningMiddleware: the history loadHistory gave for thread "bad" is refused: initialHistory\.messages\[1\]/,
    );
    await runThrough(middleware, "first", [...shown]);
    // The application editing the object it gave changes nothing held.
    (loaded.messages as Message[]).length = 0;
    expect(values(await runThrough(middleware, "first", [...shown, user("q2")])).sort()).toEqual(both);
  });

  it("D-KEEPER a loader that fails fails the run with its error; one that is not a function is refused at creation", async () => {
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      loadHistory: () => Promise.reject(new Error("store offline")),
    });
    await expect(runThrough(middleware, "t", [user("q")])).rejects.toThrow("store offline");
    expect(() => reasoningMiddleware({ producer: "P", loadHistory: "store" as never })).toThrow(
      "agui-reasoning: reasoningMiddleware's loadHistory must be a function (threadId) => history",
    );
  });
});

describe("D-KEEPER a run waiting for loadHistory", () => {
  it("D-KEEPER the client lets go of it (detachActiveRun): no request is sent, a late answer is ignored, and the thread's next run asks loadHistory again", async () => {
    const server = await serve(byThread({ A: [firstTurn("A")] }));
    const asked: Array<(saved: ReasoningHistory | undefined) => void> = [];
    const middleware = reasoningMiddleware({
      producer: server.url,
      onWarning: () => {},
      loadHistory: () => new Promise((resolve) => asked.push(resolve)),
    });
    const agent = new HttpAgent({ url: server.url, threadId: "A" }).use(middleware);
    agent.setMessages([user("a-q1")]);
    const waiting = agent.runAgent({ runId: "A-run-1" });
    for (let i = 0; i < 100 && asked.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(asked).toHaveLength(1);
    await agent.detachActiveRun();
    await waiting;
    asked[0]!(undefined); // the store answers after all: nobody waits for it
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.requests).toHaveLength(0);

    const next = agent.runAgent({ runId: "A-run-1" });
    for (let i = 0; i < 100 && asked.length === 1; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(asked).toHaveLength(2);
    asked[1]!(undefined);
    await next;
    expect(server.requests).toHaveLength(1);
    expect(values(sentOf(await server.request(0)).messages)).toEqual([]);
    expect(JSON.stringify(middleware.history)).toContain("A:tool-call-value");
  });
});

describe("D-KEEPER D-PACE a run the client lets go of mid-stream (detachActiveRun: CopilotKit on a thread switch)", () => {
  it("D-KEEPER D-PACE R-REASON-17 the paced history still pending is kept: the thread's next request carries the value that arrived in the last window", async () => {
    const turn = firstTurn("A").slice(0, -1); // no RUN_FINISHED: the server keeps the response open
    const server = await serve([{ events: turn, holdAfter: turn.length }, { events: laterTurn("A", "A-run-2") }]);
    const saved: ReasoningHistory[] = [];
    // A window longer than the test: only a flush publishes what came after the leading edge.
    const middleware = reasoningMiddleware({
      producer: server.url,
      onWarning: () => {},
      historyPace: 600_000,
      onHistory: (history) => saved.push(history),
    });
    const agent = new HttpAgent({ url: server.url, threadId: "A" }).use(middleware);
    agent.setMessages([user("a-q1")]);
    const running = agent.runAgent({ runId: "A-run-1" });
    // The client's own copy has the tool call's value: every event arrived.
    for (let i = 0; i < 200 && !JSON.stringify(agent.messages).includes("A:tool-call-value"); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const shown = textOnly(agent.messages);
    await agent.detachActiveRun();
    await running.catch(() => undefined);
    // The response detached from is still open: closed here, not by the server's teardown.
    agent.abortRun();

    expect(JSON.stringify(saved.at(-1))).toContain("A:tool-call-value");
    agent.setMessages([...shown, user("a-q2")]);
    await agent.runAgent({ runId: "A-run-2" });
    expect(values(sentOf(await server.request(1)).messages).sort()).toEqual([
      "A:reasoning-value\u2028",
      "A:tool-call-value\u0000",
    ]);
  });
});

describe("D-KEEPER D-TRUNC an item still open when the client let go of the run", () => {
  it("D-KEEPER D-TRUNC R-RUN-5 is truncated in the thread's next run: the held history seeds it as a seed's open item is", async () => {
    const histories: ReasoningHistory[] = [];
    const middleware = reasoningMiddleware({
      producer: "P",
      onWarning: () => {},
      historyPace: 600_000,
      onHistory: (history) => histories.push(history),
    });
    // The first run never ends: the client lets go of it mid-message (a paced window still pending).
    const cut = new Subject<unknown>();
    const first = (
      middleware(runInput({ threadId: "A", runId: "run-1", messages: [user("q1")] }), {
        run: () => cut,
      }) as Observable<unknown>
    ).subscribe({ error: () => {} });
    cut.next(ev.runStarted("run-1", { threadId: "A" }));
    cut.next(ev.textStart("m1"));
    cut.next(ev.textContent("m1", "Half an ans"));
    first.unsubscribe();
    expect(histories.at(-1)!.incomplete).toEqual([{ kind: "message", id: "m1", reason: "open" }]);
    // The next run of the thread: m1 was cut off with its stream and can never go on.
    await runThrough(middleware, "A", [
      user("q1"),
      { id: "m1", role: "assistant", content: "Half an ans" },
      user("q2"),
    ]);
    expect(middleware.history!.incomplete).toEqual([{ kind: "message", id: "m1", reason: "truncated" }]);
  });
});
