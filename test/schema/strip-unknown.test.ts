import { z } from "zod";
import { compilePlan, type Plan } from "../../src/schema/schema-plan";
import { REMOVED, stripUnknown } from "../../src/schema/strip-unknown";
import { asNode } from "../../src/schema/zod-node";

/**
 * The schema walker on small zod schemas built for the test (the product itself only ever walks
 * the schemas of `@ag-ui/core/schemas`).
 */
const planOf = (schema: z.ZodType): Plan => {
  const plan = compilePlan(asNode(schema));
  if (plan === null) throw new Error("expected a plan");
  return plan;
};

const Part = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({
    type: z.literal("media"),
    source: z.discriminatedUnion("kind", [z.looseObject({ kind: z.literal("url"), url: z.string() })]),
  }),
]);
const Message = z.looseObject({
  id: z.string(),
  level: z.enum(["low", "high"]).optional(),
  status: z.enum(["open", "done"]),
  parts: z.array(Part).optional(),
  meta: z.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null),
});
const Envelope = z.looseObject({ messages: z.array(Message), note: z.looseObject({ text: z.string() }).optional() });

describe("stripUnknown", () => {
  it("R-PROC-6: a clean value needs no walk: undefined, nothing allocated", () => {
    const value = {
      messages: [{ id: "a", status: "open", parts: [{ type: "text", text: "x" }], meta: { any: { thing: 1 } } }],
    };
    expect(stripUnknown(value, planOf(Envelope))).toBeUndefined();
  });

  it("R-PROC-7: copy-on-write: only objects on the way to a change are new; siblings keep their identity", () => {
    const clean = { id: "a", status: "open" };
    const dirty = { id: "b", status: "open", extra: 1 };
    const note = { text: "n" };
    const value = { messages: [clean, dirty], note };
    const stripped = stripUnknown(value, planOf(Envelope));
    const out = stripped?.value as typeof value;
    expect(out).not.toBe(value);
    expect(out.messages[0]).toBe(clean);
    expect(out.messages[1]).toEqual({ id: "b", status: "open" });
    expect(out.note).toBe(note);
    expect(stripped?.notes).toEqual([{ kind: "stripped-property", path: "/messages/1/extra" }]);
    expect(value.messages[1]).toEqual({ id: "b", status: "open", extra: 1 });
  });

  it("R-PROC-7: key order of the kept keys is preserved", () => {
    const stripped = stripUnknown({ status: "open", x: 1, id: "a", y: 2, level: "low" }, planOf(Message));
    expect(Object.keys(stripped?.value as object)).toEqual(["status", "id", "level"]);
  });

  it("R-PROC-8: z.custom values (metadata-like) are open: unknown keys inside survive", () => {
    const value = { id: "a", status: "open", meta: { vendor: { deep: [1, { x: null }] } } };
    expect(stripUnknown(value, planOf(Message))).toBeUndefined();
  });

  it("R-PROC-8: an object marked specOpen keeps undescribed keys; a closed one does not", () => {
    const Op = z.looseObject({ op: z.literal("remove"), path: z.string() }).meta({ specOpen: true });
    const Patch = z.array(z.discriminatedUnion("op", [Op]));
    expect(stripUnknown([{ op: "remove", path: "/a", value: 1 }], planOf(Patch))).toBeUndefined();
    const Closed = z.array(z.discriminatedUnion("op", [z.looseObject({ op: z.literal("remove"), path: z.string() })]));
    expect(stripUnknown([{ op: "remove", path: "/a", value: 1 }], planOf(Closed))?.value).toEqual([
      { op: "remove", path: "/a" },
    ]);
  });

  it("R-PROC-11: an unknown enum in an optional field removes the field", () => {
    const stripped = stripUnknown({ id: "a", status: "open", level: "medium" }, planOf(Message));
    expect(stripped?.value).toEqual({ id: "a", status: "open" });
    expect(stripped?.notes).toEqual([{ kind: "unknown-member", path: "/level", removedPath: "/level" }]);
  });

  it("R-PROC-11: an unknown enum in a required field removes the containing value; notes from inside it are replaced", () => {
    const value = {
      messages: [
        { id: "a", status: "snoozed", extra: 1, level: "weird" },
        { id: "b", status: "done" },
      ],
    };
    const stripped = stripUnknown(value, planOf(Envelope));
    expect(stripped?.value).toEqual({ messages: [{ id: "b", status: "done" }] });
    expect(stripped?.notes).toEqual([
      { kind: "unknown-member", path: "/messages/0/status", removedPath: "/messages/0" },
    ]);
  });

  it("R-PROC-11: a removal that reaches the root removes the whole value", () => {
    const stripped = stripUnknown({ id: "a", status: "later" }, planOf(Message));
    expect(stripped?.value).toBe(REMOVED);
    expect(stripped?.notes).toEqual([{ kind: "unknown-member", path: "/status", removedPath: "" }]);
  });

  it("R-PROC-11: an unknown member of a required nested union removes the element holding it", () => {
    const value = {
      id: "a",
      status: "open",
      parts: [
        { type: "media", source: { kind: "ftp" } },
        { type: "text", text: "t" },
      ],
    };
    const stripped = stripUnknown(value, planOf(Message));
    expect(stripped?.value).toEqual({ id: "a", status: "open", parts: [{ type: "text", text: "t" }] });
    expect(stripped?.notes).toEqual([{ kind: "unknown-member", path: "/parts/0/source", removedPath: "/parts/0" }]);
  });

  it("R-PROC-4: wrong shapes are left for zod (no member, no strip): missing or non-string discriminator, non-object, non-array", () => {
    const plan = planOf(Message);
    for (const value of [
      { id: "a", status: 5 },
      { id: "a", status: "open", parts: "nope" },
      { id: "a", status: "open", parts: [{ text: "no type" }, { type: 3 }, null, "x"] },
      "not an object",
      null,
      [1, 2],
    ]) {
      expect(stripUnknown(value, plan)).toBeUndefined();
    }
  });

  it("R-PROC-2: an own __proto__ key is stripped from a closed object without touching the prototype", () => {
    const value = JSON.parse('{"id":"a","status":"open","__proto__":{"polluted":true}}') as object;
    const out = stripUnknown(value, planOf(Message))?.value as Record<string, unknown>;
    expect(out).toEqual({ id: "a", status: "open" });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("R-PROC-8: an own __proto__ key in an open object that must be copied stays an own data property", () => {
    const Open = z.looseObject({ level: z.enum(["a", "b"]).optional() }).meta({ specOpen: true });
    const value = JSON.parse('{"__proto__":{"x":1},"level":"zzz"}') as object;
    const out = stripUnknown(value, planOf(Open))?.value as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ x: 1 });
    expect(Object.keys(out)).toEqual(["__proto__"]);
  });

  it("R-PROC-2: record values are walked; an element removed from a record drops its key", () => {
    const Book = z.record(z.string(), z.looseObject({ status: z.enum(["open", "done"]) }));
    const stripped = stripUnknown(
      { a: { status: "open", x: 1 }, b: { status: "gone" }, c: { status: "done" } },
      planOf(Book),
    );
    expect(stripped?.value).toEqual({ a: { status: "open" }, c: { status: "done" } });
    expect(stripped?.notes).toEqual([
      { kind: "stripped-property", path: "/a/x" },
      { kind: "unknown-member", path: "/b/status", removedPath: "/b" },
    ]);
  });

  it("R-PROC-11: a plain union is walked along the option matching the value's JSON kind", () => {
    const Content = z.looseObject({ content: z.union([z.string(), z.array(Part)]) });
    expect(stripUnknown({ content: "plain" }, planOf(Content))).toBeUndefined();
    const stripped = stripUnknown({ content: [{ type: "text", text: "x", bold: true }] }, planOf(Content));
    expect(stripped?.value).toEqual({ content: [{ type: "text", text: "x" }] });
  });

  it("R-PROC-11: a plain union with two object options is left to zod (no unambiguous walk)", () => {
    const Either = z.looseObject({ v: z.union([z.looseObject({ a: z.string() }), z.looseObject({ b: z.string() })]) });
    expect(compilePlan(asNode(Either))).not.toBeNull();
    expect(stripUnknown({ v: { a: "x", c: 1 } }, planOf(Either))).toBeUndefined();
  });

  it("R-PROC-3: nested discriminated unions are flattened into one set of members", () => {
    const Inner = z.discriminatedUnion("type", [z.looseObject({ type: z.literal("b"), y: z.string() })]);
    const Outer = z.array(
      z.discriminatedUnion("type", [z.looseObject({ type: z.literal("a"), x: z.string() }), Inner]),
    );
    const stripped = stripUnknown([{ type: "b", y: "1", z: 2 }, { type: "c" }], planOf(Outer));
    expect(stripped?.value).toEqual([{ type: "b", y: "1" }]);
    expect(stripped?.notes.map((n) => n.kind)).toEqual(["stripped-property", "unknown-member"]);
  });

  it("R-PROC-2: recursive schemas (z.lazy) compile once and are walked at any depth", () => {
    type Node = { name: string; children?: Node[] };
    const Tree: z.ZodType<Node> = z.looseObject({ name: z.string(), children: z.lazy(() => z.array(Tree)).optional() });
    const stripped = stripUnknown(
      { name: "r", children: [{ name: "c", children: [{ name: "g", junk: 1 }] }] },
      planOf(Tree),
    );
    expect(stripped?.value).toEqual({ name: "r", children: [{ name: "c", children: [{ name: "g" }] }] });
    expect(stripped?.notes).toEqual([{ kind: "stripped-property", path: "/children/0/children/0/junk" }]);
  });

  it("R-PROC-6: a path segment containing / or ~ is escaped (RFC 6901)", () => {
    const stripped = stripUnknown({ id: "a", status: "open", "a/b~c": 1 }, planOf(Message));
    expect(stripped?.notes).toEqual([{ kind: "stripped-property", path: "/a~1b~0c" }]);
  });

  it("D-REDACT: a huge undescribed key is truncated in the path", () => {
    const key = "k".repeat(1000);
    const [note] = stripUnknown({ id: "a", status: "open", [key]: 1 }, planOf(Message))?.notes ?? [];
    expect(note?.path.length).toBeLessThanOrEqual(121);
  });
});
