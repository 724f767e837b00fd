import fc from "fast-check";
import { EventSchema } from "@ag-ui/core/schemas";
import { isReasoningProtocolError } from "../../src/core/errors";
import { createEnforceStage } from "../../src/schema/enforce-schema";
import { asNode } from "../../src/schema/zod-node";

/**
 * Properties of enforcement over hostile, half-valid input: whatever arrives, the stage either
 * forwards something `@ag-ui/core`'s EventSchema accepts (and that is quiet and unchanged when fed
 * back), drops it with a warning, or fails with a MALFORMED_EVENT — never a TypeError — and never
 * repeats content in a message.
 */

const stage = createEnforceStage();
const step = (event: unknown, index = 0) => stage.step(null, event, { index });

const shapes = new Map<string, ReadonlySet<string>>(
  (asNode(EventSchema)._zod.def.options ?? []).map((option) => {
    const shape = option._zod.def.shape ?? {};
    const type = (shape.type?._zod.def.values?.[0] ?? "") as string;
    return [type, new Set(Object.keys(shape))];
  }),
);
const KNOWN_TYPES = [...shapes.keys()];
const FIELD_NAMES = [...new Set([...shapes.values()].flatMap((keys) => [...keys]))].filter((k) => k !== "type");

/** Content (deltas, text, encrypted values) is marked with "§", which no other generated string contains. */
const content = fc.string({ maxLength: 8 }).map((s) => `§${s}`);
const CONTENT_FIELDS = new Set(["delta", "encryptedValue", "text", "content", "value"]);

const scalar = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom(
    "m1",
    "reasoning",
    "assistant",
    "user",
    "message",
    "tool-call",
    "artifact",
    "success",
    "paused",
    "text",
    "1.0",
    "1.1",
    "draft",
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

const part = fc.record(
  {
    type: fc.constantFrom("text", "image", "hologram", 5),
    text: content,
    source: fc.record(
      { type: fc.constantFrom("data", "url", "blob"), value: content, mimeType: fc.constant("x/y") },
      { requiredKeys: [] },
    ),
    metadata: fc.oneof(fc.constant(null), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 })),
    bold: fc.boolean(),
  },
  { requiredKeys: ["type"] },
);

const message = fc.record(
  {
    id: fc.oneof(fc.constantFrom("u1", "a1", "r1"), fc.integer()),
    role: fc.constantFrom("user", "assistant", "reasoning", "activity", "tool", "critic", 7),
    content: fc.oneof(
      content,
      fc.array(part, { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }),
    ),
    activityType: fc.constant("progress"),
    toolCallId: fc.constant("tc1"),
    encryptedValue: content,
    encryptedValueType: fc.constant("vendor.kind"),
    metadata: fc.oneof(fc.constant(null), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 })),
    subagentRunId: fc.oneof(fc.constant("sub-1"), fc.constant(null)),
  },
  { requiredKeys: ["role"] },
);

const fieldValue = (name: string): fc.Arbitrary<unknown> => {
  if (CONTENT_FIELDS.has(name)) return fc.oneof(content, scalar);
  switch (name) {
    case "messages":
      return fc.oneof(fc.array(message, { maxLength: 4 }), scalar);
    case "outcome":
      return fc.oneof(
        fc.record({ type: fc.constantFrom("success", "cancelled", "interrupt", "paused", 3) }),
        fc.array(scalar),
        scalar,
      );
    case "delta":
    case "patch":
      return fc.oneof(
        fc.array(
          fc.record(
            { op: fc.constantFrom("add", "remove", "frob"), path: fc.constantFrom("/a", "bad"), value: scalar },
            { requiredKeys: ["op"] },
          ),
          { maxLength: 3 },
        ),
        content,
      );
    case "metadata":
    case "rawEvent":
      return fc.oneof(fc.constant(null), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }), scalar);
    default:
      return fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 }));
  }
};

/** Hostile: any type, any fields with any values. Mostly dropped or failed. */
const hostileEvent = fc
  .record({
    type: fc.oneof(fc.constantFrom(...KNOWN_TYPES), fc.constantFrom("FUTURE_EVENT", "THINKING_START"), scalar),
    fields: noise(6),
  })
  .map(({ type, fields }) => ({ type, ...Object.fromEntries(fields) }));

/** Undescribed or mistyped extras: 0…max fields drawn from every name the schemas use, plus strangers. */
function noise(max: number) {
  return fc
    .array(fc.constantFrom(...FIELD_NAMES, "title", "futureProp", "encryptedValueType", "role"), { maxLength: max })
    .chain((names) => fc.tuple(...names.map((name) => fieldValue(name).map((value) => [name, value] as const))));
}

/** A value the schema would accept for `key` on `type` — or, now and then, a stranger (unknown member). */
function plausible(type: string, key: string): fc.Arbitrary<unknown> {
  const ids = fc.constantFrom("m1", "tc1", "r1", "t1", "s1");
  switch (key) {
    case "delta":
      return type === "STATE_DELTA" ? fieldValue("patch") : content;
    case "patch":
      return fieldValue("patch");
    case "content":
      if (type === "ACTIVITY_SNAPSHOT") return fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 });
      return type === "TOOL_CALL_RESULT" ? fc.oneof(content, fc.array(part, { maxLength: 3 })) : content;
    case "role":
      if (type === "REASONING_MESSAGE_START") return fc.constant("reasoning");
      return type === "TOOL_CALL_RESULT" ? fc.constant("tool") : fc.constantFrom("assistant", "user", "narrator");
    case "subtype":
      return fc.constantFrom("message", "tool-call", "artifact");
    case "messages":
      return fc.array(message, { maxLength: 4 });
    case "outcome":
      return fc.record({ type: fc.constantFrom("success", "cancelled", "paused") });
    case "timestamp":
      return fc.integer();
    case "replace":
      return fc.boolean();
    case "metadata":
    case "rawEvent":
    case "snapshot":
    case "value":
    case "event":
    case "result":
      return fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(scalar, content), { maxKeys: 2 });
    case "protocolVersion":
      return fc.constantFrom("1.0", "1.1", "draft");
    default:
      return ids;
  }
}

/** Mostly valid: every required field plausible, some optional ones, plus a little noise. */
const plausibleEvent = fc.constantFrom(...KNOWN_TYPES).chain((type) => {
  const shape =
    asNode(EventSchema)._zod.def.options?.find((o) => o._zod.def.shape?.type?._zod.def.values?.[0] === type)?._zod.def
      .shape ?? {};
  const fields = Object.entries(shape)
    .filter(([key]) => key !== "type" && key !== "input" && key !== "usage")
    .map(([key, schema]) =>
      schema.safeParse(undefined).success
        ? fc.option(
            plausible(type, key).map((v) => [key, v] as const),
            { freq: 2, nil: undefined },
          )
        : plausible(type, key).map((v) => [key, v] as const),
    );
  const extras = fc.oneof({ arbitrary: fc.constant([]), weight: 3 }, { arbitrary: noise(2), weight: 1 });
  return fc.tuple(fc.tuple(...fields), extras).map(([known, extra]) => ({
    type,
    ...Object.fromEntries(known.filter((f) => f !== undefined)),
    ...Object.fromEntries(extra),
  }));
});

const event = fc.oneof({ arbitrary: plausibleEvent, weight: 4 }, { arbitrary: hostileEvent, weight: 1 });

const anyInput = fc.oneof(event, fc.anything());

describe("enforceSchema — properties", () => {
  it("R-PROC-4: any input is forwarded valid, dropped with a warning, or fails with MALFORMED_EVENT — never another error", () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        let r;
        try {
          r = step(input, 3);
        } catch (error) {
          expect(isReasoningProtocolError(error)).toBe(true);
          if (isReasoningProtocolError(error)) expect([error.code, error.eventIndex]).toEqual(["MALFORMED_EVENT", 3]);
          return;
        }
        expect(r.out.length).toBeLessThanOrEqual(1);
        if (r.out.length === 0) expect(r.warnings.length).toBeGreaterThan(0);
        for (const out of r.out) expect(EventSchema.safeParse(out).success).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it("R-PROC-7: a forwarded event carries only described top-level keys, and feeding it back is quiet and returns the same object", () => {
    fc.assert(
      fc.property(event, (input) => {
        let r;
        try {
          r = step(input);
        } catch {
          return;
        }
        // The version warning is about the declaration, not the shape: it recurs, and strips nothing.
        const stripping = (ws: readonly { code: string }[]) => ws.filter((w) => w.code !== "PROTOCOL_VERSION");
        for (const out of r.out) {
          const described = shapes.get(out.type) ?? new Set<string>();
          for (const key of Object.keys(out)) expect(described.has(key)).toBe(true);
          const again = step(out);
          expect(stripping(again.warnings)).toEqual([]);
          expect(again.out[0]).toBe(out);
        }
        if (stripping(r.warnings).length === 0) for (const out of r.out) expect(out).toBe(input);
      }),
      { numRuns: 1500 },
    );
  });

  it("R-PROC-7: the source event is never mutated", () => {
    fc.assert(
      fc.property(event, (input) => {
        const before = structuredClone(input);
        try {
          step(input);
        } catch {
          // fine: the verdict is not what this property is about
        }
        expect(input).toEqual(before);
      }),
      { numRuns: 800 },
    );
  });

  it("D-REDACT: neither warnings nor error messages ever contain content (deltas, text, encrypted values)", () => {
    fc.assert(
      fc.property(event, (input) => {
        try {
          const r = step(input);
          expect(JSON.stringify(r.warnings)).not.toContain("§");
        } catch (error) {
          expect((error as Error).message).not.toContain("§");
        }
      }),
      { numRuns: 1500 },
    );
  });
});
