/**
 * D-PACE's transient editing (src/history/epoch.ts): between publications a paced history's steps
 * edit the conversation in place. Two things must hold for that to be invisible:
 *
 * - a step that throws has edited nothing: the chain goes on from (finishes, publishes) the state it
 *   passed, which an in-place edit cannot give back — so a history step throwing at any point of any
 *   event (a hostile getter at its k-th read, the clock) must leave exactly the state a persistent
 *   conversation leaves, and finishing it must give exactly what finishing that one gives;
 * - whatever was handed out (a published history, an exported state) never changes afterwards.
 */
import { asyncScheduler, Subject, type SchedulerLike } from "rxjs";
import type { AguiEvent } from "../../src/core/types";
import type { Conversation } from "../../src/history/conversation";
import { createHistoryStage } from "../../src/history/history-stage";
import { historyStateToJSON } from "../../src/resume/history-codec";
import { reasoningPipeline, type ReasoningHistory } from "../../src";

const TITLE = { "agui-reasoning": { thinkingTitle: "Planning" } };

/** Every kind of edit the history stage makes, in one stream it accepts on its own. */
const STREAM: readonly AguiEvent[] = [
  {
    type: "RUN_STARTED",
    threadId: "t",
    runId: "r1",
    input: {
      messages: [
        { id: "u1", role: "user", content: "hi" },
        { id: "x1", role: "tool", toolCallId: "c0", content: "earlier" },
      ],
    },
  },
  { type: "REASONING_START", messageId: "s1", metadata: TITLE },
  { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning", metadata: { a: 1 } },
  { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "think", metadata: { b: 2 } },
  { type: "REASONING_MESSAGE_END", messageId: "m1", metadata: { c: 3 }, timestamp: 5 },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: "v1" },
  { type: "REASONING_END", messageId: "s1" },
  // D-TOOL-RESULT-ID: the id of a held tool message.
  { type: "TEXT_MESSAGE_START", messageId: "x1", role: "assistant", name: "bot" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "x1", delta: "answer" },
  { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "f", parentMessageId: "x1", metadata: { d: 4 } },
  { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: "{}", metadata: { e: 5 } },
  { type: "TOOL_CALL_END", toolCallId: "c1", metadata: { f: 6 } },
  { type: "TEXT_MESSAGE_END", messageId: "x1" },
  { type: "TOOL_CALL_RESULT", messageId: "k1", toolCallId: "c9", content: "unattributed" },
  // The holder's id (the call's own) is a held tool message's: it yields the id, then the holder is made.
  { type: "TOOL_CALL_START", toolCallId: "k1", toolCallName: "g", subagentRunId: "sub" },
  { type: "TOOL_CALL_END", toolCallId: "k1" },
  { type: "TOOL_CALL_RESULT", messageId: "tr1", toolCallId: "c1", content: [{ type: "text", text: "ok" }] },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "c1", encryptedValue: "v2" },
  { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "PLAN", content: { done: 0 } },
  {
    type: "ACTIVITY_DELTA",
    messageId: "a1",
    activityType: "PLAN",
    patch: [{ op: "replace", path: "/done", value: 1 }],
  },
  { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
  { type: "REASONING_MESSAGE_END", messageId: "m1" },
  { type: "TEXT_MESSAGE_START", messageId: "o1" },
  {
    type: "MESSAGES_SNAPSHOT",
    messages: [
      { id: "u1", role: "user", content: "hi again" },
      { id: "n1", role: "assistant", content: "new" },
    ],
  },
  { type: "REASONING_START", messageId: "s2" },
  { type: "REASONING_MESSAGE_START", messageId: "m2", role: "reasoning" },
  { type: "RUN_ERROR", message: "failed" },
  { type: "RUN_STARTED", threadId: "t", runId: "r2" },
  { type: "REASONING_START", messageId: "s3" },
  { type: "REASONING_MESSAGE_START", messageId: "m3", role: "reasoning" },
  { type: "REASONING_MESSAGE_CONTENT", messageId: "m3", delta: "open" },
  { type: "REASONING_END", messageId: "s3" },
  { type: "TOOL_CALL_START", toolCallId: "c3", toolCallName: "h", parentMessageId: "m3" },
];

/** A clock reading 0, or throwing while `failing` (the user's scheduler may throw). */
function clock(): SchedulerLike & { failing: boolean } {
  return {
    failing: false,
    now(this: { failing: boolean }) {
      if (this.failing) throw new Error("clock failed");
      return 0;
    },
    schedule: asyncScheduler.schedule.bind(asyncScheduler),
  };
}

/** `event` whose fields are getters; the `k`-th read of any of them throws. */
function throwingAt(event: AguiEvent, k: number): { event: AguiEvent; reads: () => number } {
  let reads = 0;
  const wrapped = {};
  for (const [key, value] of Object.entries(event)) {
    Object.defineProperty(wrapped, key, {
      enumerable: true,
      get() {
        if (++reads === k) throw new Error("hostile getter");
        return value;
      },
    });
  }
  return { event: wrapped as AguiEvent, reads: () => reads };
}

const view = (state: Conversation): string => JSON.stringify(historyStateToJSON(state));
const stage = (scheduler: SchedulerLike) => createHistoryStage({ producer: "p", scheduler });
const ctx = (index: number) => ({ index });

describe("D-PACE: transient editing (history stage)", () => {
  it("the stream itself passes the stage (so each case below is the event's own read or clock failing)", () => {
    const s = stage(clock());
    let state = s.init();
    STREAM.forEach((e, i) => (state = s.step(state, e, ctx(i)).state));
    expect(view(s.finish!(state, ctx(STREAM.length)).state as Conversation)).toContain('"truncated"');
  });

  it("D-PACE: a history step throwing at any read of any event, or at its clock, leaves exactly the persistent conversation's state, and finishes as it does", () => {
    // The persistent versions before each event (immutable: kept as they are).
    const persistent = stage(clock());
    const before: Conversation[] = [persistent.init() as Conversation];
    STREAM.forEach((e, i) => before.push(persistent.step(before[i]!, e, ctx(i)).state as Conversation));
    let failures = 0;
    STREAM.forEach((event, i) => {
      // k = 0: the clock throws instead of a getter.
      for (let k = 0; ; k++) {
        const time = clock();
        const transient = stage(time);
        let state = transient.init() as Conversation;
        state.editInPlace();
        for (let j = 0; j < i; j++) state = transient.step(state, STREAM[j]!, ctx(j)).state as Conversation;
        const hostile = k === 0 ? { event, reads: () => 0 } : throwingAt(event, k);
        time.failing = k === 0;
        let threw = false;
        try {
          transient.step(state, hostile.event, ctx(i));
        } catch {
          threw = true;
        }
        time.failing = false;
        if (threw) {
          failures++;
          const name = `event ${i} (${event.type}), ${k === 0 ? "the clock" : `read ${k}`}`;
          expect({ name, state: view(state) }).toEqual({ name, state: view(before[i]!) });
          const finished = transient.finish!(state, ctx(i)).state as Conversation;
          const reference = persistent.finish!(before[i]!, ctx(i)).state as Conversation;
          expect({ name, finished: view(finished) }).toEqual({ name, finished: view(reference) });
        }
        if (k > 0 && hostile.reads() < k) break;
      }
    });
    // Every event was made to fail at each of its reads.
    expect(failures).toBeGreaterThan(STREAM.length * 2);
  });

  it("D-PACE: a version whose history was read is never edited again: the next step makes a new one", () => {
    const s = stage(clock());
    let state = s.init() as Conversation;
    state.editInPlace();
    state = s.step(state, STREAM[0]!, ctx(0)).state as Conversation;
    const first = s.step(state, STREAM[1]!, ctx(1)).state as Conversation;
    const next = s.step(first, STREAM[2]!, ctx(2)).state as Conversation;
    // Unread, the version is edited in place.
    expect(next).toBe(first);
    const shown = next.history;
    const copy = structuredClone(shown);
    const json = view(next);
    let later = next;
    STREAM.slice(3).forEach((e, i) => (later = s.step(later, e, ctx(i + 3)).state as Conversation));
    later = s.finish!(later, ctx(STREAM.length)).state as Conversation;
    expect(later).not.toBe(next);
    expect(shown).toEqual(copy);
    expect(next.history).toBe(shown);
    expect(view(next)).toBe(json);
  });
});

describe("D-PACE: transient editing (paced facade)", () => {
  it("D-PACE: every history published, and every exported state, stays exactly as it was after later paced events", () => {
    const source = new Subject<unknown>();
    const p = reasoningPipeline(source, {
      producer: "p",
      historyPace: 1e9,
      scheduler: asyncScheduler,
      onWarning: () => {},
    });
    const published: { history: ReasoningHistory; json: string }[] = [];
    p.history$.subscribe((history) => published.push({ history, json: JSON.stringify(history) }));
    const errors: unknown[] = [];
    p.events$.subscribe({ error: (e: unknown) => errors.push(e) });
    const exported: { state: unknown; json: string }[] = [];
    for (let run = 0; run < 3; run++) {
      const id = (name: string) => `${name}-${run}`;
      source.next({ type: "RUN_STARTED", threadId: "t", runId: id("r") });
      source.next({ type: "REASONING_START", messageId: id("s") });
      source.next({ type: "REASONING_MESSAGE_START", messageId: id("m"), role: "reasoning" });
      for (let d = 0; d < 5; d++)
        source.next({ type: "REASONING_MESSAGE_CONTENT", messageId: id("m"), delta: `t${d} ` });
      const state = p.exportState();
      exported.push({ state, json: JSON.stringify(state) });
      source.next({ type: "REASONING_MESSAGE_END", messageId: id("m") });
      source.next({ type: "REASONING_END", messageId: id("s") });
      source.next({ type: "TEXT_MESSAGE_START", messageId: id("a"), role: "assistant" });
      source.next({ type: "TEXT_MESSAGE_CONTENT", messageId: id("a"), delta: "answer" });
      source.next({ type: "TEXT_MESSAGE_END", messageId: id("a") });
      source.next({ type: "TOOL_CALL_START", toolCallId: id("c"), toolCallName: "f", parentMessageId: id("a") });
      source.next({ type: "TOOL_CALL_ARGS", toolCallId: id("c"), delta: "{}" });
      source.next({ type: "TOOL_CALL_END", toolCallId: id("c") });
      source.next({ type: "RUN_FINISHED", threadId: "t", runId: id("r") });
    }
    source.complete();
    expect(errors).toEqual([]);
    // The leading edge, one flush per run's end, and exports' flushes.
    expect(published.length).toBeGreaterThan(4);
    for (const { history, json } of published) expect(JSON.stringify(history)).toBe(json);
    for (const { state, json } of exported) expect(JSON.stringify(state)).toBe(json);
    expect(published[published.length - 1]!.history.messages).toHaveLength(6);
  });
});
