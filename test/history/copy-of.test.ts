import { copyOf } from "../../src/history/read-event";

/** `copyOf` (issue 13) must give exactly what `{ ...source }` gives: it only changes how V8 builds it. */
describe("copyOf", () => {
  it("copies own enumerable properties, in order, with Object.prototype as the prototype", () => {
    const symbol = Symbol("s");
    const source: Record<string | symbol, unknown> = { id: "m1", role: "assistant", content: "hi", [symbol]: 1 };
    Object.defineProperty(source, "hidden", { value: 1, enumerable: false });
    const copy = copyOf(source);
    expect(copy).not.toBe(source);
    expect(Reflect.ownKeys(copy)).toEqual(Reflect.ownKeys({ ...source }));
    expect(copy).toEqual({ ...source });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it("keeps an own __proto__ key as a data property (it never sets the prototype)", () => {
    const source = JSON.parse('{"id":"m1","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const copy = copyOf(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ polluted: true });
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Reflect.ownKeys(copy)).toEqual(Reflect.ownKeys({ ...source }));
  });

  it("reads getters once, as a spread does, and copies their values", () => {
    let reads = 0;
    const source = {
      get content(): string {
        reads++;
        return "x";
      },
    };
    const copy = copyOf(source);
    expect(reads).toBe(1);
    expect(Object.getOwnPropertyDescriptor(copy, "content")).toEqual({
      value: "x",
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });
});
