/**
 * The ways to run the package agree on one stream (D-PATHS), and `eventIndex` means one thing on
 * every path (D-EVENT-INDEX). Each case here was a disagreement (issue 20): a truncated run marked
 * `open` through the piped operators but `truncated` through the facade; the same stream failed "at
 * #2" through the facade and "at #4" through the fused operators, which also published a different
 * number of histories; and the facade's `exportState()` answered in the middle of a source event
 * once a subscriber had fed the source re-entrantly.
 */
// D-DURATION: each path its own counting clock, so that durations compare exactly.
import { countingClock } from "../support/clock";
import { from, map, Subject, type Observable, type OperatorFunction } from "rxjs";
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  reasoningPipeline,
  upcastThinking,
  verifyDiscipline,
  type AguiEvent,
  type ReasoningHistory,
  type ReasoningWarning,
} from "../../src";

type Op = OperatorFunction<unknown, unknown>;

/** The package's operators in the facade's order, `deriveHistory` last unless `events` is asked for. */
const operators = (end: "history" | "events", onWarning: (w: ReasoningWarning) => void = () => {}): Op[] =>
  [
    upcastThinking({ onWarning }),
    enforceSchema({ onWarning }),
    expandChunks({ onWarning }),
    verifyDiscipline({ onWarning }),
    ...(end === "history" ? [deriveHistory({ onWarning, scheduler: countingClock() })] : []),
  ] as Op[];

/** `ops` applied to `source`: fused (one after another), or apart (a `map(x => x)` between every two). */
function piped(source: Observable<unknown>, ops: readonly Op[], fused: boolean): Observable<unknown> {
  let out = source;
  ops.forEach((op, i) => {
    out = (fused || i === 0 ? out : out.pipe(map((x) => x))).pipe(op);
  });
  return out;
}

interface Seen {
  readonly values: unknown[];
  readonly warnings: ReasoningWarning[];
  error?: unknown;
}

function viaOperators(events: readonly unknown[], end: "history" | "events", fused: boolean): Seen {
  const seen: Seen = { values: [], warnings: [] };
  piped(
    from(events),
    operators(end, (w) => seen.warnings.push(w)),
    fused,
  ).subscribe({ next: (v) => seen.values.push(v), error: (e: unknown) => (seen.error = e) });
  return seen;
}

function viaFacade(events: readonly unknown[]): Seen & { histories: ReasoningHistory[] } {
  const seen = { values: [] as unknown[], warnings: [] as ReasoningWarning[], histories: [] as ReasoningHistory[] };
  const pipeline = reasoningPipeline(from(events), { onWarning: () => {}, scheduler: countingClock() });
  pipeline.history$.subscribe((h) => seen.histories.push(h));
  pipeline.warnings$.subscribe((w) => seen.warnings.push(w));
  pipeline.events$.subscribe({
    next: (e) => seen.values.push(e),
    error: (e: unknown) => ((seen as Seen).error = e),
  });
  return seen;
}

const run = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const finished = { type: "RUN_FINISHED", threadId: "t", runId: "r" };

/** Runs cut short while something is open: the source ends without RUN_FINISHED (Mastra's agent failing mid-reasoning). */
const TRUNCATED: Record<string, readonly unknown[]> = {
  reasoning: [
    run,
    { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
    { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "thinking" },
  ],
  "text chunk": [run, { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "hel" }],
  "tool call": [
    run,
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "search" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"q":' },
  ],
};

describe("D-PATHS: every path agrees on a truncated run (D-TRUNC)", () => {
  for (const [name, events] of Object.entries(TRUNCATED)) {
    it(`D-PATHS: ${name}: what was open is \`truncated\` through the facade, deriveHistory alone, and the operators fused or apart`, () => {
      const facade = viaFacade(events);
      expect((facade.error as { code?: string }).code).toBe("RUN_TRUNCATED");
      const expected = facade.histories.at(-1)!;
      expect(expected.incomplete.length).toBeGreaterThan(0);
      expect(expected.incomplete.every((item) => item.reason === "truncated")).toBe(true);

      // deriveHistory alone over the validated events the facade emitted.
      const alone: ReasoningHistory[] = [];
      from(facade.values as AguiEvent[])
        .pipe(deriveHistory({ onWarning: () => {}, scheduler: countingClock() }))
        .subscribe((h) => alone.push(h));
      expect(alone.at(-1)).toEqual(expected);

      for (const fused of [true, false]) {
        const chain = viaOperators(events, "history", fused);
        expect((chain.error as { code?: string }).code).toBe("RUN_TRUNCATED");
        expect(chain.values.at(-1)).toEqual(expected);
      }
    });
  }
});

/**
 * A chunk expanded into START + CONTENT, then an END for a message nobody started: the stream's
 * event #2 is the culprit. Verification sees it as its fifth input (the chunk's START, CONTENT and
 * the synthesized END of m1 before it).
 */
const FAILS_AT_2 = [
  run,
  { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "a" },
  { type: "TEXT_MESSAGE_END", messageId: "m2" },
];

describe("D-EVENT-INDEX: what eventIndex counts", () => {
  it("D-EVENT-INDEX: the facade and a fused chain name the source's index of the event that caused an error", () => {
    const facade = viaFacade(FAILS_AT_2);
    expect(facade.error).toMatchObject({ code: "ORPHAN_END", eventIndex: 2 });
    for (const end of ["history", "events"] as const) {
      expect(viaOperators(FAILS_AT_2, end, true).error).toMatchObject({ code: "ORPHAN_END", eventIndex: 2 });
    }
  });

  it("D-EVENT-INDEX: only an operator after a foreign operator counts its own input", () => {
    // verifyDiscipline after a `map`: its own input has START, CONTENT and END m1 before END m2.
    let error: unknown;
    from(FAILS_AT_2)
      .pipe(
        upcastThinking(),
        enforceSchema(),
        expandChunks(),
        map((x) => x),
        verifyDiscipline(),
      )
      .subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toMatchObject({ code: "ORPHAN_END", eventIndex: 4 });
    // A `map` before the whole chain changes nothing: the chain's source is the map's output.
    error = undefined;
    from(FAILS_AT_2)
      .pipe(
        map((x) => x),
        ...(operators("events") as [Op]),
      )
      .subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toMatchObject({ eventIndex: 2 });
  });

  it("D-EVENT-INDEX: a truncated run's error names the number of source events on every path", () => {
    const events = TRUNCATED["text chunk"]!;
    expect(viaFacade(events).error).toMatchObject({ code: "RUN_TRUNCATED", eventIndex: 2 });
    expect(viaOperators(events, "history", true).error).toMatchObject({ code: "RUN_TRUNCATED", eventIndex: 2 });
  });

  it("D-EVENT-INDEX: a warning about a synthesized event carries its trigger's index", () => {
    // An encrypted value naming nothing known, after a chunk (expanded into two events): warned at #3.
    const events = [
      run,
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "a" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", delta: "b" },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "nobody", encryptedValue: "v" },
      finished,
    ];
    const facade = viaFacade(events);
    const fused = viaOperators(events, "history", true);
    const unknown = (ws: readonly ReasoningWarning[]) => ws.filter((w) => w.code === "UNKNOWN_ENTITY");
    expect(unknown(facade.warnings).map((w) => w.eventIndex)).toEqual([3]);
    expect(unknown(fused.warnings)).toEqual(unknown(facade.warnings));
  });
});

describe("D-PATHS: the facade and a fused chain publish the same histories", () => {
  it("D-PATHS: one history per source event that changed it, also when a chunk expands into several events", () => {
    const events = [
      run,
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "a" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", delta: "b" },
      { type: "TOOL_CALL_CHUNK", toolCallId: "c1", toolCallName: "search", parentMessageId: "m1", delta: "{}" },
      finished,
    ];
    const facade = viaFacade(events);
    const fused = viaOperators(events, "history", true);
    expect(fused.error).toBeUndefined();
    expect(fused.values).toEqual(facade.histories);
  });

  it("D-PATHS: also for a truncated run (the last history marks the truncation)", () => {
    const events = TRUNCATED["text chunk"]!;
    expect(viaOperators(events, "history", true).values).toEqual(viaFacade(events).histories);
  });
});

describe("D-PATHS: re-entrant delivery (a subscriber feeding the source)", () => {
  const events: readonly unknown[] = [
    run,
    { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "a" },
    { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", delta: "b" },
    { type: "REASONING_MESSAGE_CHUNK", messageId: "r1", delta: "c" },
    { type: "REASONING_MESSAGE_CHUNK", messageId: "r1", delta: "d" },
    finished,
  ];

  /**
   * Feeds `events` into `subject`, the next one from inside every `every`-th value `subscribe` sees
   * after the first (the initial history, which a chain emits before it subscribes its source).
   */
  function feedReentrantly(subscribe: (onValue: () => void) => void, subject: Subject<unknown>, every: number): void {
    let next = 0;
    let seen = 0;
    const feed = (): void => {
      if (next < events.length) subject.next(events[next++]);
    };
    subscribe(() => {
      if (++seen > 1 && seen % every === 0) feed();
    });
    while (next < events.length) feed();
    subject.complete();
  }

  it("D-PATHS: the facade's history$ and a fused chain give the same histories when their subscriber feeds the source", () => {
    for (const every of [1, 2, 3]) {
      const facadeSource = new Subject<unknown>();
      const pipeline = reasoningPipeline(facadeSource, { onWarning: () => {}, scheduler: countingClock() });
      const facade: ReasoningHistory[] = [];
      let facadeError: unknown;
      pipeline.events$.subscribe({ error: (e: unknown) => (facadeError = e) });
      feedReentrantly(
        (onValue) =>
          pipeline.history$.subscribe((h) => {
            facade.push(h);
            onValue();
          }),
        facadeSource,
        every,
      );

      const chainSource = new Subject<unknown>();
      const chain: unknown[] = [];
      let chainError: unknown;
      feedReentrantly(
        (onValue) =>
          piped(chainSource, operators("history"), true).subscribe({
            next: (h) => {
              chain.push(h);
              onValue();
            },
            error: (e: unknown) => (chainError = e),
          }),
        chainSource,
        every,
      );
      expect(chainError).toEqual(facadeError);
      expect(chain).toEqual(facade);
    }
  });

  it("D-PATHS: the facade's events$ and a fused chain give the same events when their subscriber feeds the source", () => {
    for (const every of [1, 2, 3]) {
      const facadeSource = new Subject<unknown>();
      const pipeline = reasoningPipeline(facadeSource, { onWarning: () => {}, scheduler: countingClock() });
      const facade: unknown[] = [];
      feedReentrantly(
        (onValue) =>
          pipeline.events$.subscribe({
            next: (e) => {
              facade.push(e);
              onValue();
            },
            error: (e: unknown) => facade.push({ error: e }),
          }),
        facadeSource,
        every,
      );
      const chainSource = new Subject<unknown>();
      const chain: unknown[] = [];
      feedReentrantly(
        (onValue) =>
          piped(chainSource, operators("events"), true).subscribe({
            next: (e) => {
              chain.push(e);
              onValue();
            },
            error: (e: unknown) => chain.push({ error: e }),
          }),
        chainSource,
        every,
      );
      expect(chain).toEqual(facade);
    }
  });

  it("D-PATHS: exportState() in the middle of a source event is refused, also after a nested event ended", () => {
    const source = new Subject<unknown>();
    const pipeline = reasoningPipeline(source, { onWarning: () => {} });
    const attempts: Array<"refused" | "exported" | "failed"> = [];
    let nested = false;
    pipeline.events$.subscribe({
      next: (e) => {
        // The chunk expands into START, then CONTENT: inside START, feed the next event, then export.
        if ((e as { type: string }).type !== "TEXT_MESSAGE_START" || nested) return;
        nested = true;
        // A continuation of the same chunk stream (any other event would close it).
        source.next({ type: "TEXT_MESSAGE_CHUNK", messageId: "m1", delta: "more" });
        try {
          pipeline.exportState();
          attempts.push("exported");
        } catch {
          attempts.push("refused");
        }
      },
      error: () => attempts.push("failed"),
    });
    source.next(run);
    source.next({ type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "text" });
    expect(attempts).toEqual(["refused"]);
    // Between events it answers, with the whole text (the nested delta came before the outer one's CONTENT).
    expect(pipeline.history.messages).toMatchObject([{ id: "m1", content: "moretext" }]);
    expect(JSON.stringify(pipeline.exportState())).toContain('"moretext"');
  });
});
