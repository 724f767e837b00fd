/**
 * D-KEEPER, R-REASON-17: two runs of one thread at once. Two tabs of a chat (or a double submit) on a
 * middleware a server shares both continue the thread, each with messages of its own; whichever publishes
 * last is the thread's conversation. The other run's values must still go back when its tab sends its
 * messages again (they join the thread's departed messages, as a replaced branch's do), also after a
 * reload from what `onHistory` saved. Judged by what the next agent (or the agent server) receives.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import { from, lastValueFrom, Subject, throwError, toArray, type Observable } from "rxjs";
import type { ReasoningHistory } from "../../src";
import {
  reasoningMiddleware,
  type ReasoningMiddleware,
  type ThreadOfHistory,
} from "../../src/integration/http-agent-middleware";
import { ev, msg } from "../../src/testing/builders";
import type { RecordedRequest } from "../../src/testing/mock-agent-server";
import { runInput } from "../support/http-run";
import { runThrough } from "../support/middleware-run";
import { callValueOf, textOnly, valueOf } from "../support/lossy-stores";
import { useAgentServers } from "../support/sse-server";

const serve = useAgentServers();
const P = "http://127.0.0.1:9/agent";
type Tab = "x" | "y";

/** A tab's first turn in thread T, without its end: reasoning with a value, an answer with a tool call with a value. */
const turn = (tab: string) => [
  ev.runStarted(`${tab}-run-1`, { threadId: "T" }),
  ev.reasoningMessageStart(`${tab}-think`),
  ev.reasoningMessageContent(`${tab}-think`, "weighs"),
  ev.reasoningMessageEnd(`${tab}-think`),
  ev.encryptedValue("message", `${tab}-think`, `${tab}:think\u2028`),
  ev.textStart(`${tab}-answer`),
  ev.textContent(`${tab}-answer`, "Looking"),
  ev.textEnd(`${tab}-answer`),
  ev.toolCallStart(`${tab}-call`, "lookup", { parentMessageId: `${tab}-answer` }),
  ev.toolCallArgs(`${tab}-call`, "{}"),
  ev.toolCallEnd(`${tab}-call`),
  ev.encryptedValue("tool-call", `${tab}-call`, `${tab}:call\u0000`),
];
const finished = (tab: string) => ev.runFinished(`${tab}-run-1`, { threadId: "T" });

/** What a tab shows of `tab`'s turn (its store kept text only). */
const shown = (tab: string): Message[] =>
  textOnly([
    msg.reasoning(`${tab}-think`, "weighs"),
    msg.assistant(`${tab}-answer`, "Looking", { toolCalls: [msg.toolCall(`${tab}-call`, "lookup", "{}")] }),
  ]);

/** What the tab shows after its first turn, and its next question. */
const followUp = (tab: string): Message[] => [msg.user(`${tab}-q1`, "q1"), ...shown(tab), msg.user(`${tab}-q2`, "q2")];

/** A run of thread T through `middleware` whose next agent streams what is fed to `source`, until it completes. */
function going(middleware: ReasoningMiddleware, messages: Message[]) {
  const source = new Subject<unknown>();
  const ended = lastValueFrom(
    (middleware(runInput({ threadId: "T", messages }), { run: () => source }) as Observable<unknown>).pipe(toArray()),
  );
  return { feed: (events: unknown[]) => events.forEach((e) => source.next(e)), end: () => source.complete(), ended };
}

/**
 * A middleware whose `onHistory` keeps the thread as an application saves it (the history and its
 * departed messages, the latest call's), and `reloaded()`: a new middleware loading what is saved at that call.
 */
function savingMiddleware() {
  let saved: { history: ReasoningHistory; departed: ReasoningHistory } | undefined;
  const middleware = reasoningMiddleware({
    producer: P,
    onWarning: () => {},
    onHistory: (history, { departed }) => (saved = { history, departed }),
  });
  const reloaded = () => {
    const thread = saved; // as saved now
    return reasoningMiddleware({ producer: P, onWarning: () => {}, loadHistory: () => thread });
  };
  return { middleware, saved: () => saved!, reloaded };
}

/** Whether `sent` (a request's messages) carries the tab's two values, byte-identical. */
function expectValues(sent: Message[], tab: string): void {
  expect(valueOf(sent, `${tab}-think`)).toBe(`${tab}:think\u2028`);
  expect(callValueOf(sent, `${tab}-answer`, `${tab}-call`)).toBe(`${tab}:call\u0000`);
}

describe("D-KEEPER two runs of one thread at once", () => {
  // Which tab's turn is published last (the thread's conversation then), and which tab's run ends first.
  it.each([
    ["x", "x"],
    ["x", "y"],
    ["y", "x"],
    ["y", "y"],
  ] as const)(
    "D-KEEPER R-REASON-17 tab %s publishes last, tab %s ends first: each tab's follow-up carries its own values, and so after a reload from what onHistory saved",
    async (publishesLast, endsFirst) => {
      const { middleware, reloaded } = savingMiddleware();
      const runs = { x: going(middleware, [msg.user("x-q1", "q1")]), y: going(middleware, [msg.user("y-q1", "q1")]) };
      const other = (tab: Tab): Tab => (tab === "x" ? "y" : "x");
      for (const tab of [other(publishesLast), publishesLast] as const) runs[tab].feed(turn(tab));
      for (const tab of [endsFirst, other(endsFirst)] as const) {
        runs[tab].feed([finished(tab)]);
        runs[tab].end();
      }
      await Promise.all([runs.x.ended, runs.y.ended]);

      // Then, and after a reload from what the application saved last.
      for (const keeper of [middleware, reloaded()]) {
        expectValues(await runThrough(keeper, "T", followUp("x")), "x");
        expectValues(await runThrough(keeper, "T", followUp("y")), "y");
      }
    },
  );

  it("D-KEEPER R-REASON-17 a run that starts while two go, and publishes after one of them ended: that one's values still go back", async () => {
    const middleware = reasoningMiddleware({ producer: P, onWarning: () => {} });
    const [x, y] = ["x", "y"].map((tab) => going(middleware, [msg.user(`${tab}-q1`, "q1")]));
    x!.feed(turn("x"));
    y!.feed(turn("y").slice(0, 5)); // its reasoning, with its value
    x!.feed([finished("x")]);
    x!.end();
    await x!.ended;
    // A third tab's run starts while y goes; y streams its tool call's value and ends; the third publishes last.
    const z = going(middleware, [msg.user("z-q1", "q1")]);
    y!.feed([...turn("y").slice(5), finished("y")]);
    y!.end();
    await y!.ended;
    z.feed([...turn("z"), finished("z")]);
    z.end();
    await z.ended;
    for (const tab of ["x", "y", "z"]) expectValues(await runThrough(middleware, "T", followUp(tab)), tab);
  });

  it("D-KEEPER R-REASON-17 branches replaced before two runs at once keep their values, once each, also after a reload", async () => {
    const { middleware, saved, reloaded } = savingMiddleware();
    const question = msg.user("q", "q");
    // Three answers to one question (two regenerates): a1 and a2 are branches the application keeps.
    for (const tab of ["a1", "a2", "a3"]) await runThrough(middleware, "T", [question], [...turn(tab), finished(tab)]);
    // One tab goes back to a2, another continues a3, at once; a3's publishes last, a2's ends first.
    const x = going(middleware, [question, ...shown("a2"), msg.user("x-q2", "q2")]);
    const y = going(middleware, [question, ...shown("a3"), msg.user("y-q2", "q2")]);
    x.feed([ev.runStarted("x", { threadId: "T" }), ev.textStart("x-answer"), ev.textContent("x-answer", "ok")]);
    y.feed(turn("y"));
    x.feed([ev.textEnd("x-answer"), finished("x")]);
    x.end();
    y.feed([finished("y")]);
    y.end();
    await Promise.all([x.ended, y.ended]);
    // What the application saved last: each departed message once (a history holds a message once, R-EVT-8).
    const ids = saved().departed.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const keeper of [middleware, reloaded()])
      for (const tab of ["a1", "a2"])
        expectValues(await runThrough(keeper, "T", [question, ...shown(tab), msg.user(`${tab}-back`, "q")]), tab);
  });

  it("D-KEEPER a run whose thread the middleware forgot meanwhile (256 other threads ran) ends as it would have", async () => {
    const middleware = reasoningMiddleware({ producer: P, onWarning: () => {} });
    const [x, y] = ["x", "y"].map((tab) => going(middleware, [msg.user(`${tab}-q1`, "q1")]));
    x!.feed(turn("x"));
    y!.feed(turn("y"));
    for (let i = 0; i < 256; i++)
      await lastValueFrom(
        (
          middleware(runInput({ threadId: `other-${i}`, messages: [msg.user(`o${i}`, "o")] }), {
            run: () => from([ev.runStarted(`o${i}`), ev.runFinished(`o${i}`)]),
          }) as Observable<unknown>
        ).pipe(toArray()),
      );
    for (const [tab, run] of [
      ["x", x!],
      ["y", y!],
    ] as const) {
      run.feed([finished(tab)]);
      run.end();
      await expect(run.ended).resolves.toEqual(expect.any(Array));
    }
  });

  it("D-KEEPER runs of a thread one after another: onHistory gets each history once, as history$ does, and no departed messages", async () => {
    const saved: ThreadOfHistory[] = [];
    const middleware = reasoningMiddleware({ producer: P, onWarning: () => {}, onHistory: (_, t) => saved.push(t) });
    let published = 0;
    middleware.history$.subscribe(() => published++);
    await runThrough(middleware, "T", [msg.user("x-q1", "q1")]);
    // The tab sends a value of its own, and the agent server is down: the run fails before its first event.
    const sent = [msg.user("x-q1", "q1"), msg.reasoning("x-think", "weighs", { encryptedValue: "x:own" })];
    const failed = await lastValueFrom(
      (
        middleware(runInput({ threadId: "T", messages: sent }), {
          run: () => throwError(() => new Error("down")),
        }) as Observable<unknown>
      ).pipe(toArray()),
    ).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    await runThrough(middleware, "T", sent);
    expect(published).toBeGreaterThanOrEqual(3);
    expect(saved).toHaveLength(published);
    expect(saved.map((thread) => thread.departed.messages)).toEqual(saved.map(() => []));
  });

  it("D-KEEPER an onHistory that throws when a run's end adds its messages to the other's departed ones fails that run with the application's error", async () => {
    let armed = false;
    const thrown = new Error("the store is full");
    const middleware = reasoningMiddleware({
      producer: P,
      onWarning: () => {},
      onHistory: () => {
        if (armed) throw thrown;
      },
    });
    const [x, y] = ["x", "y"].map((tab) => going(middleware, [msg.user(`${tab}-q1`, "q1")]));
    const [xEnded, yEnded] = [x!, y!].map((run) => run.ended.catch((error: unknown) => error));
    x!.feed(turn("x"));
    y!.feed(turn("y"));
    // x ends after y published last: its messages join the departed ones of y's conversation, and onHistory is told.
    armed = true;
    x!.feed([finished("x")]);
    x!.end();
    expect(await xEnded).toBe(thrown);
    armed = false;
    y!.feed([finished("y")]);
    y!.end();
    expect(await yEnded).toEqual(expect.any(Array));
    expectValues(await runThrough(middleware, "T", followUp("x")), "x");
  });

  it("D-KEEPER R-REASON-17 two clones of one HttpAgent on one thread, both requests in flight at once: each tab's next request carries its own values byte-identical", async () => {
    // Each first answer waits until both first requests have arrived: the two runs go at once.
    let arrived = 0;
    let bothArrived: () => void = () => {};
    const both = new Promise<void>((resolve) => (bothArrived = resolve));
    const server = await serve(async (request: RecordedRequest) => {
      const { runId } = request.json as { runId: string };
      const tab = runId.slice(0, 1);
      if (runId.endsWith("-run-2"))
        return { events: [ev.runStarted(runId, { threadId: "T" }), ev.runFinished(runId, { threadId: "T" })] };
      if (++arrived === 2) bothArrived();
      await both;
      return { events: [...turn(tab), finished(tab)], writeSize: 64 };
    });
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const base = new HttpAgent({ url: server.url, threadId: "T" }).use(middleware);
    const [x, y] = ["x", "y"].map((tab) => {
      const clone = base.clone();
      clone.setMessages([msg.user(`${tab}-q1`, "q1")]);
      return clone;
    }) as [HttpAgent, HttpAgent];
    await Promise.all([x.runAgent({ runId: "x-run-1" }), y.runAgent({ runId: "y-run-1" })]);
    for (const [tab, agent] of [
      ["x", x],
      ["y", y],
    ] as const) {
      agent.setMessages([...textOnly(agent.messages), msg.user(`${tab}-q2`, "q2")]);
      await agent.runAgent({ runId: `${tab}-run-2` });
    }
    const sentBy = (runId: string) =>
      (server.requests.find((r) => (r.json as { runId: string }).runId === runId)!.json as { messages: Message[] })
        .messages;
    expectValues(sentBy("x-run-2"), "x");
    expectValues(sentBy("y-run-2"), "y");
  });
});
