/**
 * The chain runner's contract (src/core/chain-runner.ts), on small stages of strings that log what
 * they see: the order of outputs and warnings, `eventIndex`, re-entrancy, failures, the end of the
 * source, publishing, `stop`, `inject` and the delta lane's bookkeeping. The facade, the fused
 * operators and `runStage` all run on it; test/pipeline/ checks that they agree (D-PATHS).
 */
import {
  ChainRunner,
  isTruncation,
  MAX_LANES,
  type ChainLane,
  type ChainLink,
  type ChainPolicy,
} from "../../src/core/chain-runner";
import { ReasoningProtocolError } from "../../src/core/errors";
import type { ReasoningWarning, Stage, StepContext } from "../../src/core/types";

/** What a step (or a finish) does with a value: its outputs and the codes of its warnings. */
interface Reaction {
  readonly out?: readonly string[];
  readonly warn?: readonly string[];
  readonly shortened?: StepContext["shortened"];
}

const warning = (code: string): ReasoningWarning => ({ code: code as ReasoningWarning["code"], message: code });

/** A stage whose state counts its steps. */
function stage(
  react: (value: string, ctx: StepContext) => Reaction,
  finish?: (ctx: StepContext) => Reaction,
): Stage<number, string, string> {
  const resultOf = (state: number, r: Reaction) => ({
    state,
    out: r.out ?? [],
    warnings: (r.warn ?? []).map(warning),
    ...(r.shortened && { shortened: r.shortened }),
  });
  return {
    name: "test",
    init: () => 0,
    step: (seen, value, ctx) => resultOf(seen + 1, react(value, ctx)),
    ...(finish && { finish: (seen: number, ctx: StepContext) => resultOf(seen, finish(ctx)) }),
  };
}

/** Passes every value on, logging it with the index it sees. */
const logging = (log: string[], name: string) =>
  stage((v, ctx) => {
    log.push(`${name}:${v}@${ctx.index}`);
    return { out: [v] };
  });

function chainOf(
  stages: readonly Stage<number, string, string>[],
  log: string[],
  policy?: ChainPolicy,
  publish: Record<number, ChainLink["publish"]> = {},
  onEmit?: (value: string) => void,
): ChainRunner {
  const links: ChainLink[] = stages.map((s, i) => ({
    stage: s,
    state: s.init(),
    warn: (w) => log.push(`warn${i}:${w.code}`),
    ...(publish[i] && { publish: publish[i] }),
  }));
  return new ChainRunner(
    links,
    (value) => {
      log.push(`out:${String(value)}`);
      onEmit?.(value as string);
    },
    policy,
  );
}

describe("ChainRunner: order", () => {
  it("D-PATHS: depth-first — each output of a link passes every later link before its next output; a link's warnings come before its outputs of the same step", () => {
    const log: string[] = [];
    const runner = chainOf(
      [
        stage((v) => ({ out: [`${v}1`, `${v}2`], warn: ["A"] })),
        stage((v) => ({ out: [`${v}b`] })),
        stage((v) => ({ out: [v], warn: [`C${v}`] })),
      ],
      log,
    );
    runner.next("x");
    expect(log).toEqual(["warn0:A", "warn2:Cx1b", "out:x1b", "warn2:Cx2b", "out:x2b"]);
  });

  it("D-PATHS: a step with no output ends that value's way; a warning without output is still delivered", () => {
    const log: string[] = [];
    const runner = chainOf(
      [stage((v) => (v === "drop" ? {} : v === "quiet" ? { warn: ["Q"] } : { out: [v] })), logging(log, "B")],
      log,
    );
    runner.next("drop");
    runner.next("quiet");
    runner.next("keep");
    expect(log).toEqual(["warn0:Q", "B:keep@2", "out:keep"]);
    expect(runner.states).toEqual([3, 1]);
  });
});

describe("ChainRunner: eventIndex (D-EVENT-INDEX)", () => {
  it("D-EVENT-INDEX: every link sees the source event's index, synthesized events their trigger's; finish sees the count", () => {
    const log: string[] = [];
    const runner = chainOf(
      [
        stage(
          (v) => ({ out: [v, `${v}+`] }),
          () => ({ out: ["end"] }),
        ),
        logging(log, "B"),
      ],
      log,
    );
    expect(runner.count).toBe(0);
    runner.next("a");
    runner.next("b");
    expect(runner.count).toBe(2);
    runner.complete();
    expect(log.filter((l) => l.startsWith("B:"))).toEqual(["B:a@0", "B:a+@0", "B:b@1", "B:b+@1", "B:end@2"]);
  });

  it("D-EVENT-INDEX: firstIndex continues a resumed count", () => {
    const log: string[] = [];
    const runner = chainOf([logging(log, "A")], log, { firstIndex: 7 });
    expect(runner.count).toBe(7);
    runner.next("a");
    expect(log).toEqual(["A:a@7", "out:a"]);
    expect(runner.count).toBe(8);
  });
});

describe("ChainRunner: shortened lists (D-EVENT-INDEX)", () => {
  it("D-EVENT-INDEX: a step's `shortened` is the later links' ctx.shortened for that step's outputs only: never an earlier link's, another output's of an earlier link, a nested source event's or a nested end's", () => {
    const kept = new Map([["/list", [1, 2]]]);
    const log: string[] = [];
    const seen = (name: string) =>
      stage(
        (v, ctx) => {
          log.push(`${name}:${v}:${ctx.shortened === kept ? "kept" : String(ctx.shortened)}`);
          return { out: v === "s" ? [v, "u"] : [v] };
        },
        (ctx) => {
          log.push(`${name}:end:${String(ctx.shortened)}`);
          return {};
        },
      );
    const shortens = stage((v) =>
      v === "s" ? { out: ["s1", "s2", "s3"], warn: ["W"], shortened: kept } : { out: [v] },
    );
    const runner: ChainRunner = chainOf([seen("A"), shortens, seen("B")], log, {}, {}, (value) => {
      if (value === "s1") runner.next("n");
      if (value === "s2") runner.complete();
    });
    runner.next("s");
    expect(log.filter((l) => !l.startsWith("warn"))).toEqual([
      "A:s:undefined",
      "B:s1:kept",
      "out:s1",
      "A:n:undefined",
      "B:n:undefined",
      "out:n",
      // The rest of the outer event has its lists again.
      "B:s2:kept",
      "out:s2",
      "A:end:undefined",
      "B:end:undefined",
      "B:s3:kept",
      "out:s3",
      // A's second output: `shortens` shortened nothing in it.
      "B:u:undefined",
      "out:u",
    ]);
  });

  it("D-EVENT-INDEX: a later link that warns (or fans out) without shortening anything leaves the earlier link's lists to the links after it", () => {
    const kept = new Map([["/list", [1, 2]]]);
    const log: string[] = [];
    const shortens = stage((v) => ({ out: [v], warn: ["W"], shortened: kept }));
    const warns = stage((v) => ({ out: [v, `${v}'`], warn: ["X"] }));
    const sees = stage((v, ctx) => {
      log.push(`${v}:${ctx.shortened === kept ? "kept" : String(ctx.shortened)}`);
      return { out: [v] };
    });
    chainOf([shortens, warns, sees], log).next("e");
    expect(log.filter((l) => !l.startsWith("warn") && !l.startsWith("out"))).toEqual(["e:kept", "e':kept"]);
  });
});

describe("ChainRunner: re-entrancy", () => {
  it("R-STREAM-4 D-EVENT-INDEX: a nested source event runs through the whole chain before the rest of the outer one, with its own index; busy holds until the outermost is done", () => {
    const log: string[] = [];
    const busy: boolean[] = [];
    const runner: ChainRunner = chainOf(
      [stage((v) => ({ out: [`${v}1`, `${v}2`] })), logging(log, "B")],
      log,
      {},
      {},
      (value) => {
        busy.push(runner.busy);
        if (value === "x1") {
          runner.next("y");
          busy.push(runner.busy);
        }
      },
    );
    expect(runner.busy).toBe(false);
    runner.next("x");
    expect(runner.busy).toBe(false);
    expect(log).toEqual([
      "B:x1@0",
      "out:x1",
      "B:y1@1",
      "out:y1",
      "B:y2@1",
      "out:y2",
      // The rest of the outer event keeps its index.
      "B:x2@0",
      "out:x2",
    ]);
    expect(busy).toEqual([true, true, true, true, true]);
    expect(runner.count).toBe(2);
    // The next source event gets the next index.
    runner.next("z");
    expect(log.slice(-2)).toEqual(["B:z2@2", "out:z2"]);
  });
});

describe("ChainRunner: failures", () => {
  it("D-PATHS: a step's error propagates from next() after what was emitted; the links publish what the failing event changed, then the hook runs, outside the event", () => {
    const log: string[] = [];
    const failure = new Error("step failed");
    const runner: ChainRunner = chainOf(
      [
        stage((v) => ({ out: [`${v}1`, `${v}2`] })),
        stage((v) => {
          if (v === "bad2") throw failure;
          return { out: [v] };
        }),
      ],
      log,
      { afterEvent: () => log.push(`after:${String(runner.busy)}`) },
      { 0: (steps) => [`p${String(steps)}`] },
    );
    runner.next("ok");
    expect(() => runner.next("bad")).toThrow(failure);
    expect(runner.busy).toBe(false);
    expect(log).toEqual(["out:ok1", "out:ok2", "out:p1", "after:false", "out:bad1", "out:p2", "after:false"]);
    // The runner goes on: the next event has the next index.
    const seen: number[] = [];
    const next = chainOf(
      [
        stage((v, ctx) => {
          seen.push(ctx.index);
          if (v === "bad") throw failure;
          return { out: [v] };
        }),
      ],
      [],
    );
    next.next("a");
    expect(() => next.next("bad")).toThrow(failure);
    next.next("b");
    expect(seen).toEqual([0, 1, 2]);
  });

  it("D-PATHS: a source event fed from inside the publication of a failing event is not taken (the failure is the verdict); the runner takes the next one after it", () => {
    const log: string[] = [];
    const failure = new Error("step failed");
    const runner: ChainRunner = chainOf(
      [
        stage((v) => {
          log.push(`step:${v}`);
          if (v === "bad") throw failure;
          return { out: [v] };
        }),
      ],
      log,
      {
        afterEvent: () => {
          if (log.at(-1) === "step:bad") runner.next("fed");
        },
      },
    );
    expect(() => runner.next("bad")).toThrow(failure);
    runner.next("later");
    expect(log).toEqual(["step:bad", "step:later", "out:later"]);
  });

  it("D-TRUNC D-PATHS: at the end of the source every link finishes in order, its outputs flow downstream; after one throws the later links still finish; then they publish and the first error is thrown", () => {
    const log: string[] = [];
    const first = new Error("first");
    const later = new Error("later");
    const runner: ChainRunner = chainOf(
      [
        stage(
          (v) => ({ out: [v] }),
          () => {
            log.push("finish0");
            throw first;
          },
        ),
        stage(
          (v) => ({ out: [v] }),
          (ctx) => {
            log.push(`finish1@${ctx.index}`);
            return { out: ["end1"], warn: ["W1"] };
          },
        ),
        // No finish: skipped.
        logging(log, "C"),
        stage(
          (v) => ({ out: [v] }),
          () => {
            log.push("finish3");
            throw later;
          },
        ),
      ],
      log,
      { afterEvent: () => log.push(`after:${String(runner.busy)}`) },
      { 1: () => ["p"] },
    );
    runner.next("a");
    log.length = 0;
    expect(() => runner.complete()).toThrow(first);
    expect(log).toEqual([
      "finish0",
      "finish1@1",
      "warn1:W1",
      "C:end1@1",
      "out:end1",
      "finish3",
      "C:p@1",
      "out:p",
      "after:false",
    ]);
    expect(runner.busy).toBe(false);
  });

  it("D-TRUNC: an upstream error given to complete() is thrown, before any error of a finish; without errors complete() returns", () => {
    const upstream = new Error("upstream");
    const throwing = chainOf(
      [
        stage(
          (v) => ({ out: [v] }),
          () => {
            throw new Error("finish");
          },
        ),
      ],
      [],
    );
    expect(() => throwing.complete({ error: upstream })).toThrow(upstream);
    const log: string[] = [];
    const clean = chainOf(
      [
        stage(
          (v) => ({ out: [v] }),
          () => ({ out: ["end"] }),
        ),
      ],
      log,
    );
    expect(() => clean.complete({ error: upstream })).toThrow(upstream);
    expect(log).toEqual(["out:end"]);
    expect(() => chainOf([logging([], "A")], []).complete()).not.toThrow();
  });

  it("D-TRUNC: isTruncation tells a RUN_TRUNCATED protocol error from anything else", () => {
    const error = (code: "RUN_TRUNCATED" | "ORPHAN_END") =>
      new ReasoningProtocolError({ code, rule: "D-TRUNC", eventIndex: 1, eventType: "<end of stream>", detail: "x" });
    expect(isTruncation(error("RUN_TRUNCATED"))).toBe(true);
    expect(isTruncation(error("ORPHAN_END"))).toBe(false);
    expect(isTruncation(Object.assign(new Error("x"), { code: "RUN_TRUNCATED" }))).toBe(false);
    expect(isTruncation(undefined)).toBe(false);
  });
});

describe("ChainRunner: publishing, stop and inject", () => {
  it("D-PATHS: after each source event (and the end), each publisher's values pass only the links after it; afterEvent runs after them, outside the event", () => {
    const log: string[] = [];
    const seen = (name: string) =>
      stage((v) => {
        log.push(`${name}:${v}`);
        return { out: [v] };
      });
    const runner: ChainRunner = chainOf(
      [seen("A"), seen("B"), seen("C")],
      log,
      { afterEvent: () => log.push(`after:${String(runner.busy)}`) },
      { 0: (steps) => [`p${String(steps)}`], 1: () => ["q1", "q2"] },
    );
    runner.next("a");
    expect(log).toEqual([
      "A:a",
      "B:a",
      "C:a",
      "out:a",
      "B:p1",
      "C:p1",
      "out:p1",
      "C:q1",
      "out:q1",
      "C:q2",
      "out:q2",
      "after:false",
    ]);
    log.length = 0;
    runner.complete();
    expect(log).toEqual(["B:p1", "C:p1", "out:p1", "C:q1", "out:q1", "C:q2", "out:q2", "after:false"]);
  });

  it("R-TRANS-1: stop() — the rest of the event in progress emits nothing more, and nothing more is published", () => {
    const log: string[] = [];
    const runner: ChainRunner = chainOf(
      [stage((v) => ({ out: [`${v}1`, `${v}2`, `${v}3`] }))],
      log,
      {},
      { 0: () => ["p1", "p2"] },
      (value) => {
        if (value === "a1") runner.stop();
      },
    );
    runner.next("a");
    expect(log).toEqual(["out:a1"]);

    // Stopped while publishing: the rest of the publication and the other publishers are skipped.
    const published: string[] = [];
    const stopping: ChainRunner = chainOf(
      [logging([], "A"), logging([], "B")],
      published,
      {},
      { 0: () => ["p1", "p2"], 1: () => ["q"] },
      (value) => {
        if (value === "p1") stopping.stop();
      },
    );
    stopping.next("a");
    expect(published).toEqual(["out:a", "out:p1"]);

    // Stopped during the end: a finish's later outputs are not emitted.
    const ended: string[] = [];
    const ending: ChainRunner = chainOf(
      [
        stage(
          (v) => ({ out: [v] }),
          () => ({ out: ["e1", "e2"] }),
        ),
      ],
      ended,
      {},
      {},
      (value) => {
        if (value === "e1") ending.stop();
      },
    );
    ending.complete();
    expect(ended).toEqual(["out:e1"]);
  });

  it("D-PATHS: the end of the source is an event in progress: busy while the links finish and emit, not after", () => {
    const busy: boolean[] = [];
    const runner: ChainRunner = chainOf(
      [
        stage(
          (v) => ({ out: [v] }),
          () => ({ out: ["end"] }),
        ),
      ],
      [],
      {},
      {},
      () => busy.push(runner.busy),
    );
    runner.complete();
    expect(busy).toEqual([true]);
    expect(runner.busy).toBe(false);
  });

  it("D-PATHS: inject feeds a value into links from…n outside any source event (start values): earlier links do not see it, the count does not move", () => {
    const log: string[] = [];
    const runner = chainOf([logging(log, "A"), logging(log, "B"), logging(log, "C")], log);
    runner.inject(1, "start");
    runner.inject(3, "last");
    expect(log).toEqual(["B:start@0", "C:start@0", "out:start", "out:last"]);
    expect(runner.count).toBe(0);
  });
});

describe("ChainRunner: the delta lane's bookkeeping", () => {
  /**
   * A lane per event prefix: `<letter>:<delta>` (item <letter>), and `M:<delta>` (item m as well,
   * e.g. its tagged deltas). `take` counts in the first link's state and emits `lane<prefix>:<delta>`;
   * a deferring lane (D-PACE) holds what it took until `settle`, which counts it then.
   */
  function laneFor(prefix: string, defers: boolean): ChainLane & { readonly item: string } {
    const item = prefix.toLowerCase();
    let held = 0;
    const lane: ChainLane & { readonly item: string } = {
      item,
      deltaOf: (event) => (typeof event === "string" && event.startsWith(`${prefix}:`) ? event.slice(2) : undefined),
      take: (states, _event, delta, emit) => {
        if (defers) held += 100;
        else states[0] = (states[0] as number) + 100;
        emit(`lane${prefix}:${delta}`);
      },
      sameItem: (other) => (other as ChainLane & { item: string }).item === item,
    };
    if (!defers) return lane;
    return Object.assign(Object.defineProperty(lane, "unsettled", { get: () => held > 0 }), {
      settle: (states: unknown[]) => {
        states[0] = (states[0] as number) + held;
        held = 0;
      },
    });
  }

  function laneChain(log: string[], onEmit?: (value: string) => void, defers = false): ChainRunner {
    return chainOf(
      [logging(log, "A")],
      log,
      {
        lane: (_states, event) => {
          log.push(`arm:${String(event)}`);
          const prefix = String(event).split(":")[0]!;
          return /^([a-w]|M)$/.test(prefix) ? laneFor(prefix, defers) : undefined;
        },
        afterEvent: () => log.push("after"),
      },
      { 0: (state) => [`s${String(state)}`] },
      onEmit,
    );
  }

  const lanesOnly = (log: readonly string[]) => log.filter((l) => !l.startsWith("out:s") && l !== "after");

  it("R-STREAM-4: a source event no lane takes is offered to arm one on the states as they are; a delta the lane takes skips the steps, counts as a source event and is published", () => {
    const log: string[] = [];
    const runner = laneChain(log);
    runner.next("m:1");
    runner.next("m:2");
    expect(log).toEqual(["arm:m:1", "out:lanem:1", "out:s100", "after", "out:lanem:2", "out:s200", "after"]);
    expect(runner.count).toBe(2);
    expect(runner.states).toEqual([200]);
    // Any other event takes the steps and drops the lane: the next delta arms one anew.
    log.length = 0;
    runner.next("x");
    runner.next("m:3");
    expect(log).toEqual([
      "arm:x",
      "A:x@2",
      "out:x",
      "out:s201",
      "after",
      "arm:m:3",
      "out:lanem:3",
      "out:s301",
      "after",
    ]);
    expect(runner.count).toBe(4);
  });

  it("R-STREAM-4 R-TOOL-2: items interleaved — each item's first delta arms a lane of its own, kept beside the others; an event no lane takes drops them all", () => {
    const log: string[] = [];
    const runner = laneChain(log);
    const items = ["m", "n", "o"];
    for (let round = 1; round <= 3; round++) for (const item of items) runner.next(`${item}:${round}`);
    // Armed once per item; then every delta takes its item's lane, in any order.
    runner.next("o:4");
    runner.next("m:4");
    expect(lanesOnly(log)).toEqual([
      "arm:m:1",
      "out:lanem:1",
      "arm:n:1",
      "out:lanen:1",
      "arm:o:1",
      "out:laneo:1",
      ...[2, 3].flatMap((round) => items.map((item) => `out:lane${item}:${round}`)),
      "out:laneo:4",
      "out:lanem:4",
    ]);
    expect(runner.count).toBe(11);
    log.length = 0;
    runner.next("x");
    runner.next("n:5");
    runner.next("m:5");
    expect(lanesOnly(log)).toEqual(["arm:x", "A:x@11", "out:x", "arm:n:5", "out:lanen:5", "arm:m:5", "out:lanem:5"]);
  });

  it(`R-STREAM-4: at most MAX_LANES (${MAX_LANES}) lanes are kept: a further item's lane drops the oldest armed`, () => {
    const log: string[] = [];
    const runner = laneChain(log);
    const items = Array.from({ length: MAX_LANES + 1 }, (_, i) => String.fromCharCode(97 + i));
    const kept = items.slice(0, MAX_LANES);
    for (let round = 1; round <= 2; round++) for (const item of kept) runner.next(`${item}:${round}`);
    expect(log.filter((l) => l.startsWith("arm:"))).toEqual(kept.map((item) => `arm:${item}:1`));
    log.length = 0;
    const [oldest, second] = kept;
    runner.next(`${items[MAX_LANES]}:1`);
    runner.next(`${second}:3`);
    runner.next(`${oldest}:3`);
    expect(lanesOnly(log)).toEqual([
      `arm:${items[MAX_LANES]}:1`,
      `out:lane${items[MAX_LANES]}:1`,
      `out:lane${second}:3`,
      `arm:${oldest}:3`,
      `out:lane${oldest}:3`,
    ]);
    expect(runner.states).toEqual([100 * (2 * MAX_LANES + 3)]);
  });

  it("R-SUB-2: two lanes of one item (another type or tag) are never both kept: the first is dropped", () => {
    const log: string[] = [];
    const runner = laneChain(log);
    runner.next("m:1");
    runner.next("n:1");
    runner.next("M:1");
    log.length = 0;
    // m's lane was not kept (M's replaced it), n's was: m's delta arms a lane anew, which drops M's.
    runner.next("m:2");
    runner.next("n:2");
    runner.next("M:2");
    expect(lanesOnly(log)).toEqual(["arm:m:2", "out:lanem:2", "out:lanen:2", "arm:M:2", "out:laneM:2"]);
  });

  it("D-PACE: deferring lanes of several items each hold what they took until the runner settles them: before the steps, on settle(), at the end", () => {
    const log: string[] = [];
    const runner = laneChain(log, undefined, true);
    ["m:1", "n:1", "o:1", "m:2"].forEach((e) => runner.next(e));
    // Arming reads the states whole: n's and o's settled the lanes kept then (m:1, then n:1); o:1 and m:2 are held.
    expect(runner.states).toEqual([200]);
    expect(runner.unsettled).toBe(true);
    runner.settle();
    expect(runner.states).toEqual([400]);
    expect(runner.unsettled).toBe(false);
    // Only one lane holds text: unsettled still, and all of it lands before the steps see the states.
    runner.next("o:2");
    expect(runner.unsettled).toBe(true);
    runner.next("n:2");
    log.length = 0;
    runner.next("x");
    expect(log).toContain("A:x@6");
    expect(runner.states).toEqual([601]);
    ["m:3", "n:3"].forEach((e) => runner.next(e));
    runner.complete();
    expect(runner.states).toEqual([801]);
    expect(runner.unsettled).toBe(false);
  });

  it("R-STREAM-4: a delta a lane would take, arriving re-entrantly inside an event, takes the steps, and no lane is armed inside an event", () => {
    const log: string[] = [];
    let nested = false;
    const runner: ChainRunner = laneChain(log, (value) => {
      if (value === "lanem:2" && !nested) {
        nested = true;
        runner.next("m:3");
      }
    });
    runner.next("m:1");
    runner.next("m:2");
    runner.next("m:4");
    const steps = log.filter((l) => l.startsWith("A:") || l.startsWith("arm:") || l.startsWith("out:lane"));
    expect(steps).toEqual(["arm:m:1", "out:lanem:1", "out:lanem:2", "A:m:3@2", "arm:m:4", "out:lanem:4"]);
    expect(runner.count).toBe(4);
  });
});
