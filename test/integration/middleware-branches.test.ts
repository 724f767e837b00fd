/**
 * D-KEEPER, R-REASON-17, R-REASON-19: chat UIs with branches. assistant-ui's regenerate and edit start a
 * run without the turn they replace; its branch picker then sends that turn again, and its copy of the
 * turn's tool calls has no value (it drops them). The middleware keeps the values of the messages that left
 * the conversation (the latest KEPT_DEPARTED of them, per thread) and gives them back, to their producer
 * only, when the application sends those messages again.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message, RunAgentInput } from "@ag-ui/core";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import {
  InMemoryHistoryStore,
  parseHistory,
  saveHistory,
  serializeHistory,
  type ReasoningHistory,
  type ReasoningWarning,
} from "../../src";
import { reasoningMiddleware, type ReasoningMiddlewareOptions } from "../../src/integration/http-agent-middleware";
import { continueConversation, KEPT_DEPARTED } from "../../src/integration/kept-conversation";
import { ev, msg } from "../../src/testing/builders";
import { runInput } from "../support/http-run";
import { callValueOf, textOnly, valueOf } from "../support/lossy-stores";
import { useAgentServers } from "../support/sse-server";

const serve = useAgentServers();
const P = "http://127.0.0.1:9/agent";
const OTHER = "http://127.0.0.1:9/other";

/** The first answer: reasoning with a value, a tool call with a value, its result. */
const firstBranch: Message[] = [
  msg.reasoning("r1", "weighing", { encryptedValue: "P:r1" }),
  msg.assistant("a1", "", { toolCalls: [msg.toolCall("c1", "f", "{}", { encryptedValue: "P:c1" })] }),
  msg.tool("t1", "c1", "42"),
];
const held: ReasoningHistory = {
  messages: [msg.user("u1", "q1"), ...firstBranch],
  incomplete: [],
  issuers: [
    { subtype: "message", entityId: "r1", issuer: P },
    { subtype: "tool-call", entityId: "c1", issuer: P },
  ],
  durations: [
    { kind: "message", id: "r1", startedAt: 1_000, startObserved: false, endedAt: 3_000, endObserved: false },
  ],
};

/** The agent server's turns: the first answer (a value on the reasoning and on the tool call), a regenerated one, a follow-up. */
const SERVER_CALL_VALUE = "server:c1\u2028\u0000";
const regenerateScript = [
  {
    events: [
      ev.runStarted("run-1", { threadId: "t" }),
      ev.reasoningMessageStart("think"),
      ev.reasoningMessageContent("think", "weighing"),
      ev.reasoningMessageEnd("think"),
      ev.encryptedValue("message", "think", "server:think"),
      ev.toolCallStart("c1", "lookup", { parentMessageId: "call" }),
      ev.toolCallArgs("c1", "{}"),
      ev.toolCallEnd("c1"),
      ev.encryptedValue("tool-call", "c1", SERVER_CALL_VALUE),
      ev.runFinished("run-1", { threadId: "t" }),
    ],
  },
  {
    events: [
      ev.runStarted("run-2", { threadId: "t" }),
      ev.textStart("other answer"),
      ev.textContent("other answer", "no tool"),
      ev.textEnd("other answer"),
      ev.runFinished("run-2", { threadId: "t" }),
    ],
  },
  { events: [ev.runStarted("run-3", { threadId: "t" }), ev.runFinished("run-3", { threadId: "t" })] },
];

/**
 * `regenerateScript` through real agents (`agentFor(run)`: the agent of run 1, 2 or 3): the first answer, a
 * regenerate, then back to the first answer (the store's copy text only) and a follow-up, whose request as the
 * server received it must carry both values byte-identical.
 */
async function regenerateThenBack(
  server: { request(i: number): Promise<{ json: unknown }> },
  agentFor: (run: number) => HttpAgent,
) {
  agentFor(1).setMessages([msg.user("q1", "q1")]);
  await agentFor(1).runAgent({ runId: "run-1" });
  const first = textOnly(agentFor(1).messages);
  agentFor(2).setMessages([msg.user("q1", "q1")]);
  await agentFor(2).runAgent({ runId: "run-2" });
  const third = agentFor(3);
  third.setMessages([...first, msg.tool("result", "c1", "42"), msg.user("q2", "q2")]);
  await third.runAgent({ runId: "run-3" });
  const sent = ((await server.request(2)).json as { messages: Message[] }).messages;
  expect(sent.map((m) => m.id)).toEqual(["q1", "think", "call", "result", "q2"]);
  expect(valueOf(sent, "think")).toBe("server:think");
  expect(callValueOf(sent, "call", "c1")).toBe(SERVER_CALL_VALUE);
}

/** A middleware seeded with `held`, and a function running it over the application's `messages`. */
function middlewareOver(initialHistory: ReasoningHistory = held, reply: (n: number) => unknown[] = () => []) {
  const warnings: ReasoningWarning[] = [];
  const middleware = reasoningMiddleware({ producer: P, initialHistory, onWarning: (w) => warnings.push(w) });
  let runs = 0;
  const run = async (messages: Message[], threadId = "t") => {
    let received: RunAgentInput | undefined;
    const n = ++runs;
    const next = {
      run: (input: RunAgentInput) => {
        received = input;
        return from([ev.runStarted(`run-${n}`, { threadId }), ...reply(n), ev.runFinished(`run-${n}`, { threadId })]);
      },
    };
    await lastValueFrom(
      (middleware(runInput({ threadId, runId: `run-${n}`, messages }), next) as Observable<unknown>).pipe(toArray()),
    );
    return received!.messages;
  };
  return { middleware, run, warnings };
}

describe("D-KEEPER a branch the application sends again after a run without it", () => {
  it("D-KEEPER R-REASON-17 regenerate, then the branch picker back to the first answer: its values go back with it", async () => {
    const { middleware, run } = middlewareOver();
    // Regenerate: the run input ends at the user's message; the first answer left the conversation.
    await run([msg.user("u1", "q1")]);
    expect(middleware.history!.messages.map((m) => m.id)).toEqual(["u1"]);
    // Back to the first answer, and a follow-up: the store's copy has no values.
    const sent = await run(textOnly([msg.user("u1", "q1"), ...firstBranch, msg.user("u2", "q2")]));
    expect(valueOf(sent, "r1")).toBe("P:r1");
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
    // Held again: the history has the values, their records and the reasoning's duration.
    const history = middleware.history!;
    expect(valueOf(history.messages, "r1")).toBe("P:r1");
    expect(callValueOf(history.messages, "a1", "c1")).toBe("P:c1");
    expect(history.issuers).toEqual(held.issuers);
    expect(history.durations).toEqual(held.durations);
  });

  it("D-KEEPER an edit, two runs on the new branch, then back: the first branch's values still go back", async () => {
    const { run } = middlewareOver();
    await run([msg.user("u1b", "q1 edited")]);
    await run([msg.user("u1b", "q1 edited"), msg.user("u2b", "more")]);
    const sent = await run(textOnly([msg.user("u1", "q1"), ...firstBranch]));
    expect(valueOf(sent, "r1")).toBe("P:r1");
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
  });

  it("D-KEEPER R-INPUT-3 a store that also drops reasoning: the returning branch's reasoning is put back before its answer, with its value", async () => {
    const { middleware, run } = middlewareOver();
    await run([msg.user("u1", "q1")]);
    const shown = textOnly([msg.user("u1", "q1"), ...firstBranch, msg.user("u2", "q2")]).filter(
      (m) => m.role !== "reasoning",
    );
    const sent = await run(shown);
    expect(sent.map((m) => m.id)).toEqual(["u1", "r1", "a1", "t1", "u2"]);
    expect(valueOf(sent, "r1")).toBe("P:r1");
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
    expect(middleware.history!.messages.map((m) => m.id)).toEqual(["u1", "r1", "a1", "t1", "u2"]);
  });

  it("D-KEEPER a message in the conversation is never among the departed: reasoning put back (the store dropped it) is not", () => {
    const { departed, history } = continueConversation(
      held,
      textOnly([held.messages[0]!, ...firstBranch.slice(1)]),
      P,
      () => {},
    );
    expect(history.messages.map((m) => m.id)).toEqual(["u1", "r1", "a1", "t1"]);
    expect(departed.messages).toEqual([]);
    expect(departed.issuers).toEqual([]);
  });

  it("D-KEEPER D-ISSUER R-REASON-26 a departed value of another producer comes back to the history and is withheld from the request", async () => {
    const { middleware, run, warnings } = middlewareOver({
      ...held,
      issuers: [
        { subtype: "message", entityId: "r1", issuer: OTHER },
        { subtype: "tool-call", entityId: "c1", issuer: P },
      ],
    });
    await run([msg.user("u1", "q1")]);
    const sent = await run(textOnly([msg.user("u1", "q1"), ...firstBranch]));
    expect(valueOf(sent, "r1")).toBeUndefined();
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
    expect(valueOf(middleware.history!.messages, "r1")).toBe("P:r1");
    expect(warnings.filter((w) => w.code === "VALUE_WITHHELD").flatMap((w) => w.ids ?? [])).toEqual(["r1"]);
  });

  it("D-KEEPER a value the application sets itself on a returning message is sent as given, and held as this producer's", async () => {
    const { middleware, run } = middlewareOver();
    await run([msg.user("u1", "q1")]);
    const own = textOnly([msg.user("u1", "q1"), ...firstBranch]).map((m) =>
      m.id === "r1" ? ({ ...m, encryptedValue: "app's own" } as Message) : m,
    );
    const sent = await run(own);
    expect(valueOf(sent, "r1")).toBe("app's own");
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
    expect(valueOf(middleware.history!.messages, "r1")).toBe("app's own");
  });

  it("D-KEEPER nothing of one thread's departed messages goes to another thread sending the same ids", async () => {
    const { run } = middlewareOver();
    await run([msg.user("u1", "q1")], "t");
    const sent = await run(textOnly([msg.user("u1", "q1"), ...firstBranch]), "elsewhere");
    expect(valueOf(sent, "r1")).toBeUndefined();
    expect(callValueOf(sent, "a1", "c1")).toBeUndefined();
  });

  it("D-KEEPER R-EVT-8 a producer reusing a departed message's id: the conversation's message is the one held, with one record each", async () => {
    // Run 2 regenerates under the same ids, with new values.
    const reply = (n: number): unknown[] =>
      n === 1
        ? [
            ev.reasoningMessageStart("r1"),
            ev.reasoningMessageContent("r1", "again"),
            ev.reasoningMessageEnd("r1"),
            ev.encryptedValue("message", "r1", "P:r1 again"),
          ]
        : [];
    const { middleware, run } = middlewareOver(held, reply);
    await run([msg.user("u1", "q1")]);
    const sent = await run(textOnly(middleware.history!.messages));
    expect(valueOf(sent, "r1")).toBe("P:r1 again");
    const records = middleware.history!.issuers.filter((r) => r.entityId === "r1");
    expect(records).toEqual([{ subtype: "message", entityId: "r1", issuer: P }]);
    expect(middleware.history!.durations.filter((d) => d.id === "r1")).toHaveLength(1);
  });

  it("D-KEEPER D-TRUNC a returning message keeps its incomplete item (a turn cut off, then regenerated, then picked back)", async () => {
    const cut: ReasoningHistory = { ...held, incomplete: [{ kind: "message", id: "r1", reason: "truncated" }] };
    const { middleware, run } = middlewareOver(cut);
    await run([msg.user("u1", "q1")]);
    expect(middleware.history!.incomplete).toEqual([]);
    await run(textOnly([msg.user("u1", "q1"), ...firstBranch]));
    expect(middleware.history!.incomplete).toEqual([{ kind: "message", id: "r1", reason: "truncated" }]);
  });

  it("D-KEEPER only messages with a value count towards the bound: those without one leave for good", () => {
    const valueless = Array.from({ length: KEPT_DEPARTED }, (_, i) => msg.assistant(`plain${i}`, "text"));
    const conversation: ReasoningHistory = { ...held, messages: [...held.messages, ...valueless] };
    const { departed } = continueConversation(conversation, [msg.user("u1", "q1")], P, () => {});
    expect(departed.messages.map((m) => m.id)).toEqual(["r1", "a1"]);
  });

  it(`D-KEEPER the latest ${KEPT_DEPARTED} messages with a value to leave are kept; the one before them is forgotten`, () => {
    const answers = Array.from({ length: KEPT_DEPARTED + 1 }, (_, i) =>
      msg.assistant(`a${i}`, "", { toolCalls: [msg.toolCall(`c${i}`, "f", "{}", { encryptedValue: `P:c${i}` })] }),
    );
    const conversation: ReasoningHistory = {
      messages: [msg.user("u", "q"), ...answers, msg.user("plain", "no value")],
      incomplete: [],
      issuers: answers.map((_, i) => ({ subtype: "tool-call" as const, entityId: `c${i}`, issuer: P })),
      durations: [],
    };
    const { departed } = continueConversation(conversation, [msg.user("u", "q")], P, () => {});
    expect(departed.messages.map((m) => m.id)).toEqual(answers.slice(1).map((m) => m.id));
    expect(departed.issuers.map((r) => r.entityId)).toEqual(answers.slice(1).map((_, i) => `c${i + 1}`));
    const back = continueConversation(departed, textOnly([answers[0]!, answers[1]!]), P, () => {}, departed);
    expect(callValueOf(back.messages, "a0", "c0")).toBeUndefined();
    expect(callValueOf(back.messages, "a1", "c1")).toBe("P:c1");
  });

  it("D-KEEPER R-REASON-17 through a real HttpAgent: regenerate, then back to the first answer; the server gets its values byte-identical", async () => {
    const server = await serve(regenerateScript);
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const agent = new HttpAgent({ url: server.url, threadId: "t" }).use(middleware);
    await regenerateThenBack(server, () => agent);
  });
});

describe("D-KEEPER a branch after a reload: the departed messages saved beside the history (SavedThread)", () => {
  /** Runs `middleware` on thread "t" over the application's `messages` (the next agent answers nothing); what it sent. */
  async function runOn(middleware: ReturnType<typeof reasoningMiddleware>, messages: Message[], n: number) {
    let received: Message[] = [];
    const next = {
      run: (input: RunAgentInput) => {
        received = input.messages;
        return from([ev.runStarted(`run-${n}`, { threadId: "t" }), ev.runFinished(`run-${n}`, { threadId: "t" })]);
      },
    };
    await lastValueFrom(
      (middleware(runInput({ threadId: "t", runId: `run-${n}`, messages }), next) as Observable<unknown>).pipe(
        toArray(),
      ),
    );
    return received;
  }

  /** Before the reload: the first answer, then a regenerate; what onHistory gave last, serialized as a store keeps it. */
  async function regeneratedAndSaved(): Promise<{ history: string; departed: string }> {
    let last: { history: string; departed: string } | undefined;
    const middleware = reasoningMiddleware({
      producer: P,
      initialHistory: held,
      onWarning: () => {},
      onHistory: (history, { departed }) =>
        (last = { history: serializeHistory(history), departed: serializeHistory(departed) }),
    });
    await runOn(middleware, [msg.user("u1", "q1")], 1);
    return last!;
  }

  it("D-KEEPER onHistory gives each thread's departed messages with their records; none before a message leaves", async () => {
    const given: ReasoningHistory[] = [];
    const middleware = reasoningMiddleware({
      producer: P,
      initialHistory: held,
      onWarning: () => {},
      onHistory: (_, { departed }) => given.push(departed),
    });
    await runOn(middleware, textOnly(held.messages), 1);
    expect(given.at(-1)!.messages).toEqual([]);
    await runOn(middleware, [msg.user("u1", "q1")], 2);
    const departed = given.at(-1)!;
    expect(departed.messages.map((m) => m.id)).toEqual(["r1", "a1"]);
    expect(valueOf(departed.messages, "r1")).toBe("P:r1");
    expect(callValueOf(departed.messages, "a1", "c1")).toBe("P:c1");
    expect(departed.issuers).toEqual(held.issuers);
    expect(departed.durations).toEqual(held.durations);
  });

  it("D-KEEPER R-REASON-17 regenerate, reload (loadHistory gives { history, departed }), back to the first answer: its values go back", async () => {
    const saved = await regeneratedAndSaved();
    const asked: string[] = [];
    const reloaded = reasoningMiddleware({
      producer: P,
      onWarning: () => {},
      loadHistory: (threadId) => {
        asked.push(threadId);
        return { history: parseHistory(saved.history), departed: parseHistory(saved.departed) };
      },
    });
    const sent = await runOn(reloaded, textOnly([msg.user("u1", "q1"), ...firstBranch, msg.user("u2", "q2")]), 2);
    expect(asked).toEqual(["t"]);
    expect(valueOf(sent, "r1")).toBe("P:r1");
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
    expect(reloaded.history!.durations).toEqual(held.durations);
  });

  it("D-KEEPER D-ISSUER a promise of { departed } alone (no history was saved): the branch's values go back, to their producer only", async () => {
    const saved = await regeneratedAndSaved();
    const departed = parseHistory(saved.departed);
    const elsewhere = { ...departed, issuers: departed.issuers.map((r) => ({ ...r, issuer: OTHER })) };
    const load =
      (given: ReasoningHistory): ReasoningMiddlewareOptions["loadHistory"] =>
      async () => ({ departed: given });
    const sent = await runOn(
      reasoningMiddleware({ producer: P, onWarning: () => {}, loadHistory: load(departed) }),
      textOnly([msg.user("u1", "q1"), ...firstBranch]),
      1,
    );
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
    const warnings: ReasoningWarning[] = [];
    const withheld = await runOn(
      reasoningMiddleware({ producer: P, onWarning: (w) => warnings.push(w), loadHistory: load(elsewhere) }),
      textOnly([msg.user("u1", "q1"), ...firstBranch]),
      1,
    );
    expect(callValueOf(withheld, "a1", "c1")).toBeUndefined();
    expect(warnings.map((w) => w.code)).toContain("VALUE_WITHHELD");
  });

  it("D-KEEPER D-NO-ALIAS loaded departed messages are checked and copied as a history is: bad ones fail the run naming the thread and the part; a value of neither shape is refused", async () => {
    const departed = parseHistory((await regeneratedAndSaved()).departed);
    const failing = (saved: unknown) =>
      runOn(reasoningMiddleware({ producer: P, onWarning: () => {}, loadHistory: () => saved as never }), [], 1);
    await expect(
      failing({ departed: { ...departed, messages: [departed.messages[0], departed.messages[0]] } }),
    ).rejects.toThrow(
      /^agui-reasoning: reasoningMiddleware: the departed messages loadHistory gave for thread "t" is refused: initialHistory\.messages\[1\]/,
    );
    await expect(failing({ history: { messages: "none" } })).rejects.toThrow(
      /^agui-reasoning: reasoningMiddleware: the history loadHistory gave for thread "t" is refused/,
    );
    // A proxy whose `has` trap throws names neither field.
    const trapping = new Proxy(
      {},
      {
        has: () => {
          throw new Error("trap");
        },
      },
    );
    for (const neither of [{}, { thread: departed }, 42, "saved", null, trapping])
      await expect(failing(neither)).rejects.toThrow(
        'agui-reasoning: reasoningMiddleware: the value loadHistory gave for thread "t" is refused: it is neither a history, a { history, departed } object nor undefined',
      );
    // A getter or trap that throws is named, never quoted (D-REDACT).
    const secret = "P:c1 thinking";
    const throwing = {
      get departed(): never {
        throw new Error(secret);
      },
    };
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    for (const [hostile, part] of [
      [throwing, "departed messages"],
      [revoked.proxy, "history"],
    ] as const) {
      const error = await failing(hostile).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(
        `agui-reasoning: reasoningMiddleware: the ${part} loadHistory gave for thread "t" is refused: it cannot be read`,
      );
    }
    // Nothing saved: both fields present and undefined, as `{ history: await load(a), departed: await load(b) }` gives.
    await expect(failing({ history: undefined, departed: undefined })).resolves.toEqual([]);
    // The application editing what it gave changes nothing kept.
    const middleware = reasoningMiddleware({ producer: P, onWarning: () => {}, loadHistory: () => ({ departed }) });
    await runOn(middleware, [msg.user("u1", "q1")], 1);
    (departed.messages as Message[]).length = 0;
    const sent = await runOn(middleware, textOnly([msg.user("u1", "q1"), ...firstBranch]), 2);
    expect(callValueOf(sent, "a1", "c1")).toBe("P:c1");
  });

  it("D-KEEPER R-REASON-17 through a real HttpAgent and a HistoryStore saved when each run ends (docs/resilience.md): regenerate, restart, back; the server gets the first answer's values byte-identical", async () => {
    const server = await serve(regenerateScript);
    const store = new InMemoryHistoryStore();
    const departedKey = (threadId: string) => `${threadId}:departed`;
    /** An agent as the application makes it after each start, saving both records when a run ends. */
    const made = () => {
      const latest = new Map<string, { history: ReasoningHistory; departed: ReasoningHistory }>();
      const reasoning = reasoningMiddleware({
        producer: server.url,
        onWarning: () => {},
        onHistory: (history, { threadId, departed }) => latest.set(threadId, { history, departed }),
        loadHistory: async (threadId) => ({
          history: await store.load(threadId),
          departed: await store.load(departedKey(threadId)),
        }),
      });
      const agent = new HttpAgent({ url: server.url, threadId: "t" }).use(reasoning);
      agent.subscribe({
        onRunFinalized: async ({ input }) => {
          const kept = latest.get(input.threadId);
          if (kept === undefined) return; // the run failed before any history
          const { history, departed } = kept;
          await saveHistory(store, input.threadId, history);
          await saveHistory(store, departedKey(input.threadId), departed);
        },
      });
      return agent;
    };
    // The restart before the third run: a new agent and middleware; the UI's own store kept both branches, text only.
    const before = made();
    await regenerateThenBack(server, (run) => (run < 3 ? before : made()));
  });
});
