/**
 * The kit's marble helpers depend on no test framework: `createTestScheduler()` compares frames with
 * the kit's own `toEqual`-like matching unless given the runner's assertion, and `protocolErrorWith` /
 * `warningWith` are asymmetric matchers of their own. Proven with the global `expect` removed, with
 * node's `assert.deepStrictEqual`, and with a spy.
 */
import assert from "node:assert";
import { map } from "rxjs";
import { reasoningPipeline, ReasoningProtocolError } from "../../src";
import { assertDeepMatch, deepMatch } from "../../src/testing/deep-match";
import * as testing from "../../src/testing";
import { alphabet, createTestScheduler, expectPipeline, protocolErrorWith, warningWith } from "../../src/testing";

/** Runs `body` with no global `expect` (as under node:test, or vitest without globals); returns what it threw. */
function withoutGlobalExpect(body: () => void): unknown {
  const g = globalThis as { expect?: unknown };
  const saved = g.expect;
  delete g.expect;
  try {
    body();
    return undefined;
  } catch (e) {
    return e;
  } finally {
    g.expect = saved;
  }
}

const options = () => ({ producer: "p", onWarning: () => {} });

describe("createTestScheduler: no hidden dependency on jest", () => {
  it("R-REASON-9: without a global expect, a diagram with protocolErrorWith and warningWith passes, and a wrong one fails", () => {
    const passing = withoutGlobalExpect(() =>
      createTestScheduler().run((helpers) => {
        const p = reasoningPipeline(helpers.cold("R ? < c > C |", alphabet), options());
        expectPipeline(helpers, p).toBe(
          { events: "R - < c > #", warnings: "- 0 - - - |" },
          { ...alphabet, 0: warningWith("UNKNOWN_EVENT_TYPE", { eventIndex: 1 }) },
          protocolErrorWith("ORPHAN_CONTENT", { eventIndex: 5, rule: "R-REASON-9" }),
        );
      }),
    );
    expect(passing).toBeUndefined();

    const wrongError = withoutGlobalExpect(() =>
      createTestScheduler().run((helpers) => {
        const p = reasoningPipeline(helpers.cold("R < c > C |", alphabet), options());
        expectPipeline(helpers, p).toBe({ events: "R < c > #" }, alphabet, protocolErrorWith("ORPHAN_END"));
      }),
    );
    expect(wrongError).toMatchObject({ name: "AssertionError", code: "ERR_ASSERTION" });
    expect((wrongError as Error).message).toContain('protocolErrorWith("ORPHAN_END"');

    const wrongValue = withoutGlobalExpect(() =>
      createTestScheduler().run(({ cold, expectObservable }) => {
        expectObservable(cold("a|").pipe(map(() => ({ n: 1 })))).toBe("a|", { a: { n: 2 } });
      }),
    );
    expect(wrongValue).toMatchObject({
      name: "AssertionError",
      actual: expect.any(Array),
      expected: expect.any(Array),
    });
  });

  it("takes the runner's assertion: node's assert.deepStrictEqual, or any function of (actual, expected)", () => {
    createTestScheduler(assert.deepStrictEqual).run(({ cold, expectObservable }) => {
      expectObservable(cold("a-b|", { a: 1, b: 2 }).pipe(map((n) => n * 10))).toBe("a-b|", { a: 10, b: 20 });
    });
    const calls: [unknown, unknown][] = [];
    createTestScheduler((actual, expected) => calls.push([actual, expected])).run(({ cold, expectObservable }) => {
      expectObservable(cold("a|")).toBe("b|");
    });
    expect(calls).toHaveLength(1);
    expect(deepMatch(calls[0]![0], calls[0]![1])).toBe(false);
  });

  it("the kit no longer exports a protocolError shadowing the core's: the matcher is protocolErrorWith", () => {
    expect("protocolError" in testing).toBe(false);
    expect(typeof testing.protocolErrorWith).toBe("function");
  });
});

describe("deepMatch: toEqual's reading, without a framework", () => {
  it("an undefined property is absent; arrays match item by item and length; primitives by Object.is", () => {
    expect(deepMatch({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepMatch({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(deepMatch({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(deepMatch([1, [2, { c: 3 }]], [1, [2, { c: 3 }]])).toBe(true);
    expect(deepMatch([1, 2], [1, 2, 3])).toBe(false);
    expect(deepMatch({ list: [1] }, { list: { 0: 1 } })).toBe(false);
    expect(deepMatch(NaN, NaN)).toBe(true);
    expect(deepMatch("1", 1)).toBe(false);
  });

  it("errors match by name and message (and own fields); maps and sets by entries; classes are not compared (as toEqual)", () => {
    expect(deepMatch(new Error("x"), new Error("x"))).toBe(true);
    expect(deepMatch(new Error("x"), new TypeError("x"))).toBe(false);
    expect(deepMatch(new Error("x"), { name: "Error", message: "x" })).toBe(false);
    expect(deepMatch(new Map([[1, "a"]]), new Map([[1, "a"]]))).toBe(true);
    expect(deepMatch(new Map([[1, "a"]]), new Map([[1, "b"]]))).toBe(false);
    expect(deepMatch(new Set([1]), [1])).toBe(false);
    class Point {
      constructor(readonly x: number) {}
    }
    expect(deepMatch(new Point(1), { x: 1 })).toBe(true);
    expect(deepMatch(new Point(1), { x: 2 })).toBe(false);
  });

  it("R-REASON-10: protocolErrorWith and warningWith match the code and the given fields only, under deepMatch and jest alike", () => {
    const failure = new ReasoningProtocolError({
      code: "ORPHAN_END",
      rule: "R-REASON-10",
      eventIndex: 1,
      eventType: "REASONING_END",
      ids: ["s9"],
      detail: "d",
    });
    for (const [matcher, matches] of [
      [protocolErrorWith("ORPHAN_END"), true],
      [protocolErrorWith("ORPHAN_END", { eventIndex: 1, ids: ["s9"] }), true],
      [protocolErrorWith("ORPHAN_END", { ids: ["s8"] }), false],
      [protocolErrorWith("ORPHAN_CONTENT"), false],
    ] as const) {
      expect([deepMatch(failure, matcher), deepMatch({ wrapped: failure }, { wrapped: matcher })]).toEqual([
        matches,
        matches,
      ]);
      if (matches) expect(failure).toEqual(matcher);
      else expect(failure).not.toEqual(matcher);
    }
    expect(deepMatch(new Error("ORPHAN_END"), protocolErrorWith("ORPHAN_END"))).toBe(false);
    const warning = { code: "UNKNOWN_ENTITY", message: "m", ids: ["x"], lossy: true };
    expect(deepMatch(warning, warningWith("UNKNOWN_ENTITY", { ids: ["x"], lossy: true }))).toBe(true);
    expect(deepMatch(warning, warningWith("UNKNOWN_ENTITY", { ids: ["y"] }))).toBe(false);
    expect(() => assertDeepMatch(warning, warningWith("VALUE_WITHHELD"))).toThrow(/warningWith\("VALUE_WITHHELD"/);
  });
});
