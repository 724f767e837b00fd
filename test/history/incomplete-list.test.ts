/**
 * The history's `incomplete` list as a persistent, indexed structure (issue 12, finding 2): a
 * START/END costs O(log n), not a copy of the list; emptied slots are compacted away. These tests pin
 * that it still lists exactly what the plain-array list did (D-TRUNC, D-RUN-ERROR), in the same
 * order, and that every published version keeps its own list (the history is immutable).
 */
import fc from "fast-check";
import type { AguiEvent } from "../../src/core/types";
import { createHistoryStage } from "../../src/history/history-stage";
import type { IncompleteItem, IncompleteReason, ReasoningHistory } from "../../src/history/types";
import { ev } from "../../src/testing/builders";
import { NEVER, concat, from, of } from "rxjs";
import { deriveHistory, reasoningMiddleware, reasoningPipeline, reasoningView } from "../../src";

type Op =
  | { readonly op: "start" | "end"; readonly kind: IncompleteItem["kind"]; readonly n: number }
  | { readonly op: "run-error" };

/** The list as the plain-array implementation kept it: append on first START, in place on a reopen, removed on END. */
class ArrayModel {
  items: IncompleteItem[] = [];
  private open = new Set<string>();
  start(kind: IncompleteItem["kind"], id: string): void {
    const at = this.items.findIndex((i) => i.kind === kind && i.id === id);
    const item = { kind, id, reason: "open" as const };
    if (at < 0) this.items.push(item);
    else this.items[at] = item;
    this.open.add(`${kind}:${id}`);
  }
  end(kind: IncompleteItem["kind"], id: string): void {
    this.items = this.items.filter((i) => !(i.kind === kind && i.id === id));
    this.open.delete(`${kind}:${id}`);
  }
  endAll(reason: IncompleteReason): void {
    this.items = this.items.map((i) =>
      i.reason === "open" && this.open.has(`${i.kind}:${i.id}`) ? { ...i, reason } : i,
    );
    this.open.clear();
  }
}

/** Turns ops into a valid stream (START only when closed, END only when open) and the model's list after each event. */
function streamOf(ops: readonly Op[]): { events: AguiEvent[]; expected: IncompleteItem[][] } {
  const model = new ArrayModel();
  const open = new Set<string>();
  const events: AguiEvent[] = [ev.runStarted()];
  const expected: IncompleteItem[][] = [[]];
  const push = (event: unknown): void => {
    events.push(event as AguiEvent);
    expected.push(model.items.slice());
  };
  let run = 1;
  for (const o of ops) {
    if (o.op === "run-error") {
      model.endAll("abandoned");
      open.clear();
      push(ev.runError());
      model.endAll("abandoned");
      push(ev.runStarted(`r${++run}`));
      continue;
    }
    const id = `${o.kind === "message" ? "m" : "tc"}${o.n}`;
    const key = `${o.kind}:${id}`;
    if (o.op === "start" && !open.has(key)) {
      open.add(key);
      model.start(o.kind, id);
      push(o.kind === "message" ? ev.reasoningMessageStart(id) : ev.toolCallStart(id));
    } else if (o.op === "end" && open.has(key)) {
      open.delete(key);
      model.end(o.kind, id);
      push(o.kind === "message" ? ev.reasoningMessageEnd(id) : ev.toolCallEnd(id));
    }
  }
  return { events, expected };
}

/** Every history the stage publishes, one per event (read at once, and again at the end). */
function histories(events: readonly AguiEvent[]): { atOnce: IncompleteItem[][]; atEnd: ReasoningHistory[] } {
  const stage = createHistoryStage();
  let state = stage.init();
  const atOnce: IncompleteItem[][] = [state.history.incomplete.slice()];
  const atEnd: ReasoningHistory[] = [state.history];
  events.forEach((event, index) => {
    state = stage.step(state, event, { index }).state;
    atEnd.push(state.history);
    atOnce.push(state.history.incomplete.slice());
  });
  return { atOnce: atOnce.slice(1), atEnd: atEnd.slice(1) };
}

const OPS: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constantFrom("start" as const, "end" as const),
        kind: fc.constantFrom("message" as const, "tool-call" as const),
        n: fc.nat({ max: 200 }),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ op: "run-error" as const }) },
  ),
  { maxLength: 800, size: "max" },
);

describe("history.incomplete: a persistent, indexed list", () => {
  it("D-TRUNC D-RUN-ERROR: after every event it lists what the plain list listed, in the same order, also across compactions", () => {
    fc.assert(
      fc.property(OPS, (ops) => {
        const { events, expected } = streamOf(ops);
        const { atOnce } = histories(events);
        // As JSON: one comparison of every list (deep equality of thousands of arrays is slow).
        expect(JSON.stringify(atOnce)).toBe(JSON.stringify(expected));
      }),
      { seed: 12, numRuns: 25 },
    );
  });

  it("D-RUN-ERROR: every published version keeps its own list when read later (versions share no mutable list)", () => {
    const ops: Op[] = [];
    // 300 opened, then closed: emptied slots outnumber items after 151 ENDs, and the list is compacted.
    for (let i = 0; i < 300; i++) ops.push({ op: "start", kind: "message", n: i });
    for (let i = 0; i < 300; i += 2)
      ops.push({ op: "end", kind: "message", n: i }, { op: "end", kind: "message", n: i + 1 });
    ops.push({ op: "start", kind: "tool-call", n: 1 }, { op: "run-error" });
    const { events, expected } = streamOf(ops);
    // Read only now, after every later START/END (and compaction) happened.
    expect(JSON.stringify(histories(events).atEnd.map((h) => h.incomplete))).toBe(JSON.stringify(expected));
  });

  it("D-TRUNC: a long list is built when read, and reads the same as a plain array (JSON, spread, equality)", () => {
    const events: unknown[] = [ev.runStarted()];
    for (let i = 0; i < 1000; i++) events.push(ev.toolCallStart(`tc${i}`));
    const stage = createHistoryStage();
    let state = stage.init();
    events.forEach((event, index) => (state = stage.step(state, event as AguiEvent, { index }).state));
    const history = state.history;
    const expected = Array.from({ length: 1000 }, (_, i) => ({ kind: "tool-call", id: `tc${i}`, reason: "open" }));
    expect(Object.keys(history)).toEqual(["messages", "incomplete", "issuers", "durations"]);
    expect(JSON.parse(JSON.stringify(history)).incomplete).toEqual(expected);
    expect({ ...history }.incomplete).toEqual(expected);
    expect(history.incomplete).toBe(history.incomplete);
  });
});

describe("a seed's open items (R-RUN-5)", () => {
  it("R-RUN-5 D-TRUNC D-PATHS: an item a seed lists as open (its run was abandoned, or the history saved mid-run) is truncated in every pipeline seeded with it, and no longer shown streaming", () => {
    // A run abandoned mid-reasoning: the consumer left, so no end of source marked anything.
    const abandoned = reasoningPipeline(
      concat(of(ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", "thinking")), NEVER),
      {
        producer: "P",
      },
    );
    abandoned.events$.subscribe({ error: () => {} }).unsubscribe();
    const cut = abandoned.history;
    expect(cut.incomplete).toEqual([{ kind: "message", id: "m1", reason: "open" }]);
    expect(reasoningView(cut).turns[0]!.groups[0]!.blocks[0]!.streaming).toBe(true);

    const truncated = [{ kind: "message", id: "m1", reason: "truncated" }];
    const facade = reasoningPipeline(from([ev.runStarted(), ev.runFinished()]), { producer: "P", initialHistory: cut });
    facade.events$.subscribe({ error: () => {} });
    const derived: ReasoningHistory[] = [];
    from([ev.runStarted(), ev.runFinished()])
      .pipe(deriveHistory({ producer: "P", initialHistory: cut }))
      .subscribe({ next: (h) => derived.push(h), error: () => {} });
    const middleware = reasoningMiddleware({ producer: "P", initialHistory: cut });
    for (const seeded of [facade.history, derived.at(-1)!, middleware.history!]) {
      expect(seeded.incomplete).toEqual(truncated);
      expect(reasoningView(seeded).turns[0]!.groups[0]!.blocks[0]!.streaming).toBe(false);
      // The text delivered stays, as it does in a truncated run (D-TRUNC).
      expect(seeded.messages).toEqual(cut.messages);
    }
    // Nothing else the seed lists changes: truncated and abandoned items keep their reason.
    const listed = { ...cut, incomplete: [{ kind: "message", id: "m1", reason: "abandoned" }] } as ReasoningHistory;
    expect(createHistoryStage({ initialHistory: listed }).init().history.incomplete).toEqual(listed.incomplete);
  });
});
