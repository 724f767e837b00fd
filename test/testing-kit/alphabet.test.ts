import { runStage } from "../../src/core/stage-operator";
import { createEnforceStage } from "../../src/schema/enforce-schema";
import { reasoningPipeline } from "../../src";
import {
  alphabet,
  createTestScheduler,
  expectPipeline,
  extendAlphabet,
  historyOf,
  msg,
  sequentialIds,
  TEST_PRODUCER,
} from "../../src/testing";

const options = () => ({ producer: TEST_PRODUCER, idFactory: sequentialIds(), onWarning: () => {} });

describe("testing kit: the marble alphabet", () => {
  it('R-STREAM-15: cold("R [ k--- K ]--- F |", alphabet) reads back as R [ (<c) C (>]) F | — the span end closes the chunk stream', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      // A group of n values spans n + 2 frames, so the source leaves room with dashes.
      const p = reasoningPipeline(cold("R [ k--- K ]--- F |", alphabet), options());
      expectObservable(p.events$).toBe("R [ (<c) C (>]) F |", alphabet);
    });
  });

  it("R-REASON-22: u names an unknown message, so the pipeline drops it with UNKNOWN_ENTITY", () => {
    createTestScheduler().run((helpers) => {
      const p = reasoningPipeline(helpers.cold("R u F |", alphabet), options());
      expectPipeline(helpers, p).toBe(
        `
        events:   R - F |
        warnings: - w - |
        history:  0 - - |
        `,
        { ...alphabet, 0: historyOf(), w: expect.objectContaining({ code: "UNKNOWN_ENTITY", ids: ["unknown"] }) },
      );
    });
  });

  it("R-SCHEMA-2: every letter is a valid AG-UI 1.0 event except ?, which is an unknown type (R-PROC-1)", () => {
    for (const [letter, event] of Object.entries(alphabet)) {
      const { error, warnings, out } = runStage(createEnforceStage(), [event]);
      expect(error).toBeUndefined();
      if (letter === "?") {
        expect(warnings.map((w) => w.code)).toEqual(["UNKNOWN_EVENT_TYPE"]);
        expect(out).toEqual([]);
      } else {
        expect({ letter, warnings }).toEqual({ letter, warnings: [] });
        expect(out).toEqual([event]);
      }
    }
  });

  it("a diagram character the alphabet does not define throws, naming the character", () => {
    createTestScheduler().run(({ cold }) => {
      expect(() => cold("R z F |", alphabet)).toThrow('marble character "z" is not in the alphabet');
    });
  });

  it("extendAlphabet adds letters (the extension wins) and keeps the alphabet strict", () => {
    const mine = extendAlphabet({ m: msg.user("u1", "hi"), R: { type: "RUN_STARTED", threadId: "t9", runId: "r9" } });
    expect(mine["m"]).toEqual({ id: "u1", role: "user", content: "hi" });
    expect(mine["R"]).toEqual({ type: "RUN_STARTED", threadId: "t9", runId: "r9" });
    expect(mine["k"]).toEqual(alphabet["k"]);
    expect(() => mine["z"]).toThrow('"z" is not in the alphabet');
    // Non-diagram lookups (toJSON, then, …) answer undefined instead of throwing.
    expect((mine as Record<string, unknown>)["then"]).toBeUndefined();
  });

  it("extendAlphabet rejects keys the marble parser reserves or that are longer than one character", () => {
    for (const key of ["-", " ", "(", ")", "|", "^", "#", "!"]) {
      expect(() => extendAlphabet({ [key]: 1 })).toThrow(`alphabet key ${JSON.stringify(key)} must be one character`);
    }
    expect(() => extendAlphabet({ ab: 1 })).toThrow('alphabet key "ab" must be one character');
  });

  it("the alphabet is frozen", () => {
    expect(Object.isFrozen(alphabet)).toBe(true);
    expect(() => {
      (alphabet as Record<string, unknown>)["k"] = null;
    }).toThrow(TypeError);
  });
});
