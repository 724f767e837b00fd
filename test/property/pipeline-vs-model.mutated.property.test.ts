/** The property suite's mutated property (see property-run.ts for the seed, the runs and regressions). */
import { mutatedCaseArb } from "./arbitraries";
import { agree, assertProperty, printSeed } from "./property-run";

printSeed("mutated");

describe("pipeline vs reference model", () => {
  it("R-PROC-4 R-RUN-13 D-REDACT: mutated streams — same verdict, error code and index, warnings and history; errors are only ReasoningProtocolError", () => {
    assertProperty("mutated", 0.45, mutatedCaseArb(), (c) => void agree(c));
  });
});
