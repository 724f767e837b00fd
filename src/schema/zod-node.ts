import { rawField } from "../core/json";

/**
 * A read-only structural view of a zod v4 schema (`schema._zod.def`, zod's documented surface for
 * library authors; `def.type` names the kind), limited to what the walker reads: independent of
 * zod's class identities, so `@ag-ui/core/schemas` works whichever zod copy built it.
 */
export interface ZodNode {
  readonly _zod: { readonly def: ZodDef };
  safeParse(value: unknown): { readonly success: boolean };
  /** zod v4 classic: without arguments, the metadata registered for this schema (e.g. `{ specOpen: true }`). */
  meta?: () => unknown;
}

export interface ZodDef {
  readonly type: string;
  /** object */
  readonly shape?: Readonly<Record<string, ZodNode>>;
  /** array (element), record (valueType) */
  readonly element?: ZodNode;
  readonly valueType?: ZodNode;
  /** union / discriminatedUnion */
  readonly options?: readonly ZodNode[];
  readonly discriminator?: string;
  /** enum */
  readonly entries?: Readonly<Record<string, string | number>>;
  /** literal */
  readonly values?: readonly unknown[];
  /** optional, nullable, default, prefault, readonly, catch, nonoptional */
  readonly innerType?: ZodNode;
  /** pipe (transform chains): the input side is what arrives on the wire */
  readonly in?: ZodNode;
  /** lazy */
  readonly getter?: () => ZodNode;
}

/** Wrapper kinds whose inner schema describes the wire value. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The schema that describes the wire value, with optional/nullable/default/pipe/lazy wrappers removed. */
export function unwrap(schema: ZodNode): ZodNode {
  let node = schema;
  for (let guard = 0; guard < 64; guard++) {
    const def = node._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) node = def.innerType;
    else if (def.type === "pipe" && def.in) node = def.in;
    else if (def.type === "lazy" && def.getter) node = def.getter();
    else return node;
  }
  return node;
}

/** An object schema the spec leaves open (JSON Patch operations carry `.meta({ specOpen: true })`). */
export function isSpecOpen(schema: ZodNode): boolean {
  const meta = typeof schema.meta === "function" ? schema.meta() : undefined;
  return rawField(meta, "specOpen") === true;
}

/** The string values a literal or enum schema admits (after unwrapping); `undefined` for other kinds. */
export function stringValues(schema: ZodNode): readonly string[] | undefined {
  const def = unwrap(schema)._zod.def;
  if (def.type === "literal" && def.values) return def.values.filter((v): v is string => typeof v === "string");
  if (def.type === "enum" && def.entries) {
    return Object.values(def.entries).filter((v): v is string => typeof v === "string");
  }
  return undefined;
}

/** A field is optional when its schema accepts `undefined` (optional, default, …). */
export function acceptsAbsent(schema: ZodNode): boolean {
  return schema.safeParse(undefined).success;
}

/** The zod schemas of `@ag-ui/core/schemas` viewed as nodes (one cast, here). */
export function asNode(schema: unknown): ZodNode {
  return schema as ZodNode;
}
