import { asyncScheduler, concat, from, NEVER } from "rxjs";
import {
  InMemoryHistoryStore,
  reasoningPipeline,
  reasoningView,
  toRunInputMessages,
  type ReasoningHistory,
} from "../../src";
import { ev, historyOf, msg } from "../../src/testing/builders";
import { runPipeline, TEST_PRODUCER } from "../../src/testing/run-pipeline";

const at = (timestamp: number) => ({ timestamp });
const quiet = { producer: TEST_PRODUCER, onWarning: () => {} };

/** Two turns: the second thinks (titled), calls a tool, thinks again, answers, then thinks once more. */
const conversation = [
  ev.runStarted("r1", at(0)),
  ev.reasoningChunk("t1", "First turn thought", at(10)),
  ev.textChunk("a1", "First answer", at(20)),
  ev.runFinished("r1", at(30)),
  ev.runStarted("r2", at(100)),
  ev.thinkingStart({ title: "Looking it up", timestamp: 100 }),
  ev.reasoningMessageStart("t2", at(110)),
  ev.reasoningMessageContent("t2", "I should search", at(120)),
  ev.reasoningMessageEnd("t2", at(200)),
  ev.thinkingEnd(at(210)),
  ev.toolCallStart("c1", "search", { parentMessageId: "a2", timestamp: 220 }),
  ev.toolCallArgs("c1", "{}", at(230)),
  ev.toolCallEnd("c1", at(240)),
  ev.toolCallResult("tr1", "c1", "found", at(250)),
  ev.reasoningMessageStart("t3", at(300)),
  ev.reasoningMessageEnd("t3", at(350)),
  ev.encryptedValue("message", "t3", "opaque", at(351)),
  ev.textChunk("a3", "The answer", at(400)),
  ev.reasoningChunk("t4", "After the answer", at(500)),
  ev.runFinished("r2", at(600)),
];

function historyAfter(events: readonly unknown[], user?: string): ReasoningHistory {
  const initialMessages = user === undefined ? [] : [msg.user("u0", user)];
  return runPipeline(events, { initialMessages }).history;
}

describe("reasoningView: what a chat UI shows of the reasoning", () => {
  it("groups per assistant turn: reasoning split around a tool call is one group, text ends a group; titles, durations, redaction", () => {
    const history = historyAfter(conversation);
    // A user message between the two runs separates the turns.
    const withUser = {
      ...history,
      messages: [...history.messages.slice(0, 2), msg.user("u1", "next?"), ...history.messages.slice(2)],
    };
    const view = reasoningView(withUser);
    expect(view.turns.map((t) => t.id)).toEqual(["t1", "t2"]);
    expect(view.turns[0]!.groups).toEqual([
      {
        blocks: [expect.objectContaining({ id: "t1", text: "First turn thought", durationMs: 10, streaming: false })],
        streaming: false,
        durationMs: 10,
      },
    ]);
    const second = view.turns[1]!;
    expect(second.groups.map((g) => g.blocks.map((b) => b.id))).toEqual([["t2", "t3"], ["t4"]]);
    const [t2, t3] = second.groups[0]!.blocks;
    expect(t2).toEqual(
      expect.objectContaining({ text: "I should search", title: "Looking it up", durationMs: 90, redacted: false }),
    );
    // A value and no text: "reasoning hidden by the provider".
    expect(t3).toEqual(expect.objectContaining({ text: "", title: undefined, durationMs: 50, redacted: true }));
    // From the first block's start (110) to the last block's end (350).
    expect(second.groups[0]!.durationMs).toBe(240);
    // t4 ended when the run finished (its END synthesized by RUN_FINISHED, dated by it).
    expect(second.groups[1]!.durationMs).toBe(100);
  });

  it("R-REASON-17: never changes what toRunInputMessages sends — every block, its own value, its order", () => {
    const history = historyAfter(conversation, "question");
    const before = JSON.stringify(toRunInputMessages(history, quiet));
    const view = reasoningView(history);
    expect(view.turns[0]!.groups.map((g) => g.blocks.length)).toEqual([1, 2, 1]);
    expect(JSON.stringify(toRunInputMessages(history, quiet))).toBe(before);
    const sent = toRunInputMessages(history, quiet);
    expect(sent.filter((m) => m.role === "reasoning").map((m) => m.id)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(sent.find((m) => m.id === "t3")).toEqual(msg.reasoning("t3", "", { encryptedValue: "opaque" }));
  });

  it("a streaming block is marked streaming, and ends with its END", () => {
    const p = reasoningPipeline(
      from([ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", "thinking")]),
      quiet,
    );
    const views: ReturnType<typeof reasoningView>[] = [];
    p.history$.subscribe((h) => views.push(reasoningView(h, views[views.length - 1])));
    p.events$.subscribe({ error: () => {} });
    const streaming = views[2]!.turns[0]!.groups[0]!;
    expect(streaming.streaming).toBe(true);
    expect(streaming.blocks[0]).toEqual(
      expect.objectContaining({ text: "thinking", streaming: true, durationMs: undefined }),
    );
    // Truncated: no longer streaming, still no end.
    const last = views[views.length - 1]!.turns[0]!.groups[0]!;
    expect(last.streaming).toBe(false);
    expect(last.durationMs).toBeUndefined();
  });

  it("R-RUN-5: a history saved mid-run and loaded again streams nothing with { running: false } (the tab closed mid-thought), and stays exactly what was saved", async () => {
    const store = new InMemoryHistoryStore();
    const p = reasoningPipeline(
      concat(
        from([ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", "thinking")]),
        NEVER,
      ),
      quiet,
    );
    // A chat UI saving on every history, while the answer streams; then the tab is closed.
    const saved: Promise<void>[] = [];
    p.history$.subscribe((h) => {
      if (h.messages.length > 0) saved.push(store.save("t1", h));
    });
    p.events$.subscribe().unsubscribe();
    await Promise.all(saved);
    const loaded = (await store.load("t1"))!;
    expect(loaded.incomplete).toEqual([{ kind: "message", id: "m1", reason: "open" }]); // lossless (D-HISTORY-IDS)
    // As if a run were still streaming into it (the default): "Thinking…".
    expect(reasoningView(loaded).turns[0]!.groups[0]!.streaming).toBe(true);
    // Nothing runs for it: interrupted, with its text, and no duration.
    const still = reasoningView(loaded, undefined, { running: false });
    expect(still.turns[0]!.groups[0]).toEqual(expect.objectContaining({ streaming: false, durationMs: undefined }));
    expect(still.turns[0]!.groups[0]!.blocks[0]).toEqual(
      expect.objectContaining({ text: "thinking", streaming: false, durationMs: undefined }),
    );
    // Identity-stable across the flag: the same flag again gives the same view; a change rebuilds the turn.
    expect(reasoningView(loaded, still, { running: false })).toBe(still);
    expect(reasoningView(loaded, still).turns[0]).not.toBe(still.turns[0]);
    expect(() => reasoningView(loaded, undefined, { running: "no" as never })).toThrow(
      "agui-reasoning: reasoningView's `running` must be a boolean",
    );
  });

  it("identity-stable: an unchanged turn is the previous view's object (===), a changed one is not; no change gives the same view", () => {
    const turn1 = conversation.slice(0, 4);
    const events = [
      ...turn1,
      ev.runStarted("r2"),
      ev.reasoningChunk("x1", "a"),
      ev.reasoningChunk("x1", "b"),
      ev.runFinished("r2"),
    ];
    const p = reasoningPipeline(from(events), { ...quiet, initialMessages: [msg.user("u0", "q")] });
    const histories: ReasoningHistory[] = [];
    p.history$.subscribe((h) => histories.push(h));
    p.events$.subscribe();
    // Insert a user message between the runs, as an application would: the history's own messages are shared.
    const withUser = (h: ReasoningHistory): ReasoningHistory => {
      const i = h.messages.findIndex((m) => m.id === "x1");
      return i < 0
        ? h
        : { ...h, messages: [...h.messages.slice(0, i), msg.user("u1", "more"), ...h.messages.slice(i)] };
    };
    const afterA = reasoningView(
      withUser(histories.find((h) => h.messages.some((m) => m.id === "x1" && m.content === "a"))!),
    );
    const last = withUser(histories[histories.length - 1]!);
    const afterB = reasoningView(last, afterA);
    expect(afterB.turns).toHaveLength(2);
    expect(afterB.turns[0]).toBe(afterA.turns[0]);
    expect(afterB.turns[1]).not.toBe(afterA.turns[1]);
    expect(afterB.turns[1]!.groups[0]!.blocks[0]!.text).toBe("ab");
    // Nothing changed: the previous view itself.
    expect(reasoningView(last, afterB)).toBe(afterB);
    // A new duration record (END) changes the turn even when its messages did not.
    const ended = { ...last, durations: last.durations.map((d) => (d.id === "x1" ? { ...d } : d)) };
    expect(reasoningView(ended, afterB).turns[1]).not.toBe(afterB.turns[1]);
    expect(reasoningView(ended, afterB).turns[0]).toBe(afterB.turns[0]);
  });

  it("D-TOOL-RESULT-ID: turn ids are unique in a view when two turns start with messages sharing an id, and stay stable", () => {
    // LangGraph Python gives a tool result its call's message id; here a user message came between them.
    const call = msg.toolCall("c1");
    const messages = [
      msg.user("u1", "look it up"),
      msg.assistant("X", undefined, { toolCalls: [call] }),
      msg.user("u2", "and then?"),
      msg.tool("X", "c1", "found"),
      msg.reasoning("r1", "so"),
      msg.user("u3", "again"),
      msg.assistant("X#2", "a message whose own id is X#2"),
    ];
    const view = reasoningView(historyOf(messages));
    expect(view.turns.map((t) => t.id)).toEqual(["X", "X#2", "X#2#2"]);
    expect(view.turns.map((t) => t.messages)).toEqual([[messages[1]], messages.slice(3, 5), [messages[6]]]);
    // The same ids for a grown history, and the unchanged turns reused.
    const grown = reasoningView(historyOf([...messages, msg.reasoning("r2", "more")]), view);
    expect(grown.turns.map((t) => t.id)).toEqual(["X", "X#2", "X#2#2"]);
    expect(grown.turns[1]).toBe(view.turns[1]);
    expect(grown.turns[2]).not.toBe(view.turns[2]);
    // The turn before it now starts with another id: the same messages get the id "X" back, a new turn object.
    const renamed = [msg.user("u1", "look it up"), msg.assistant("Y", "no call"), ...messages.slice(2, 5)];
    const again = reasoningView(historyOf(renamed), view);
    expect(again.turns.map((t) => t.id)).toEqual(["Y", "X"]);
    expect(again.turns[1]!.messages).toEqual(view.turns[1]!.messages);
    expect(again.turns[1]).not.toBe(view.turns[1]);
  });

  it("D-DURATION R-EVT-3: no duration from instants out of order (a producer's clock behind, or stamped and observed mixed), and a group lasts to its latest end when its blocks interleave", () => {
    // The browser's clock (epoch milliseconds, as Date.now() gives), far ahead of the producer's stamps.
    const aheadClock = { now: () => 1_800_000_000_000, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
    const view = (events: readonly unknown[]) =>
      reasoningView(runPipeline(events, { scheduler: aheadClock }).history).turns[0]!.groups[0]!;
    // Stamped out of order; then a start observed on a clock far ahead of the producer's stamps.
    for (const start of [at(5000), {}]) {
      const group = view([
        ev.runStarted("r1"),
        ev.reasoningMessageStart("m1", { ...start }),
        ev.reasoningMessageEnd("m1", at(3000)),
        ev.runFinished("r1"),
      ]);
      expect(group.blocks[0]!.durationMs).toBeUndefined();
      expect(group.durationMs).toBeUndefined();
    }
    // m2 starts and ends inside m1: the group lasts from m1's start to m1's end, not m2's.
    const interleaved = view([
      ev.runStarted("r1"),
      ev.reasoningMessageStart("m1", at(1000)),
      ev.reasoningMessageStart("m2", at(1010)),
      ev.reasoningMessageEnd("m2", at(1020)),
      ev.reasoningMessageEnd("m1", at(1100)),
      ev.runFinished("r1"),
    ]);
    expect(interleaved.blocks.map((b) => b.durationMs)).toEqual([100, 10]);
    expect(interleaved.durationMs).toBe(100);
  });

  it("R-SUB-1 R-SUB-2: a subagent's answer ends its own group, not its parent's; each agent's reasoning is grouped apart", () => {
    const sub = { subagentRunId: "S" };
    const history = historyAfter([
      ev.runStarted("r1", at(0)),
      ev.reasoningChunk("p1", "Delegate the search", at(10)),
      ev.subagentStarted("S", at(20)),
      ev.reasoningChunk("s1", "Searching", { ...sub, ...at(30) }),
      ev.textChunk("sa", "Found it", { ...sub, ...at(40) }),
      ev.reasoningChunk("s2", "Double-check", { ...sub, ...at(45) }),
      ev.subagentFinished("S", at(50)),
      ev.reasoningChunk("p2", "The subagent found it", at(60)),
      ev.textChunk("a1", "Here it is", at(70)),
      ev.runFinished("r1", at(80)),
    ]);
    const groups = reasoningView(history).turns[0]!.groups;
    expect(groups.map((g) => [g.subagentRunId, g.blocks.map((b) => b.id)])).toEqual([
      [undefined, ["p1", "p2"]],
      ["S", ["s1"]],
      ["S", ["s2"]],
    ]);
    // The parent's group has no subagentRunId field at all (absent means absent, R-EVT-7).
    expect(Object.keys(groups[0]!)).not.toContain("subagentRunId");
    // Grouping is display only: every block still goes back, in its order (R-REASON-17).
    expect(
      toRunInputMessages(history, { producer: TEST_PRODUCER })
        .filter((m) => m.role === "reasoning")
        .map((m) => m.id),
    ).toEqual(["p1", "s1", "s2", "p2"]);
  });

  it("a history without durations (a stored version-1 history) still gives a view, with no durations or titles", () => {
    const view = reasoningView(historyOf([msg.reasoning("m1", "old thought"), msg.assistant("a1", "ok")]));
    expect(view.turns[0]!.groups[0]!.blocks[0]).toEqual(
      expect.objectContaining({ text: "old thought", durationMs: undefined, title: undefined, timing: undefined }),
    );
  });
});
