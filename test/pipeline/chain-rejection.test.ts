/**
 * The chain runner after a step threw (src/core/chain-runner.ts): what the failing event changed is
 * published, and a source event a subscriber feeds from inside that publication is not taken — the
 * stream's verdict is the failing event's error, on every path (D-PATHS), paced or not (D-PACE: a
 * paced chain publishes at other moments, so a re-entrant feed must not decide the verdict).
 */
import { ChainRunner } from "../../src/core/chain-runner";
import { result, type Stage } from "../../src/core/types";

/** Counts what it sees; "boom" fails after the state changed. */
const counting: Stage<{ seen: string[] }, string, string> = {
  name: "counting",
  init: () => ({ seen: [] }),
  step: (state, event) => {
    const next = { seen: [...state.seen, event] };
    if (event === "boom") throw new Error("boom");
    return result(next, []);
  },
};

/** Passes "boom" on as "changed" then "boom": the next link's state changes before it fails. */
const fanOut: Stage<null, string, string> = {
  name: "fan-out",
  init: () => null,
  step: (state, event) => result(state, event === "boom" ? ["changed", "boom"] : [event]),
};

describe("the chain runner after a step threw", () => {
  it("D-PATHS: publishes what the failing event changed, and takes no source event fed from inside that publication", () => {
    const published: string[][] = [];
    let last: unknown;
    const runner: ChainRunner = new ChainRunner(
      [
        { stage: fanOut, state: fanOut.init(), warn: () => {} },
        {
          stage: counting,
          state: counting.init(),
          warn: () => {},
          publish: (state) => {
            if (state === last) return [];
            last = state;
            return [state];
          },
        },
      ],
      (value) => {
        const seen = (value as { seen: string[] }).seen;
        published.push(seen);
        // A subscriber feeding the source re-entrantly, from inside the publication.
        if (seen.at(-1) === "changed") runner.next("fed");
      },
    );
    runner.next("a");
    expect(() => runner.next("boom")).toThrow("boom");
    expect(published).toEqual([["a"], ["a", "changed"]]);
    // After it, the runner goes on (its users stop feeding it: the stream was rejected).
    runner.next("later");
    expect(published.at(-1)).toEqual(["a", "changed", "later"]);
  });
});
