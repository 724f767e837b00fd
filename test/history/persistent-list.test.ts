import fc from "fast-check";
import { PersistentList } from "../../src/history/persistent-list";

describe("PersistentList (structural sharing for the history)", () => {
  it("R-STATE-8: from/get/toArray round-trip across trie depths", () => {
    for (const n of [0, 1, 31, 32, 33, 1023, 1024, 1025, 40_000]) {
      const items = Array.from({ length: n }, (_, i) => i);
      const list = PersistentList.from(items);
      expect(list.size).toBe(n);
      expect(list.toArray()).toEqual(items);
      expect(list.get(n)).toBeUndefined();
      expect(list.get(-1)).toBeUndefined();
      if (n > 0) expect(list.get(n - 1)).toBe(n - 1);
    }
  });

  it("R-STATE-8: push grows the trie by levels and keeps every older version intact", () => {
    let list = PersistentList.empty<number>();
    const versions: PersistentList<number>[] = [];
    for (let i = 0; i < 1100; i++) {
      versions.push(list);
      list = list.push(i);
    }
    expect(list.toArray()).toEqual(Array.from({ length: 1100 }, (_, i) => i));
    expect(versions[33]!.toArray()).toEqual(Array.from({ length: 33 }, (_, i) => i));
    expect(versions[1024]!.size).toBe(1024);
    expect(versions[1024]!.get(1023)).toBe(1023);
  });

  it("R-STATE-4: set returns a new list and leaves the old one unchanged", () => {
    const a = PersistentList.from(["x", "y", "z"]);
    const b = a.set(1, "Y");
    expect(a.toArray()).toEqual(["x", "y", "z"]);
    expect(b.toArray()).toEqual(["x", "Y", "z"]);
    expect(() => a.set(3, "w")).toThrow(RangeError);
  });

  it("R-STATE-4: behaves like an array under any sequence of push/set (model check)", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), value: fc.integer() }),
      fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: fc.integer() }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 70 }), fc.array(op, { maxLength: 120 }), (initial, ops) => {
        let list = PersistentList.from(initial);
        const model = initial.slice();
        for (const o of ops) {
          if (o.kind === "push") {
            list = list.push(o.value);
            model.push(o.value);
          } else if (model.length > 0 && o.kind === "set") {
            const at = o.at % model.length;
            list = list.set(at, o.value);
            model[at] = o.value;
          }
        }
        expect(list.size).toBe(model.length);
        expect(list.toArray()).toEqual(model);
        model.forEach((v, i) => expect(list.get(i)).toBe(v));
      }),
    );
  });

  it("R-STATE-4: a list built by from() at any depth and tail length keeps behaving like an array (push, set, old versions)", () => {
    const sizes = [
      0, 1, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 1055, 1056, 1057, 1088, 2047, 2048, 2049, 32767, 32768, 32769,
      33824, 33825,
    ];
    for (const n of sizes) {
      const model = Array.from({ length: n }, (_, i) => i);
      let list = PersistentList.from(model);
      const before = list;
      for (let k = 0; k < 70; k++) {
        list = list.push(-k);
        model.push(-k);
        const at = (k * 7919) % model.length;
        list = list.set(at, k * 1000);
        model[at] = k * 1000;
        expect(list.get(model.length - 1)).toBe(model[model.length - 1]);
      }
      expect(list.size).toBe(model.length);
      expect(list.toArray()).toEqual(model);
      expect(before.toArray()).toEqual(Array.from({ length: n }, (_, i) => i));
    }
  });

  it("R-STATE-4: pushes from empty across two trie levels match an array, and every tail edit leaves earlier versions intact", () => {
    let list = PersistentList.empty<number>();
    const model: number[] = [];
    for (let i = 0; i < 33_900; i++) {
      list = list.push(i);
      model.push(i);
    }
    const last = list;
    const edited = list.set(33_899, -1).set(0, -2).set(1_040, -3);
    expect(last.get(33_899)).toBe(33_899);
    expect(edited.get(33_899)).toBe(-1);
    expect(edited.get(0)).toBe(-2);
    expect(edited.get(1_040)).toBe(-3);
    expect(last.toArray()).toEqual(model);
  });

  it("R-STATE-4: runs of sets at one slot (kept outside the trie and the tail) never change an earlier version, at any depth", () => {
    // Each step sets a few times in a row at one slot, sometimes pushes, then moves on; every version
    // is checked against the array it stood for, after all the later edits were made.
    const step = fc.record({
      at: fc.nat(),
      times: fc.integer({ min: 1, max: 4 }),
      push: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 31, 32, 33, 1023, 1024, 1056),
        fc.array(step, { maxLength: 40 }),
        (n, steps) => {
          let list = PersistentList.from(Array.from({ length: n }, (_, i) => i));
          const model = Array.from({ length: n }, (_, i) => i);
          const versions: [PersistentList<number>, number[]][] = [[list, model.slice()]];
          let value = 10_000;
          for (const s of steps) {
            if (s.push || model.length === 0) {
              list = list.push(value);
              model.push(value++);
              versions.push([list, model.slice()]);
            }
            const at = s.at % model.length;
            for (let t = 0; t < s.times; t++) {
              list = list.set(at, value);
              model[at] = value++;
              versions.push([list, model.slice()]);
            }
          }
          for (const [version, expected] of versions) {
            expect(version.size).toBe(expected.length);
            expect(version.toArray()).toEqual(expected);
            for (let i = 0; i < expected.length; i += Math.max(1, expected.length >> 4))
              expect(version.get(i)).toBe(expected[i]);
            expect(version.get(expected.length - 1)).toBe(expected[expected.length - 1]);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("R-STATE-4: pushes and sets on any earlier version (a fork) never show in another version, however tails are shared", () => {
    // Each step takes any version made so far, not only the latest: a push onto an older version
    // must not show in the versions that already pushed onto the same tail, nor theirs in it.
    const step = fc.record({ from: fc.nat(), kind: fc.constantFrom("push", "set"), at: fc.nat() });
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 30, 31, 32, 33, 63, 64, 1024),
        fc.array(step, { maxLength: 60 }),
        (n, steps) => {
          const versions: [PersistentList<number>, number[]][] = [
            [PersistentList.from(Array.from({ length: n }, (_, i) => i)), Array.from({ length: n }, (_, i) => i)],
          ];
          let value = 10_000;
          for (const s of steps) {
            const [list, model] = versions[s.from % versions.length]!;
            const next = model.slice();
            let made: PersistentList<number>;
            if (s.kind === "push" || next.length === 0) {
              made = list.push(value);
              next.push(value++);
            } else {
              made = list.set(s.at % next.length, value);
              next[s.at % next.length] = value++;
            }
            versions.push([made, next]);
          }
          for (const [version, expected] of versions) {
            expect(version.size).toBe(expected.length);
            expect(version.toArray()).toEqual(expected);
            expect(version.get(expected.length - 1)).toBe(expected[expected.length - 1]);
            expect(version.get(expected.length)).toBeUndefined();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("R-STATE-4: every list pushed from the empty one starts empty (the shared empty node is never grown)", () => {
    // A fresh module: the first push from the empty list in a process is the one that could grow it.
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh instance of the module, loaded here
      const { PersistentList: Fresh } = require("../../src/history/persistent-list") as {
        PersistentList: typeof PersistentList;
      };
      const a = Fresh.empty<string>().push("abc");
      const b = Fresh.empty<string>().push("xyz");
      const c = Fresh.from<string[]>([]).push(["p", "q"]);
      expect(a.toArray()).toEqual(["abc"]);
      expect(b.toArray()).toEqual(["xyz"]);
      expect(c.toArray()).toEqual([["p", "q"]]);
      expect(Fresh.empty<string>().toArray()).toEqual([]);
      expect(Fresh.from(["m", "n"]).toArray()).toEqual(["m", "n"]);
    });
  });
});
