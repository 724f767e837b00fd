import { of, throwError, concat } from "rxjs";
import { NONE, result, type Stage } from "../../src/core/types";
import { projectedStageOperator } from "../../src/core/projected-stage-operator";
import { collectWarnings, createTestScheduler } from "../../src/testing/marbles";

/** A counting stage: state = how many values it saw; warns on "w"; finish adds 100. */
function counter(): Stage<{ n: number }, string, string> & { inits: number } {
  const stage = {
    name: "counter",
    inits: 0,
    init() {
      stage.inits++;
      return { n: 0 };
    },
    step(state: { n: number }, value: string) {
      const warnings =
        value === "w"
          ? [
              { code: "THINKING_UPCAST" as const, message: "w seen" },
              { code: "UNKNOWN_EVENT_TYPE" as const, message: "x" },
            ]
          : NONE;
      return result({ n: state.n + 1 }, [value.toUpperCase()], warnings);
    },
    finish(state: { n: number }) {
      return result({ n: state.n + 100 }, NONE);
    },
  };
  return stage;
}

describe("projectedStageOperator (projection hook for stageOperator)", () => {
  it("D-TRUNC: emits start on subscribe, a projection per step and one after finish, from one state per subscription", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const stage = counter();
      const source = cold("-a-b-|");
      const counts = source.pipe(
        projectedStageOperator(stage, {
          start: (s) => [s.n],
          project: (before, after) => (after.n === before.n ? NONE : [after.n]),
        }),
      );
      expectObservable(counts).toBe("01-2-(3|)", { 0: 0, 1: 1, 2: 2, 3: 102 });
      expectObservable(counts).toBe("01-2-(3|)", { 0: 0, 1: 1, 2: 2, 3: 102 });
    });
  });

  it("D-WARN: keepWarning selects which of the stage's warnings this view delivers", () => {
    const w = collectWarnings();
    const out: string[] = [];
    of("a", "w")
      .pipe(
        projectedStageOperator(
          counter(),
          { project: (_b, _a, o) => o, keepWarning: (x) => x.code === "THINKING_UPCAST" },
          { onWarning: w.onWarning },
        ),
      )
      .subscribe((v) => out.push(v));
    expect(out).toEqual(["A", "W"]);
    expect(w.codes()).toEqual(["THINKING_UPCAST"]);
  });

  it("R-RUN-13: a source error passes through after what was emitted; init runs once per subscription", () => {
    const stage = counter();
    const seen: unknown[] = [];
    concat(
      of("a"),
      throwError(() => new Error("boom")),
    )
      .pipe(projectedStageOperator(stage, { start: () => ["start"], project: (_b, _a, o) => o }))
      .subscribe({ next: (v) => seen.push(v), error: (e: unknown) => seen.push((e as Error).message) });
    expect(seen).toEqual(["start", "A", "boom"]);
    expect(stage.inits).toBe(1);
  });
});
