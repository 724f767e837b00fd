/** The property suite's content property (see property-run.ts for the seed, the runs and regressions). */
import { validCaseArb } from "./arbitraries";
import { agree, assertProperty, printSeed } from "./property-run";

printSeed("content");

describe("pipeline vs reference model", () => {
  it("R-STREAM-4 R-TEXT-4: reasoning and text content is the concatenation of the deltas in arrival order", () => {
    assertProperty("content", 0.2, validCaseArb({ snapshots: false }), (c) => {
      const { messages } = agree(c).pipeline;
      for (const [id, expected] of c.deltasById) {
        const m = messages.find((x) => x.id === id) as { content?: unknown } | undefined;
        if (m === undefined) throw new Error(`message ${JSON.stringify(id)} missing from history`);
        // A message a tool call created has no content until a delta arrives (an empty delta appends nothing).
        if ((m.content ?? "") !== expected)
          throw new Error(
            `message ${JSON.stringify(id)}: content ${JSON.stringify(m.content)} != deltas ${JSON.stringify(expected)}`,
          );
      }
    });
  });
});
