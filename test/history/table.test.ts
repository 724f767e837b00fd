import fc from "fast-check";
import { Table, type Space } from "../../src/history/table";

/**
 * `Table` is the one persistent structure the history's versions hold their parts in (issue 20):
 * an ordered list of items, some named by a key (a versioned map: the newest version holds it, older
 * ones undo records). These tests check it against a plain model under any sequence of edits, each
 * made on any earlier version (a fork, which re-roots the map), with every version checked after all
 * the later edits were made: no version ever shows another's edit. Keys live in three spaces (a
 * table of up to three kinds of items): the same string in another space names another item.
 */

interface Entry {
  readonly value: number;
  readonly key: string | undefined;
  readonly space: Space;
}

type Op =
  | { readonly op: "push"; readonly key: string | undefined; readonly space: Space }
  | { readonly op: "put" | "remove" | "unkey" | "setAt" | "pushNew"; readonly key: string; readonly space: Space }
  | { readonly op: "insert"; readonly at: number; readonly key: string | undefined };

/** The model: the entries in order; a key names at most one entry of its space (the last given it). */
function applied(model: readonly Entry[], o: Op, value: number): Entry[] {
  const space = o.op === "insert" ? 0 : o.space;
  const names = (e: Entry, key: string | undefined): boolean => key !== undefined && e.key === key && e.space === space;
  const unkeyed = (key: string | undefined): Entry[] =>
    model.map((e) => (names(e, key) ? { value: e.value, key: undefined, space: 0 } : e));
  switch (o.op) {
    case "push":
    case "pushNew":
      return [...unkeyed(o.key), { value, key: o.key, space }];
    case "put":
    case "setAt": {
      const at = model.findIndex((e) => names(e, o.key));
      if (at < 0) return o.op === "put" ? [...model, { value, key: o.key, space }] : model.slice();
      return model.map((e, i) => (i === at ? { value, key: o.key, space } : e));
    }
    case "remove":
      return model.filter((e) => !names(e, o.key));
    case "unkey":
      return unkeyed(o.key);
    case "insert": {
      const next = unkeyed(o.key);
      next.splice(Math.min(o.at, next.length), 0, { value, key: o.key, space });
      return next;
    }
  }
}

function edited(table: Table<number>, o: Op, value: number): Table<number> {
  switch (o.op) {
    case "push":
      return table.push(value, o.key, o.space);
    case "pushNew":
      // Only for a key naming nothing yet (its contract): otherwise it is a push.
      return table.has(o.key, o.space) ? table.push(value, o.key, o.space) : table.pushNew(value, o.key, o.space);
    case "put":
      return table.put(o.key, value, o.space);
    case "setAt": {
      const slot = table.slotOf(o.key, o.space);
      return slot === undefined ? table : table.setAt(slot, value);
    }
    case "remove":
      return table.remove(o.key, o.space);
    case "unkey":
      return table.unkey(o.key, o.space);
    case "insert":
      return table.insert(Math.min(o.at, table.slots), value, o.key);
  }
}

const KEY = fc.oneof(
  fc.constantFrom("a", "b", "__proto__", ""),
  fc.nat(60).map((n) => `k${n}`),
);
const SPACE = fc.constantFrom<Space>(0, 1, 2);
const keyed = (op: "put" | "remove" | "unkey" | "setAt" | "pushNew"): fc.Arbitrary<Op> =>
  fc.tuple(KEY, SPACE).map(([key, space]) => ({ op, key, space }));
const OP: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.option(KEY, { nil: undefined }), SPACE)
      .map(([key, space]) => ({ op: "push" as const, key, space })),
  },
  { weight: 4, arbitrary: keyed("put") },
  { weight: 2, arbitrary: keyed("pushNew") },
  { weight: 3, arbitrary: keyed("remove") },
  { weight: 1, arbitrary: keyed("unkey") },
  { weight: 2, arbitrary: keyed("setAt") },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(80), fc.option(KEY, { nil: undefined }))
      .map(([at, key]) => ({ op: "insert" as const, at, key })),
  },
);

function expectSame(table: Table<number>, model: readonly Entry[], keys: readonly string[]): void {
  expect(table.size).toBe(model.length);
  expect(table.toArray()).toEqual(model.map((e) => e.value));
  expect(table.last()).toBe(model[model.length - 1]?.value);
  for (const key of keys) {
    for (const space of [0, 1] as const) {
      const entry = model.find((e) => e.key === key && e.space === space);
      expect(table.get(key, space)).toBe(entry?.value);
      expect(table.has(key, space)).toBe(entry !== undefined);
      const slot = table.slotOf(key, space);
      if (slot !== undefined) expect(table.at(slot)).toBe(entry?.value);
    }
  }
}

describe("Table (the history's persistent structure)", () => {
  it("issue 20, issue 23 (key spaces): behaves like its model under any edits on any earlier version, and no version shows another's edit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), OP), { maxLength: 200 }),
        fc.array(fc.tuple(fc.option(KEY, { nil: undefined }), SPACE), { maxLength: 40 }),
        (steps, seedKeys) => {
          const seed: Entry[] = seedKeys.map(([key, space], value) => ({ value, key, space }));
          // A seed repeating a key: the last one has it (as a seed repeating a message id).
          const model = seed.map((e, i) =>
            seed.slice(i + 1).some((l) => l.key === e.key && l.space === e.space) ? { ...e, key: undefined } : e,
          );
          const table = Table.from(
            seed.map((e) => e.value),
            seed.map((e) => e.key),
            seed.map((e) => e.space),
          );
          const versions: [Table<number>, Entry[]][] = [[table, model]];
          let value = 1_000;
          // Inserts only where slots are positions (no holes): as the messages table uses it.
          for (const [from, o] of steps) {
            const [table, model] = versions[from % versions.length]!;
            if (o.op === "insert" && table.slots !== table.size) continue;
            versions.push([edited(table, o, value), applied(model, o, value)]);
            value++;
          }
          const keys = ["a", "b", "__proto__", "", ...Array.from({ length: 61 }, (_, n) => `k${n}`)];
          for (const [table, model] of versions) expectSame(table, model, keys);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("issue 20: a table one slot away from a built array publishes a flat copy of it, patched", () => {
    const base = Table.from([1, 2, 3], ["a", "b", "c"]);
    const built = base.toArray();
    const next = base.setAt(1, 20);
    expect(next.toArray()).toEqual([1, 20, 3]);
    expect(built).toEqual([1, 2, 3]);
    // The same slot again: still one slot away from `built`.
    const again = next.setAt(1, 21).push(4, "d");
    expect(again.toArray()).toEqual([1, 21, 3, 4]);
    expect(next.toArray()).toEqual([1, 20, 3]);
    // The array given to `from` is the one published.
    expect(base.toArray()).toBe(built);
  });
});
