/**
 * The check's reports write counts as `toLocaleString("en-US")` does (`1,000,062 events`), through
 * `grouped`, which skips ICU for the integers a report counts (issue 22: a million-event report
 * formats 200,000 numbers). Same text for every number.
 */
import fc from "fast-check";
import { count, grouped } from "../../src/cli/outcome";

describe("grouped: a count's thousands", () => {
  it("writes every safe non-negative integer as toLocaleString('en-US') does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.maxSafeNat(), fc.integer({ min: 0, max: 99_999_999 })), (n) => {
        expect(grouped(n)).toBe(n.toLocaleString("en-US"));
      }),
      { numRuns: 2_000 },
    );
    for (const n of [0, 7, 999, 1_000, 12_345, 999_999, 1_000_062, Number.MAX_SAFE_INTEGER])
      expect(grouped(n)).toBe(n.toLocaleString("en-US"));
  });

  it("leaves what is not such an integer to toLocaleString (a negative, -0, a fraction, NaN, Infinity)", () => {
    for (const n of [-1, -1_234_567, -0, 1.5, 1234.5678, NaN, Infinity, 2 ** 60])
      expect(grouped(n)).toBe(n.toLocaleString("en-US"));
    expect(count(1_000_062, "event")).toBe("1,000,062 events");
    expect(count(1, "run")).toBe("1 run");
  });
});
