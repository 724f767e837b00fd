/** The property suite's valid property (see property-run.ts for the seed, the runs and regressions). */
import { validCaseArb } from "./arbitraries";
import { agree, assertProperty, printSeed } from "./property-run";

printSeed("valid");

describe("pipeline vs reference model", () => {
  it("R-REASON-8 D-ISSUER R-STREAM-15: valid streams — pipeline and model agree on outcome, warnings, history and run input", () => {
    assertProperty("valid", 0.35, validCaseArb(), (c) => {
      const { model } = agree(c);
      // The generator's promise: a valid stream only ever ends by truncation (D-TRUNC).
      if (model.outcome === "failed" && model.errorCode !== "RUN_TRUNCATED") {
        throw new Error(`generator produced an invalid stream: model says ${model.errorCode} at #${model.errorIndex}`);
      }
    });
  });
});
