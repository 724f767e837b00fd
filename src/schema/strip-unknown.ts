import { isPlainObject, itemAt, lengthOf, setOwn } from "../core/json";
import type { ShortenedLists } from "../core/source-pointer";
import { toPointer } from "./json-pointer";
import type { ArrayPlan, ChoicePlan, EnumPlan, ObjectPlan, Plan, RecordPlan, VariantPlan } from "./schema-plan";

/** The value that stood here was removed (an unrecognised member in a required position, R-PROC-11). */
export const REMOVED: unique symbol = Symbol("agui-reasoning.removed");

/** One thing the walk removed or converted, for a warning. Paths are JSON pointers (never values, D-REDACT). */
export interface StripNote {
  readonly kind: "stripped-property" | "unknown-member" | "null-tolerated";
  /** Where the property, member or `null` was. */
  readonly path: string;
  /** For `unknown-member`: the value removed because of it — the member itself, its containing value, or `""` (the whole event). */
  readonly removedPath?: string;
}

export interface Stripped {
  /** The value minus unrecognised material, or `REMOVED` when the value itself had to go. */
  readonly value: unknown;
  readonly notes: readonly StripNote[];
  /** The lists that lost an element, by their pointer in `value`: the index of each element kept (D-EVENT-INDEX). */
  readonly shortened?: ShortenedLists;
}

/**
 * Removes unrecognised material from `value` as `plan` describes (R-PROC-2/3/6/7/8/11, R-DEP-6):
 * undescribed keys of closed objects, unrecognised union members (the field when optional, the
 * containing value when required, the element inside a list) and registry-tolerated `null`s.
 * `undefined` when nothing is removed (the common case); else only the path to each change is
 * copied. Values of the wrong shape are left for zod to judge.
 */
export function stripUnknown(value: unknown, plan: Plan): Stripped | undefined {
  const walk = new Walk();
  const stripped = walk.value(value, plan);
  if (stripped === REMOVED) walk.absorbRemoval(0);
  // Every change leaves a note, so no note means the value came back as it was.
  if (walk.notes.length === 0) return undefined;
  return { value: stripped, notes: walk.notes, shortened: walk.shortened };
}

/** One walk over one value: the current path and what was removed so far. */
class Walk {
  /** Segments from the root to the value being walked. */
  readonly path: Array<string | number> = [];
  readonly notes: StripNote[] = [];
  /** The lists that lost an element so far (made at the first). */
  shortened: Map<string, number[]> | undefined;
  /** Pointer of the unrecognised member whose removal is bubbling up to an optional field, a list element or the root. */
  private member = "";

  value(value: unknown, plan: Plan): unknown {
    switch (plan.kind) {
      case "object":
        return this.object(value, plan);
      case "array":
        return this.array(value, plan);
      case "record":
        return this.record(value, plan);
      case "variant":
        return this.variant(value, plan);
      case "enum":
        return this.enumeration(value, plan);
      case "choice": {
        const branch = choose(value, plan);
        return branch === null ? value : this.value(value, branch);
      }
    }
  }

  /**
   * The removal of `this.member` stops here (optional field, list element, or root): what was noted
   * inside the removed value no longer applies, so it is replaced by one note for the removal.
   */
  absorbRemoval(mark: number): void {
    this.notes.length = mark;
    this.notes.push({ kind: "unknown-member", path: this.member, removedPath: toPointer(this.path) });
  }

  private object(value: unknown, plan: ObjectPlan): unknown {
    if (!isPlainObject(value)) return value;
    // Copy-on-write: created at the first key that changes.
    let out: Record<string, unknown> | undefined;
    for (const key in value) {
      const v = value[key];
      const field = plan.fields.get(key);
      if (field === undefined && plan.open) {
        if (out) setOwn(out, key, v);
        continue;
      }
      if (field === undefined || (v === null && field.nullTolerated)) {
        this.note(field === undefined ? "stripped-property" : "null-tolerated", key);
        out ??= copyBefore(value, key);
        continue;
      }
      let next = v;
      if (field.plan !== null) {
        const mark = this.notes.length;
        this.path.push(key);
        next = this.value(v, field.plan);
        if (next === REMOVED) {
          if (!field.optional) {
            this.path.pop();
            return REMOVED;
          }
          this.absorbRemoval(mark);
        }
        this.path.pop();
        if (next === REMOVED) {
          out ??= copyBefore(value, key);
          continue;
        }
      }
      if (next !== v) out ??= copyBefore(value, key);
      if (out) setOwn(out, key, next);
    }
    return out ?? value;
  }

  private array(value: unknown, plan: ArrayPlan): unknown {
    if (!Array.isArray(value)) return value;
    // Copy-on-write: created at the first element that changes or goes; `kept` at the first that goes.
    let out: unknown[] | undefined;
    let kept: number[] | undefined;
    // Its length read once, and bounded (`lengthOf`); a hole ends the walk (and the event): zod would
    // otherwise judge each of the 2³²−1 slots a sparse array claims, or a proxy claims with no hole.
    for (let i = 0, n = lengthOf(value); i < n; i++) {
      const v = itemAt(value, i);
      if (plan.element === null) continue;
      const mark = this.notes.length;
      this.path.push(i);
      const next = this.value(v, plan.element);
      if (next === REMOVED) this.absorbRemoval(mark);
      this.path.pop();
      if (next !== v) out ??= value.slice(0, i);
      if (next === REMOVED) kept ??= Array.from({ length: i }, (_, k) => k);
      else {
        out?.push(next);
        kept?.push(i);
      }
    }
    if (kept !== undefined) (this.shortened ??= new Map()).set(toPointer(this.path), kept);
    return out ?? value;
  }

  private record(value: unknown, plan: RecordPlan): unknown {
    if (!isPlainObject(value)) return value;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const v = value[key];
      const mark = this.notes.length;
      this.path.push(key);
      const next = this.value(v, plan.value);
      if (next === REMOVED) this.absorbRemoval(mark);
      this.path.pop();
      if (next !== v) out ??= copyBefore(value, key);
      if (out && next !== REMOVED) setOwn(out, key, next);
    }
    return out ?? value;
  }

  private variant(value: unknown, plan: VariantPlan): unknown {
    if (!isPlainObject(value)) return value;
    const tag = value[plan.discriminator];
    // Missing or non-string: a malformed value, not a newer member — zod rejects it (R-REASON-23).
    if (typeof tag !== "string") return value;
    if (!plan.options.has(tag)) return this.unknownMember();
    const option = plan.options.get(tag) ?? null;
    return option === null ? value : this.value(value, option);
  }

  private enumeration(value: unknown, plan: EnumPlan): unknown {
    return typeof value === "string" && !plan.values.has(value) ? this.unknownMember() : value;
  }

  private unknownMember(): typeof REMOVED {
    this.member = toPointer(this.path);
    return REMOVED;
  }

  private note(kind: "stripped-property" | "null-tolerated", key: string): void {
    this.path.push(key);
    this.notes.push({ kind, path: toPointer(this.path) });
    this.path.pop();
  }
}

/** The branch of a plain union that matches the value's JSON kind, if any. */
function choose(value: unknown, plan: ChoicePlan): Plan | null {
  if (Array.isArray(value)) return plan.array;
  return isPlainObject(value) ? plan.object : null;
}

/** A new object with the keys that precede `stop` (all kept unchanged so far). */
function copyBefore(value: Record<string, unknown>, stop: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (key === stop) break;
    setOwn(out, key, value[key]);
  }
  return out;
}
