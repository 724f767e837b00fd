/**
 * Lists that lie about their length: a proxy of an array whose `length` claims 2³²−1 (or grows after
 * its first read) and whose every index read answers a plausible entry, so no hole ever stops a loop.
 * Every reader of a caller's list reads its length once and refuses one past 2^24 items
 * (`MAX_LIST_LENGTH`, docs/security.md) before reading any item: a clear error naming the list and the
 * bound, never a hang, never the content (D-REDACT). A list whose length grows after the first read is
 * read to that first length. Each lying list throws past `READ_CAP` index reads, so a reader that would
 * loop for hours fails these tests instead of hanging the run.
 */
import { from, lastValueFrom, toArray, type Observable, type OperatorFunction } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import { deriveHistory, verifyDiscipline } from "../../src/pipeline/operators";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { messagesOf } from "../../src/history/messages-of";
import { toRunInputMessages } from "../../src/history/run-input";
import { reasoningView } from "../../src/view/reasoning-view";
import type { ReasoningHistory } from "../../src/history/types";
import { parseHistory, serializeHistory } from "../../src/storage/history-format";
import { saveHistory } from "../../src/storage/history-store";
import { InMemoryHistoryStore } from "../../src/storage/in-memory-store";
import { resumable } from "../../src/resume/resumable";
import { ev, historyOf } from "../../src/testing/builders";
import { mockAgent } from "../../src/testing/mock-agent";
import { returnedValues } from "../../src/testing/returned-values";
import { reasoningMatchers } from "../../src/testing/matchers";
import type { AguiEvent } from "../../src/core/types";
import { failureOf, runFacade, runOperator } from "./support/run";
import { LIST_PLACES, lyingList, SECRETS } from "./support/streams";

// A hang is a red test, not a stuck run (the lying lists also throw past READ_CAP reads).
jest.setTimeout(5000);

const HUGE = 2 ** 32 - 1;
/** The rule in the words every refusal uses: the claimed length and the bound, nothing of the list. */
const PAST = `a list of ${HUGE} items, past the 16777216 a list may hold`;

const user = (): Message => ({ id: "u1", role: "user", content: SECRETS.answer });
const reasoning = (): Message => ({
  id: "r1",
  role: "reasoning",
  content: SECRETS.thought,
  encryptedValue: SECRETS.value,
});
const call = () => ({
  id: "c1",
  type: "function",
  function: { name: "f", arguments: SECRETS.args },
  encryptedValue: SECRETS.value,
});
const incomplete = () => ({ kind: "message", id: "r1", reason: "open" });
const issuer = () => ({ subtype: "message", entityId: "r1", issuer: "P" });
const duration = () => ({ kind: "message", id: "r1", startedAt: 0, startObserved: true });
const ITEMS = { messages: reasoning, incomplete, issuers: issuer, durations: duration } as const;
type ListName = keyof typeof ITEMS;
const LISTS = Object.keys(ITEMS) as ListName[];

const history = (parts: Partial<Record<ListName, unknown>>): ReasoningHistory =>
  ({ messages: [], incomplete: [], issuers: [], durations: [], ...parts }) as unknown as ReasoningHistory;

/** What `run` threw (or `undefined`), with the lying list's index reads. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const runInput = (messages: unknown): RunAgentInput =>
  ({ threadId: "t", runId: "r1", messages, tools: [], context: [], state: {}, forwardedProps: {} }) as RunAgentInput;

describe("R-PROC-4 a list claiming 2³²−1 plausible items is refused before any item is read", () => {
  it.each(LISTS)(
    "R-PROC-4 D-REDACT: initialHistory.%s: a TypeError naming the list and the bound (facade, operator, middleware)",
    (name) => {
      for (const make of [
        (seed: ReasoningHistory) => reasoningPipeline(from([]), { initialHistory: seed }),
        (seed: ReasoningHistory) => deriveHistory({ initialHistory: seed }),
        (seed: ReasoningHistory) => reasoningMiddleware({ producer: "P", initialHistory: seed }),
      ]) {
        const lying = lyingList(ITEMS[name]);
        expect(() => make(history({ [name]: lying.list }))).toThrow(
          new TypeError(`agui-reasoning: initialHistory.${name} is not JSON data: ${PAST}`),
        );
        expect(lying.reads()).toBe(0);
      }
    },
  );

  it("R-PROC-4: initialMessages: a TypeError naming it and the bound", () => {
    const lying = lyingList(user);
    expect(() => reasoningPipeline(from([]), { initialMessages: lying.list as Message[] })).toThrow(
      new TypeError(`agui-reasoning: initialMessages is not JSON data: ${PAST}`),
    );
    expect(lying.reads()).toBe(0);
  });

  it("R-PROC-4: one item past the bound is refused too: 2^24 is the most a list may hold", () => {
    const lying = lyingList(user, 2 ** 24 + 1);
    expect(() => reasoningPipeline(from([]), { initialMessages: lying.list as Message[] })).toThrow(
      new TypeError(
        "agui-reasoning: initialMessages is not JSON data: a list of 16777217 items, past the 16777216 a list may hold",
      ),
    );
    expect(lying.reads()).toBe(0);
  });

  it.each(LISTS)(
    "R-PROC-4 D-HISTORY-IDS: parseHistory of a value whose %s lies: a TypeError naming the JSON pointer",
    (name) => {
      const lying = lyingList(ITEMS[name]);
      const stored = { format: "agui-reasoning/history", version: 2, ...history({ [name]: lying.list }) };
      expect(() => parseHistory(stored)).toThrow(
        new TypeError(`agui-reasoning: parseHistory: /${name} cannot be read as JSON data (${PAST})`),
      );
      expect(lying.reads()).toBe(0);
    },
  );

  it("R-PROC-4: resumeFrom, a snapshot whose history's messages lie: a TypeError naming the JSON pointer", () => {
    const first = reasoningPipeline(from([ev.runStarted(), ev.runFinished()]), { producer: "P" });
    first.events$.subscribe({ error: () => {} });
    const snapshot = JSON.parse(JSON.stringify(first.exportState())) as {
      history: { history: Record<string, unknown>; spans: unknown };
    };
    for (const [at, place] of [
      ["/history/history/messages", (list: unknown[]) => (snapshot.history.history.messages = list)],
      ["/history/spans", (list: unknown[]) => (snapshot.history.spans = list)],
    ] as const) {
      const lying = lyingList(user);
      const kept = structuredClone(snapshot);
      place(lying.list);
      expect(() => reasoningPipeline(from([]), { producer: "P", resumeFrom: resumable(snapshot as never) })).toThrow(
        new TypeError(`agui-reasoning: resumeFrom: ${at} cannot be read as JSON data (${PAST})`),
      );
      expect(lying.reads()).toBe(0);
      Object.assign(snapshot, kept);
    }
  });

  it.each([
    ["messagesOf", (h: ReasoningHistory) => messagesOf(h)],
    ["toRunInputMessages", (h: ReasoningHistory) => toRunInputMessages(h, { producer: "P" })],
    ["reasoningView", (h: ReasoningHistory) => reasoningView(h)],
    ["serializeHistory", (h: ReasoningHistory) => serializeHistory(h)],
  ] as const)("R-PROC-4 D-REDACT: %s of a history whose lists lie: a TypeError naming the list", (caller, read) => {
    for (const name of LISTS) {
      const lying = lyingList(ITEMS[name]);
      expect(() => read(history({ [name]: lying.list }))).toThrow(
        new TypeError(`agui-reasoning: ${caller}: /${name} cannot be read as JSON data (${PAST})`),
      );
      expect(lying.reads()).toBe(0);
    }
    // A message's tool calls too.
    const calls = lyingList(call);
    expect(() => read(history({ messages: [{ id: "a1", role: "assistant", toolCalls: calls.list }] }))).toThrow(
      new TypeError(`agui-reasoning: ${caller}: /messages/0 cannot be read as JSON data (${PAST})`),
    );
    expect(calls.reads()).toBe(0);
  });

  it("R-PROC-4: saveHistory of a history whose messages lie rejects naming the list, and stores nothing", async () => {
    const store = new InMemoryHistoryStore();
    const lying = lyingList(reasoning);
    await expect(saveHistory(store, "t", history({ messages: lying.list }))).rejects.toThrow(PAST);
    expect(lying.reads()).toBe(0);
    expect(await store.load("t")).toBeUndefined();
  });

  it("R-PROC-4: the middleware refuses a RunAgentInput whose messages lie, naming them", async () => {
    const lying = lyingList(user);
    const next = { run: () => from([ev.runStarted(), ev.runFinished()]) };
    const run = reasoningMiddleware({ producer: "P" })(runInput(lying.list), next) as Observable<unknown>;
    await expect(lastValueFrom(run.pipe(toArray()))).rejects.toThrow(
      new TypeError(`agui-reasoning: reasoningMiddleware: run input messages cannot be read (${PAST})`),
    );
    expect(lying.reads()).toBe(0);
  });
});

describe("R-PROC-4 an event holding a list that claims 2³²−1 plausible items", () => {
  const patchOp = () => ({ op: "add", path: "/a", value: SECRETS.result });
  // What each place's list holds (plausible items, content among them: none may show in an error).
  const ITEM_OF: Record<string, () => unknown> = {
    "MESSAGES_SNAPSHOT.messages": user,
    "a snapshot message's toolCalls": call,
    "RUN_STARTED.input.messages": user,
    "TOOL_CALL_RESULT.content": () => ({ type: "text", text: SECRETS.result }),
    "ACTIVITY_DELTA.patch": patchOp,
    "STATE_DELTA.delta": patchOp,
    "SUBAGENT_FINISHED.outcome.interruptIds": () => "i1",
  };
  const events: readonly (readonly [string, (list: unknown[]) => AguiEvent[], () => unknown])[] = [
    ...LIST_PLACES.map(([name, make]) => [name, make, ITEM_OF[name]!] as const),
    [
      "a list inside ACTIVITY_SNAPSHOT.content",
      (list) => [ev.runStarted(), { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "x", content: { list } }],
      () => SECRETS.result,
    ],
  ];

  it.each(events)(
    "R-PROC-4 D-REDACT: %s fails MALFORMED_EVENT at its index through the facade, naming the bound; what came before stays delivered",
    (_name, make, item) => {
      const lying = lyingList(item);
      const stream = make(lying.list);
      const run = runFacade([...stream, ev.runFinished()]);
      const at = stream.length - 1;
      expect(failureOf(run.error)).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: at }));
      expect((run.error as Error).message).toContain(PAST);
      for (const secret of Object.values(SECRETS)) expect((run.error as Error).message).not.toContain(secret);
      expect(run.events).toHaveLength(at);
      expect(lying.reads()).toBe(0);
    },
  );

  // State and subagents are not the history's (R-STATE-3): it passes those events on unread.
  const kept = events.filter(([name]) => !name.startsWith("STATE_") && !name.startsWith("SUBAGENT_"));
  it.each(kept)(
    "R-PROC-4: %s through the history stage alone fails; verification alone goes on",
    (_name, make, item) => {
      const history = lyingList(item);
      const stream = [...make(history.list), ev.runFinished()];
      const derived = runOperator(
        stream,
        deriveHistory({ onWarning: () => {} }) as unknown as OperatorFunction<unknown, unknown>,
      );
      expect(failureOf(derived.error)).toEqual(expect.objectContaining({ code: "MALFORMED_EVENT" }));
      expect((derived.error as Error).message).toContain(PAST);
      expect(history.reads()).toBe(0);
      const verified = lyingList(item);
      const verify = runOperator(
        [...make(verified.list), ev.runFinished()],
        verifyDiscipline({ onWarning: () => {} }) as never,
      );
      expect(verify.error).toBeUndefined();
      expect(verified.reads()).toBe(0);
    },
  );
});

describe("R-PROC-4 the testing kit's readers refuse a lying list by name", () => {
  it("R-PROC-4: historyOf, mockAgent's messages and returnedValues name the list; none reads an item", async () => {
    const lists = [
      () => historyOf(lyingList(user).list as Message[]),
      () => mockAgent([[ev.runStarted(), ev.runFinished()]], { initialMessages: lyingList(user).list as Message[] }),
      () => mockAgent([[ev.runStarted(), ev.runFinished()]]).setMessages(lyingList(user).list as Message[]),
      () => mockAgent([[ev.runStarted(), ev.runFinished()]]).addMessages(lyingList(user).list as Message[]),
      () =>
        returnedValues(
          { messages: [] },
          lyingList(() => ({ subtype: "message", entityId: "r1", encryptedValue: SECRETS.value })).list as never,
        ),
    ];
    for (const make of lists) {
      const error = thrownBy(make);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^agui-reasoning\/testing: /);
      expect((error as Error).message).not.toContain(SECRETS.value);
    }
    // A request whose messages lie carries nothing back.
    const request = lyingList(reasoning);
    expect(
      returnedValues({ messages: request.list }, [
        { subtype: "message", entityId: "r1", encryptedValue: SECRETS.value },
      ]),
    ).toEqual([{ subtype: "message", entityId: "r1", bytes: SECRETS.value.length, identical: false }]);
    expect(request.reads()).toBe(0);
    // A scripted turn that lies is no turn: the run fails, naming it.
    const turn = lyingList(() => ev.runStarted());
    const agent = mockAgent([turn.list]);
    await expect(lastValueFrom(agent.run(runInput([])).pipe(toArray()))).rejects.toThrow(
      "agui-reasoning/testing: mockAgent's turn for run #1 is not an array or an Observable",
    );
    expect(turn.reads()).toBe(0);
  });

  it("R-PROC-4: toBeConformant fails naming the events list, reading none of it", () => {
    const events = lyingList(() => ev.runStarted());
    const result = reasoningMatchers.toBeConformant.call({} as never, events.list);
    expect(result.pass).toBe(false);
    expect(result.message()).toContain(PAST);
    expect(events.reads()).toBe(0);
  });
});

describe("R-PROC-4 a list whose length grows after its first read is read to that first length", () => {
  const grows = (item: () => unknown) => lyingList(item, 1, HUGE);

  it("R-PROC-4 D-ISSUER: the readers of a checked history read the check's copies of its lists", () => {
    for (const read of [
      (h: ReasoningHistory) => messagesOf(h),
      (h: ReasoningHistory) => toRunInputMessages(h, { producer: "P", onWarning: () => {} }),
      (h: ReasoningHistory) => reasoningView(h).turns,
    ]) {
      for (const name of LISTS) {
        const lying = grows(ITEMS[name]);
        expect(thrownBy(() => read(history({ [name]: lying.list })))).toBeUndefined();
        // Its one item, read by the check and by the copy the reader reads instead: never the grown length.
        expect(lying.reads()).toBeLessThanOrEqual(2);
      }
      // A message's tool calls, read again after the check (into a copy of the message): at most the first
      // length's one item each time, or refused by the bound, naming the message (or, as readAgain
      // words it, a read that answered otherwise after the check).
      const calls = grows(call);
      const assistant = { id: "a1", role: "assistant", toolCalls: calls.list };
      const error = thrownBy(() => read(history({ messages: [assistant] })));
      if (error !== undefined)
        expect((error as Error).message).toMatch(
          /: (\/messages\/0 cannot be read as JSON data \(a list of 4294967295 items|a read of the history failed after it was checked)/,
        );
      expect(calls.reads()).toBeLessThanOrEqual(2);
    }
    expect(messagesOf(history({ messages: grows(reasoning).list }))).toEqual([reasoning()]);
    expect(toRunInputMessages(history({ messages: grows(user).list }), { producer: "P" })).toEqual([user()]);
  });

  it("R-PROC-4: the seed, the middleware's run input and the testing kit read one item", async () => {
    const messages = grows(user);
    expect(reasoningPipeline(from([]), { initialMessages: messages.list as Message[] }).history.messages).toEqual([
      user(),
    ]);
    expect(messages.reads()).toBe(1);
    const seed = grows(reasoning);
    expect(
      reasoningMiddleware({ producer: "P", initialHistory: history({ messages: seed.list }) }).history!.messages,
    ).toEqual([reasoning()]);
    expect(seed.reads()).toBe(1);
    const sent = grows(user);
    let received: RunAgentInput | undefined;
    const next = {
      run: (input: RunAgentInput) => {
        received = input;
        return from([ev.runStarted(), ev.runFinished()]);
      },
    };
    await lastValueFrom(
      (reasoningMiddleware({ producer: "P" })(runInput(sent.list), next as never) as Observable<unknown>).pipe(
        toArray(),
      ),
    );
    expect(received!.messages).toEqual([user()]);
    expect(sent.reads()).toBe(1);

    const set = grows(user);
    const agent = mockAgent([[ev.runStarted(), ev.runFinished()]]);
    agent.setMessages(set.list as Message[]);
    expect(agent.messages).toEqual([user()]);
    const added = grows(user);
    agent.addMessages(added.list as Message[]);
    expect(agent.messages).toHaveLength(2);
    const turn = grows(() => ev.runStarted());
    await lastValueFrom(
      mockAgent([turn.list as never])
        .run(runInput([]))
        .pipe(toArray()),
    );
    // Each list's one item, read by the check and by its copy at most.
    for (const list of [set, added, turn]) expect(list.reads()).toBeLessThanOrEqual(2);

    const events = grows(() => ev.runStarted());
    reasoningMatchers.toBeConformant.call({} as never, events.list);
    expect(events.reads()).toBeLessThanOrEqual(2);
  });
});
