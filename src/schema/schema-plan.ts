import { toleratedNulls } from "./null-tolerances";
import { acceptsAbsent, isSpecOpen, stringValues, unwrap, type ZodNode } from "./zod-node";

/**
 * What the walker must do with a value, compiled once from a zod schema.
 *
 * zod stays the authority on validity; a plan only knows what zod cannot tell us: which keys an
 * object describes (all AG-UI objects are `z.looseObject`, so zod keeps unknown keys), where a
 * closed set of members (discriminated union, enum) may meet a member from a newer version, and
 * which `null`s the deprecation registry tolerates. `null` as a plan means "nothing below here
 * can be stripped": the value is left to zod alone.
 */
export type Plan = ObjectPlan | ArrayPlan | RecordPlan | VariantPlan | EnumPlan | ChoicePlan;

export interface FieldPlan {
  /** How to walk the field's value; `null` when there is nothing to strip inside it. */
  readonly plan: Plan | null;
  /** The field may be absent, so an unrecognised member there removes only the field (R-PROC-11). */
  readonly optional: boolean;
  /** A whole-field `null` here is converted to absent with a warning (R-DEP-6). */
  readonly nullTolerated: boolean;
}

/** An object: closed objects lose undescribed keys (R-PROC-2); open ones keep them (R-PROC-8). */
export interface ObjectPlan {
  readonly kind: "object";
  readonly open: boolean;
  /** Every described key, including those with nothing to walk. */
  readonly fields: ReadonlyMap<string, FieldPlan>;
}

/**
 * A list. Walked even when its elements hold nothing to strip (`element` null), for its holes: zod would
 * judge each of the 2³²−1 slots a sparse array claims (`itemAt`).
 */
export interface ArrayPlan {
  readonly kind: "array";
  readonly element: Plan | null;
}

export interface RecordPlan {
  readonly kind: "record";
  readonly value: Plan;
}

/** A discriminated union: a string discriminator naming no option is an unrecognised member (R-PROC-3). */
export interface VariantPlan {
  readonly kind: "variant";
  readonly discriminator: string;
  readonly options: ReadonlyMap<string, Plan | null>;
}

/** A closed string set (`z.enum`, multi-valued literal): another string is an unrecognised member. */
export interface EnumPlan {
  readonly kind: "enum";
  readonly values: ReadonlySet<string>;
}

/** A plain union (e.g. `string | ContentPart[]`): the walk follows the option matching the value's JSON kind. */
export interface ChoicePlan {
  readonly kind: "choice";
  readonly array: Plan | null;
  readonly object: Plan | null;
}

/** A described field with nothing to walk (shared: most fields are plain scalars). */
const LEAF_FIELD: FieldPlan = Object.freeze({ plan: null, optional: true, nullTolerated: false });

// Compiled plans by schema; also breaks cycles through z.lazy.
const compiled = new WeakMap<ZodNode, Plan | null>();

/** The plan of one event schema (an option of `EventSchema`): like any object, plus `rawEvent: null` (R-DEP-6). */
export function compileEventPlan(schema: ZodNode): ObjectPlan {
  const node = unwrap(schema);
  return compileObject(node, true) ?? { kind: "object", open: false, fields: new Map() };
}

/** The plan of any schema; `null` when nothing inside it can be stripped. */
export function compilePlan(schema: ZodNode): Plan | null {
  const node = unwrap(schema);
  if (compiled.has(node)) return compiled.get(node) ?? null;
  const def = node._zod.def;
  switch (def.type) {
    case "object":
      return compileObject(node, false);
    case "array":
      return remember(node, { kind: "array", element: def.element ? compilePlan(def.element) : null });
    case "record": {
      const value = def.valueType ? compilePlan(def.valueType) : null;
      return remember(node, value === null ? null : { kind: "record", value });
    }
    case "union":
      return remember(
        node,
        typeof def.discriminator === "string" ? compileVariant(node, def.discriminator) : compileChoice(node),
      );
    case "enum":
    case "literal":
      return remember(node, compileEnum(node));
    default:
      // Scalars, any/unknown, z.custom (metadata, activity content): open or leaf — zod alone judges them.
      return remember(node, null);
  }
}

function remember(node: ZodNode, plan: Plan | null): Plan | null {
  compiled.set(node, plan);
  return plan;
}

function compileObject(node: ZodNode, isEvent: boolean): ObjectPlan | null {
  const fields = new Map<string, FieldPlan>();
  const plan: ObjectPlan = { kind: "object", open: isSpecOpen(node), fields };
  if (!isEvent) compiled.set(node, plan);
  const tolerated = toleratedNulls(node, isEvent);
  let walksAnything = !plan.open;
  for (const [key, field] of Object.entries(node._zod.def.shape ?? {})) {
    const inner = compilePlan(field);
    const nullTolerated = tolerated.has(key);
    if (inner === null && !nullTolerated) {
      fields.set(key, LEAF_FIELD);
      continue;
    }
    walksAnything = true;
    fields.set(key, { plan: inner, optional: acceptsAbsent(field), nullTolerated });
  }
  if (walksAnything) return plan;
  // An open object with only scalar fields: nothing to do below it.
  if (!isEvent) compiled.set(node, null);
  return null;
}

function compileVariant(node: ZodNode, discriminator: string): VariantPlan {
  const options = new Map<string, Plan | null>();
  for (const [value, option] of variantOptions(node, discriminator)) options.set(value, compilePlan(option));
  return { kind: "variant", discriminator, options };
}

/** (discriminator value, option schema) pairs, flattening nested discriminated unions. */
export function variantOptions(node: ZodNode, discriminator: string): Array<readonly [string, ZodNode]> {
  const pairs: Array<readonly [string, ZodNode]> = [];
  for (const option of node._zod.def.options ?? []) {
    const inner = unwrap(option);
    const def = inner._zod.def;
    if (def.type === "union") {
      pairs.push(...variantOptions(inner, discriminator));
      continue;
    }
    const tag = def.shape?.[discriminator];
    for (const value of tag ? (stringValues(tag) ?? []) : []) pairs.push([value, inner]);
  }
  return pairs;
}

/** Routes by JSON kind; a kind claimed by two options is left to zod (no unambiguous walk). */
function compileChoice(node: ZodNode): ChoicePlan | null {
  let array: Plan | null | undefined;
  let object: Plan | null | undefined;
  let arrays = 0;
  let objects = 0;
  for (const option of node._zod.def.options ?? []) {
    const type = unwrap(option)._zod.def.type;
    if (type === "array") {
      arrays++;
      array = compilePlan(option);
    } else if (type === "object" || type === "union" || type === "record") {
      objects++;
      object = compilePlan(option);
    }
  }
  const arrayPlan = arrays === 1 ? (array ?? null) : null;
  const objectPlan = objects === 1 ? (object ?? null) : null;
  return arrayPlan === null && objectPlan === null ? null : { kind: "choice", array: arrayPlan, object: objectPlan };
}

/** A closed set of two or more strings; a single-valued literal is a constant (mismatch is malformed). */
function compileEnum(node: ZodNode): EnumPlan | null {
  const values = stringValues(node);
  return values !== undefined && values.length > 1 ? { kind: "enum", values: new Set(values) } : null;
}
