import { from, Observable, of } from "rxjs";
import type { Message } from "@ag-ui/core";
import { reasoningPipeline, toRunInputMessages, ReasoningProtocolError, type ReasoningHistory } from "../src";
import { ev, sequentialIds } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

const PRODUCER = "https://agent.example/run";
const empty: ReasoningHistory = { messages: [], incomplete: [], issuers: [] };
const quiet = () => ({ onWarning: () => {}, idFactory: sequentialIds(), producer: PRODUCER });

describe("reasoningPipeline (facade)", () => {
  it("subscribes to the source once however many of events$, history$ and warnings$ are subscribed", () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("a-----b-----c-----|", {
        a: ev.runStarted(),
        b: ev.reasoningChunk("m1", "Let me"),
        c: ev.runFinished(),
      });
      const p = reasoningPipeline(source, quiet());
      // Two subscribers on each view: still exactly one subscription of the source.
      expectObservable(p.history$).toBe("a-----b-----c-----|", {
        a: empty,
        b: { messages: [{ id: "m1", role: "reasoning", content: "Let me" }], incomplete: [{ kind: "message", id: "m1", reason: "open" }], issuers: [] },
        c: { messages: [{ id: "m1", role: "reasoning", content: "Let me" }], incomplete: [], issuers: [] },
      });
      expectObservable(p.history$.pipe()).toBe("a-----b-----c-----|", {
        a: empty,
        b: { messages: [{ id: "m1", role: "reasoning", content: "Let me" }], incomplete: [{ kind: "message", id: "m1", reason: "open" }], issuers: [] },
        c: { messages: [{ id: "m1", role: "reasoning", content: "Let me" }], incomplete: [], issuers: [] },
      });
      expectObservable(p.warnings$).toBe("------------------|");
      expectObservable(p.warnings$).toBe("------------------|");
      expectObservable(p.events$).toBe("a-----(bc)--(de)--|", {
        a: ev.runStarted(),
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "Let me" },
        d: { type: "REASONING_MESSAGE_END", messageId: "m1" },
        e: ev.runFinished(),
      });
      expectObservable(p.events$).toBe("a-----(bc)--(de)--|", {
        a: ev.runStarted(),
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "Let me" },
        d: { type: "REASONING_MESSAGE_END", messageId: "m1" },
        e: ev.runFinished(),
      });
      expectSubscriptions(source.subscriptions).toBe("^-----------------!");
    });
  });

  it("a cold source counting its subscriptions is subscribed once", () => {
    let subscriptions = 0;
    const source = new Observable<unknown>((s) => {
      subscriptions++;
      for (const e of [ev.runStarted(), ev.runFinished()]) s.next(e);
      s.complete();
    });
    const p = reasoningPipeline(source, quiet());
    const seen: string[] = [];
    p.history$.subscribe(() => seen.push("h"));
    p.warnings$.subscribe(() => seen.push("w"));
    p.events$.subscribe((e) => seen.push(e.type));
    p.events$.subscribe(() => {});
    p.history$.subscribe(() => {});
    expect(subscriptions).toBe(1);
    expect(seen).toEqual(["h", "RUN_STARTED", "RUN_FINISHED"]);
  });

  it("events$, history$ and warnings$ in one diagram: an unknown event is dropped with a warning (R-PROC-1)", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b-----c-----d-----|", {
        a: ev.runStarted(),
        b: { type: "REASONING_SUMMARY", messageId: "x" },
        c: ev.textChunk("a1", "Hi"),
        d: ev.runFinished(),
      });
      const p = reasoningPipeline(source, quiet());
      const text = { id: "a1", role: "assistant", content: "Hi" };
      expectObservable(p.history$).toBe("a-----------c-----d-----|", {
        a: empty,
        c: { messages: [text], incomplete: [{ kind: "message", id: "a1", reason: "open" }], issuers: [] },
        d: { messages: [text], incomplete: [], issuers: [] },
      });
      expectObservable(p.warnings$).toBe("------w-----------------|", {
        w: expect.objectContaining({ code: "UNKNOWN_EVENT_TYPE", eventType: "REASONING_SUMMARY", eventIndex: 1 }),
      });
      expectObservable(p.events$).toBe("a-----------(bc)--(de)--|", {
        a: ev.runStarted(),
        b: { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
        c: { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Hi" },
        d: { type: "TEXT_MESSAGE_END", messageId: "a1" },
        e: ev.runFinished(),
      });
    });
  });

  it("unsubscribing every view tears the source down", () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("a-----b-----c-----d-----e-----f-----|", {
        a: ev.runStarted(),
        b: ev.reasoningChunk("m1", "x"),
        c: ev.reasoningChunk(undefined, "y"),
        d: ev.reasoningChunk(undefined, "z"),
        e: ev.reasoningChunk(undefined, "w"),
        f: ev.runFinished(),
      });
      const p = reasoningPipeline(source, quiet());
      expectObservable(p.history$, "^-------!").toBe("a-----b-", {
        a: empty,
        b: { messages: [{ id: "m1", role: "reasoning", content: "x" }], incomplete: [{ kind: "message", id: "m1", reason: "open" }], issuers: [] },
      });
      expectObservable(p.events$, "^-------------!").toBe("a-----(bc)--d-", {
        a: ev.runStarted(),
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "x" },
        d: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "y" },
      });
      expectSubscriptions(source.subscriptions).toBe("^-------------!");
    });
  });

  it("R-RUN-13: a violation errors events$; history$ keeps what was delivered and completes", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b-----c-----d-----|", {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageContent("m1", "kept"),
        d: ev.reasoningMessageContent("m2", "orphan"),
      });
      const p = reasoningPipeline(source, quiet());
      const kept = { id: "m1", role: "reasoning", content: "kept" };
      expectObservable(p.history$).toBe("a-----b-----c-----|", {
        a: empty,
        b: { messages: [{ ...kept, content: "" }], incomplete: [{ kind: "message", id: "m1", reason: "open" }], issuers: [] },
        c: { messages: [kept], incomplete: [{ kind: "message", id: "m1", reason: "open" }], issuers: [] },
      });
      expectObservable(p.warnings$).toBe("------------------|");
      expectObservable(p.events$).toBe(
        "a-----b-----c-----#",
        { a: ev.runStarted(), b: ev.reasoningMessageStart("m1"), c: ev.reasoningMessageContent("m1", "kept") },
        expect.objectContaining({ code: "ORPHAN_CONTENT", eventIndex: 3, ids: ["m2"] }),
      );
    });
  });

  it("D-TRUNC: a source that ends inside a run errors with RUN_TRUNCATED; history lists the message as truncated", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b-----|", { a: ev.runStarted(), b: ev.reasoningChunk("m1", "half") });
      const p = reasoningPipeline(source, quiet());
      const half = { id: "m1", role: "reasoning", content: "half" };
      expectObservable(p.history$).toBe("a-----b-----(c|)", {
        a: empty,
        b: { messages: [half], incomplete: [{ kind: "message", id: "m1", reason: "open" }], issuers: [] },
        c: { messages: [half], incomplete: [{ kind: "message", id: "m1", reason: "truncated" }], issuers: [] },
      });
      expectObservable(p.events$).toBe(
        "a-----(bc)--#",
        {
          a: ev.runStarted(),
          b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
          c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "half" },
        },
        expect.objectContaining({ code: "RUN_TRUNCATED", rule: "D-TRUNC", eventIndex: 2 }),
      );
    });
  });

  it("a synchronous source: views subscribed before events$ see every emission; connect() starts it without events$", () => {
    const events = [ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageEnd("m1"), ev.runFinished()];
    const p = reasoningPipeline(from(events), quiet());
    const histories: ReasoningHistory[] = [];
    p.history$.subscribe((h) => histories.push(h));
    const types: string[] = [];
    p.events$.subscribe((e) => types.push(e.type));
    expect(types).toEqual(events.map((e) => e.type));
    expect(histories.map((h) => h.incomplete.length)).toEqual([0, 1, 0]);

    const q = reasoningPipeline(from(events), quiet());
    const last: ReasoningHistory[] = [];
    q.connect();
    q.history$.subscribe((h) => last.push(h)); // late: replayed latest state
    expect(last).toEqual([{ messages: [{ id: "m1", role: "reasoning", content: "" }], incomplete: [], issuers: [] }]);
    expect(q.history).toBe(last[0]);
  });

  it("D-ISSUER, R-REASON-17/26: a two-run conversation returns each encrypted value to its issuer only", () => {
    // Turn 1: a reasoning message and a tool call each get an encrypted value.
    const turn1 = [
      ev.runStarted("r1"),
      ev.reasoningStart("s1"),
      ev.reasoningChunk("m1", "Thinking"),
      ev.reasoningEnd("s1"),
      ev.encryptedValue("message", "m1", "opaque+/=blob\u00e9"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
      ev.toolCallArgs("tc1", "{}"),
      ev.toolCallEnd("tc1"),
      ev.encryptedValue("tool-call", "tc1", ""),
      ev.runFinished("r1"),
    ];
    const p1 = reasoningPipeline(of(...turn1), quiet());
    p1.connect();
    const h1 = p1.history;
    const toSame = toRunInputMessages(h1, { producer: PRODUCER, onWarning: () => {} });
    expect(toSame).toEqual([
      { id: "m1", role: "reasoning", content: "Thinking", encryptedValue: "opaque+/=blob\u00e9" },
      {
        id: "a1",
        role: "assistant",
        toolCalls: [{ id: "tc1", type: "function", function: { name: "search", arguments: "{}" }, encryptedValue: "" }],
      },
    ]);
    const other = collectWarnings();
    const toOther = toRunInputMessages(h1, { producer: "https://other.example", onWarning: other.onWarning });
    expect(JSON.stringify(toOther)).not.toContain("encryptedValue");
    expect(other.codes()).toContain("VALUE_WITHHELD");
    expect(JSON.stringify(other.warnings)).not.toContain("opaque");

    // Turn 2 starts from turn 1's history; the producer echoes its input; the values survive.
    const turn2 = [
      ev.runStarted("r2", { input: { threadId: "t1", runId: "r2", messages: toSame } }),
      ev.textStart("a2"),
      ev.textContent("a2", "Done"),
      ev.textEnd("a2"),
      ev.runFinished("r2"),
    ];
    const p2 = reasoningPipeline(of(...turn2), { ...quiet(), initialHistory: h1 });
    p2.connect();
    const again = toRunInputMessages(p2.history, { producer: PRODUCER, onWarning: () => {} });
    expect(again.slice(0, 2)).toEqual(toSame);
    expect(again[2]).toEqual({ id: "a2", role: "assistant", content: "Done" });
  });

  it("errors are ReasoningProtocolError instances carrying the source index", () => {
    const p = reasoningPipeline(of(ev.reasoningStart("s1")), quiet());
    let error: unknown;
    p.events$.subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeInstanceOf(ReasoningProtocolError);
    expect(error).toMatchObject({ code: "EVENT_OUTSIDE_RUN", eventIndex: 0, rule: "R-RUN-1" });
  });

  it("initialMessages seed the history", () => {
    const initialMessages: Message[] = [{ id: "u1", role: "user", content: "Hello" }];
    const p = reasoningPipeline(of(ev.runStarted(), ev.runFinished()), { ...quiet(), initialMessages });
    p.connect();
    expect(p.history.messages).toEqual(initialMessages);
  });
});
