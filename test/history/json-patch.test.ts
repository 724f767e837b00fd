import { applyJsonPatch } from "../../src/history/json-patch";

describe("applyJsonPatch (activity content, R-SNAP-3)", () => {
  const doc = { query: "ag-ui", found: 0, results: [{ t: "a" }, { t: "b" }] };

  it("R-ACT-5: applies add / remove / replace / move / copy / test without touching the input", () => {
    const outcome = applyJsonPatch(doc, [
      { op: "replace", path: "/found", value: 3 },
      { op: "add", path: "/results/1", value: { t: "x" } },
      { op: "add", path: "/results/-", value: { t: "z" } },
      { op: "remove", path: "/results/0" },
      { op: "copy", from: "/query", path: "/copy" },
      { op: "move", from: "/copy", path: "/moved" },
      { op: "test", path: "/moved", value: "ag-ui" },
    ]);
    expect(outcome).toEqual({
      ok: true,
      value: { query: "ag-ui", found: 3, results: [{ t: "x" }, { t: "b" }, { t: "z" }], moved: "ag-ui" },
    });
    expect(doc).toEqual({ query: "ag-ui", found: 0, results: [{ t: "a" }, { t: "b" }] });
  });

  it("R-ACT-5: shares what is off the edited path", () => {
    const outcome = applyJsonPatch(doc, [{ op: "replace", path: "/found", value: 1 }]);
    expect(outcome.ok && (outcome.value as typeof doc).results).toBe(doc.results);
  });

  it("R-SNAP-3: is atomic: one failing operation fails the whole patch, naming its position only", () => {
    expect(
      applyJsonPatch(doc, [
        { op: "replace", path: "/found", value: 1 },
        { op: "replace", path: "/missing/x", value: 2 },
      ]),
    ).toEqual({
      ok: false,
      reason: "operation 1 (replace) does not apply",
    });
    expect(applyJsonPatch(doc, [{ op: "test", path: "/found", value: 9 }])).toEqual({
      ok: false,
      reason: "operation 0 (test) does not apply",
    });
    expect(applyJsonPatch(doc, [{ op: "remove", path: "/results/5" }]).ok).toBe(false);
    expect(applyJsonPatch(doc, [{ op: "move", from: "/results", path: "/results/0" }]).ok).toBe(false);
    expect(applyJsonPatch(doc, [{ op: "frobnicate", path: "/found" }]).ok).toBe(false);
    expect(applyJsonPatch(doc, [{ op: "add", path: "found", value: 1 }]).ok).toBe(false);
    expect(applyJsonPatch(doc, ["not an op"]).ok).toBe(false);
  });

  it("R-PROC-8: decodes ~0 / ~1 and treats __proto__ as an ordinary key", () => {
    const outcome = applyJsonPatch({}, [
      { op: "add", path: "/a~1b", value: 1 },
      { op: "add", path: "/c~0d", value: 2 },
      { op: "add", path: "/__proto__", value: { polluted: true } },
    ]);
    expect(outcome.ok).toBe(true);
    const value = (outcome as { value: Record<string, unknown> }).value;
    expect(Object.keys(value)).toEqual(["a/b", "c~d", "__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("R-SNAP-1: replaces the whole document with an empty path", () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }])).toEqual({
      ok: true,
      value: { b: 2 },
    });
  });
});
