import { compareProtocolVersion } from "../../src/schema/protocol-version";

describe("compareProtocolVersion", () => {
  it("R-VER-16: MAJOR.MINOR is compared numerically per component", () => {
    expect(compareProtocolVersion("1.0")).toBe("same");
    expect(compareProtocolVersion("1.00")).toBe("same");
    expect(compareProtocolVersion("1.1")).toBe("newer");
    expect(compareProtocolVersion("1.10")).toBe("newer");
    expect(compareProtocolVersion("2.0")).toBe("newer");
    expect(compareProtocolVersion("0.9")).toBe("older");
  });

  it("R-VER-16: anything that is not MAJOR.MINOR is uninterpretable", () => {
    for (const v of [
      "draft",
      "banana",
      "",
      "1",
      "1.0.0",
      "v1.0",
      "1.x",
      " 1.0",
      "1.0 ",
      "-1.0",
      "1e3.0",
      "9999999999.0",
    ]) {
      expect(compareProtocolVersion(v)).toBe("uninterpretable");
    }
  });
});
