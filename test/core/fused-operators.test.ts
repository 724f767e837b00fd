/**
 * A fused chain of operators (src/core/fused-operators.ts) and the adapters on it (stageOperator,
 * runStage), on small stages of strings: start values, the source's end (completion, an upstream
 * truncation, another error), a consumer leaving, warnings per operator and the lane planner.
 */
import { defer, map, of, Subject, take, throwError, type Observable } from "rxjs";
import { ReasoningProtocolError } from "../../src/core/errors";
import type { ChainLane } from "../../src/core/chain-runner";
import {
  FusedObservable,
  fusedOperator,
  stageLink,
  type FusedLink,
  type LanePlanner,
} from "../../src/core/fused-operators";
import { runStage, stageOperator } from "../../src/core/stage-operator";
import type { ReasoningWarning, Stage } from "../../src/core/types";

interface Reaction {
  readonly out?: readonly string[];
  readonly warn?: readonly string[];
}

const warning = (code: string): ReasoningWarning => ({ code: code as ReasoningWarning["code"], message: code });

function stage(react: (value: string) => Reaction, finish?: () => Reaction): Stage<number, string, string> {
  const resultOf = (state: number, r: Reaction) => ({ state, out: r.out ?? [], warnings: (r.warn ?? []).map(warning) });
  return {
    name: "test",
    init: () => 0,
    step: (seen, value) => resultOf(seen + 1, react(value)),
    ...(finish && { finish: (seen: number) => resultOf(seen, finish()) }),
  };
}

const tagging = (tag: string, finish?: () => Reaction) => stage((v) => ({ out: [`${v}${tag}`] }), finish);

/** A link with start values and an optional publication after each source event. */
function link(
  s: Stage<number, string, string>,
  start: readonly string[] = [],
  publish?: (state: unknown) => readonly unknown[],
  planner?: LanePlanner,
): FusedLink {
  return {
    open: () => ({ stage: s, state: s.init(), start, ...(publish && { publish }) }),
    options: { onWarning: () => {} },
    ...(planner && { planner }),
  };
}

interface Seen {
  readonly values: unknown[];
  end?: "complete" | { error: unknown };
}

function observe(source: Observable<unknown>): Seen {
  const seen: Seen = { values: [] };
  source.subscribe({
    next: (v) => seen.values.push(v),
    error: (error: unknown) => (seen.end = { error }),
    complete: () => (seen.end = "complete"),
  });
  return seen;
}

const truncation = () =>
  new ReasoningProtocolError({
    code: "RUN_TRUNCATED",
    rule: "D-TRUNC",
    eventIndex: 2,
    eventType: "<end of stream>",
    detail: "The source completed while a run was open.",
  });

describe("fused operators: one subscriber for the chain", () => {
  it("R-PROC-12: package operators applied in a row make one observable of the chain; a foreign operator starts a new one", () => {
    const a = fusedOperator<string, string>(link(tagging("a")));
    const b = fusedOperator<string, string>(link(tagging("b")));
    const fused = of("x").pipe(a, b);
    expect(fused).toBeInstanceOf(FusedObservable);
    expect((fused as FusedObservable<unknown>).links).toHaveLength(2);
    const apart = of("x").pipe(
      a,
      map((v) => v),
      b,
    );
    expect((apart as FusedObservable<unknown>).links).toHaveLength(1);
    expect(observe(fused)).toEqual({ values: ["xab"], end: "complete" });
    expect(observe(apart)).toEqual({ values: ["xab"], end: "complete" });
  });

  it("R-PROC-12: start values come before the source is subscribed, the last operator's first (each subscribes its source after emitting them)", () => {
    const log: string[] = [];
    const source = defer(() => {
      log.push("subscribed");
      return of("x");
    });
    const chained = source.pipe(
      fusedOperator<string, string>(link(tagging("a"), ["a0"])),
      fusedOperator<string, string>(link(tagging("b"), ["b0", "b1"])),
    );
    chained.subscribe({ next: (v) => log.push(v), error: (e: unknown) => log.push(`error:${String(e)}`) });
    expect(log).toEqual(["b0", "b1", "a0b", "subscribed", "xab"]);
  });

  it("R-PROC-12: a start value that fails a later operator errors the chain without subscribing the source; a consumer leaving during the start values does too", () => {
    let subscribed = 0;
    const source = defer(() => {
      subscribed++;
      return of("x");
    });
    const failure = new Error("no start");
    const failing = source.pipe(
      fusedOperator<string, string>(link(tagging("a"), ["bad"])),
      fusedOperator<string, string>(
        link(
          stage((v) => {
            if (v === "bad") throw failure;
            return { out: [v] };
          }),
        ),
      ),
    );
    expect(observe(failing)).toEqual({ values: [], end: { error: failure } });
    const leaving = source.pipe(fusedOperator<string, string>(link(tagging("a"), ["s0", "s1"])), take(1));
    expect(observe(leaving)).toEqual({ values: ["s0"], end: "complete" });
    expect(subscribed).toBe(0);
  });

  it("R-TRANS-1: a consumer leaving in the middle of a source event stops the chain: the rest of that event is not emitted", () => {
    const source = new Subject<string>();
    const seen = observe(
      source.pipe(fusedOperator<string, string>(link(stage((v) => ({ out: [`${v}1`, `${v}2`] })))), take(1)),
    );
    source.next("x");
    expect(seen).toEqual({ values: ["x1"], end: "complete" });
    expect(source.observed).toBe(false);
  });

  it("D-TRUNC: at completion every operator finishes and its outputs are emitted before completion; a failing finish errors instead", () => {
    const ok = of("x").pipe(
      fusedOperator<string, string>(link(tagging("a", () => ({ out: ["endA"] })))),
      fusedOperator<string, string>(link(tagging("b"))),
    );
    expect(observe(ok)).toEqual({ values: ["xab", "endAb"], end: "complete" });
    const failure = new Error("finish failed");
    const failing = of("x").pipe(
      fusedOperator<string, string>(
        link(
          tagging("a", () => {
            throw failure;
          }),
        ),
      ),
    );
    expect(observe(failing)).toEqual({ values: ["xa"], end: { error: failure } });
  });

  it("D-PATHS D-TRUNC: an upstream RUN_TRUNCATED (a verifyDiscipline before a foreign operator) finishes the links as at the end of a truncated run, then errors with it; another error fails at once", () => {
    const upstream = truncation();
    const finishing = (source: Observable<string>) =>
      source.pipe(fusedOperator<string, string>(link(tagging("a", () => ({ out: ["endA"] })))));
    expect(observe(finishing(throwError(() => upstream)))).toEqual({ values: ["endA"], end: { error: upstream } });
    const other = new Error("network");
    expect(observe(finishing(throwError(() => other)))).toEqual({ values: [], end: { error: other } });
    // A finish failing after an upstream truncation: the upstream's error is the one reported.
    const failingFinish = throwError(() => upstream).pipe(
      fusedOperator<string, string>(
        link(
          tagging("a", () => {
            throw new Error("finish");
          }),
        ),
      ),
    );
    expect(observe(failingFinish)).toEqual({ values: [], end: { error: upstream } });
  });

  it("D-PATHS: a step's error errors the chain after what it emitted; later source values are ignored", () => {
    const source = new Subject<string>();
    const failure = new Error("step failed");
    const seen = observe(
      source.pipe(
        fusedOperator<string, string>(
          link(
            stage((v) => {
              if (v === "bad") throw failure;
              return { out: [v] };
            }),
          ),
        ),
      ),
    );
    source.next("a");
    source.next("bad");
    source.next("c");
    expect(seen).toEqual({ values: ["a"], end: { error: failure } });
  });

  it("D-PATHS: an operator's publication follows each source event, one per source event however many events the chain synthesized", () => {
    const chained = of("x", "y").pipe(
      fusedOperator<string, string>(link(stage((v) => ({ out: [`${v}1`, `${v}2`] })))),
      fusedOperator<string, string>(
        link(
          stage(() => ({})),
          [],
          (steps) => [`history after ${String(steps)} steps`],
        ),
      ),
    );
    expect(observe(chained).values).toEqual([
      "history after 2 steps",
      "history after 4 steps",
      "history after 4 steps",
    ]);
  });

  it("R-PROC-12: the last operator's planner is asked once per subscription, with every link of the chain", () => {
    const asked: number[] = [];
    const planner: LanePlanner = {
      planFor: (links) => {
        asked.push(links.length);
        return undefined;
      },
    };
    const chained = of("x").pipe(
      fusedOperator<string, string>(link(tagging("a"))),
      fusedOperator<string, string>(link(tagging("b"), [], undefined, planner)),
    );
    observe(chained);
    observe(chained);
    expect(asked).toEqual([2, 2]);
  });
});

describe("fused operators: the lane and leaving", () => {
  it("R-STREAM-4: the lane the last link's planner arms is the chain's: a delta it accepts skips the steps", () => {
    const steps: string[] = [];
    const lane: ChainLane = {
      deltaOf: (event) => (typeof event === "string" && event.startsWith("m:") ? event.slice(2) : undefined),
      take: (_states, _event, delta, emit) => emit(`lane:${delta}`),
      sameItem: () => true,
    };
    const planner: LanePlanner = { planFor: () => (_states, event) => (event === "m:1" ? lane : undefined) };
    const chained = of("m:1", "m:2", "x").pipe(
      fusedOperator<string, string>({
        ...stageLink(
          stage((v) => {
            steps.push(v);
            return { out: [v] };
          }),
          undefined,
        ),
        planner,
      }),
    );
    // m:1 arms the lane (on the states as they are) and is its first delta; m:2 takes the kept lane.
    expect(observe(chained)).toEqual({ values: ["lane:1", "lane:2", "x"], end: "complete" });
    expect(steps).toEqual(["x"]);
  });

  it("R-TRANS-1: a consumer leaving in the middle of a source event stops the later operators too: nothing more is stepped or warned", () => {
    const warned: string[] = [];
    const source = new Subject<string>();
    const chained = source.pipe(
      fusedOperator<string, string>(link(stage((v) => ({ out: [`${v}1`, `${v}2`] })))),
      stageOperator(
        stage((v) => ({ out: [v], warn: [`W${v}`] })),
        { onWarning: (w) => warned.push(w.code) },
      ),
      take(1),
    );
    const seen = observe(chained);
    source.next("x");
    expect(seen).toEqual({ values: ["x1"], end: "complete" });
    expect(warned).toEqual(["Wx1"]);
  });
});

describe("stageOperator and runStage", () => {
  it("D-WARN: stageOperator delivers a step's warnings to its own onWarning before the step's outputs; adjacent ones fuse", () => {
    const log: string[] = [];
    const warnEach = stageOperator(
      stage((v) => ({ out: [v], warn: [`W${v}`] })),
      {
        onWarning: (w) => log.push(`warn:${w.code}`),
      },
    );
    const fused = of("x").pipe(warnEach, stageOperator(tagging("b")));
    expect((fused as FusedObservable<unknown>).links).toHaveLength(2);
    fused.subscribe({
      next: (v) => log.push(`out:${v}`),
      error: (e: unknown) => log.push(`error:${String(e)}`),
    });
    expect(log).toEqual(["warn:Wx", "out:xb"]);
  });

  it("D-PATHS: runStage collects the outputs, the warnings and the state; an error stops it with what came before", () => {
    const failure = new Error("step failed");
    const s = stage(
      (v) => {
        if (v === "bad") throw failure;
        return { out: [v, v], warn: [`W${v}`] };
      },
      () => ({ out: ["end"] }),
    );
    expect(runStage(s, ["a", "b"])).toEqual({
      out: ["a", "a", "b", "b", "end"],
      warnings: [warning("Wa"), warning("Wb")],
      state: 2,
    });
    const failed = runStage(s, ["a", "bad", "c"]);
    expect(failed).toEqual({ out: ["a", "a"], warnings: [warning("Wa")], state: 1, error: failure });
    expect(Object.keys(runStage(s, [])).sort()).toEqual(["out", "state", "warnings"]);
  });
});
