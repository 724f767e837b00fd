import { listProblem, optionsOf } from "../core/arguments";
import { ERROR_CODES } from "../core/errors";
import { WARNING_CODES } from "../core/warning-codes";
import { jsonType } from "../core/json";

/**
 * The kit's own arguments, checked where TypeScript did not check them (JavaScript, `any`): a wrong
 * one is a `TypeError` naming the kit function and what is wrong, never a failure from inside it, a
 * hang over a sparse list's claimed 2³²−1 slots, or a message quoting the argument (D-REDACT).
 */

/** `agui-reasoning/testing: ${message}`: the message names the kit function first. */
export function kitError(message: string): TypeError {
  return new TypeError(`agui-reasoning/testing: ${message}`);
}

/**
 * An object argument (options, expected fields, extra fields) read once, now, into a plain copy, as
 * the package's `optionsOf` reads options (`{}` when absent): anything but an object (an array too),
 * or one a read of which throws, is a `TypeError` naming the property, never what was thrown.
 */
export function objectArgument<T extends object>(value: T | undefined, caller: string, what: string): T {
  const named = `agui-reasoning/testing: ${caller}'s ${what}`;
  if (holds(value, Array.isArray)) throw new TypeError(`${named} must be an object`);
  return optionsOf(value, caller, named);
}

/**
 * A list argument: an array with no hole (each entry a message, for `kind: "message"`), else a
 * `TypeError` saying which entry is wrong (`agui-reasoning/testing: MockAgent.setMessages: messages[1] …`).
 * Returns its entries as read (`listProblem`), a new array: read it instead of `value`.
 */
export function listArgument<T>(
  value: readonly T[],
  caller: string,
  what: string,
  kind: "any" | "message",
): readonly T[] {
  const read: { items?: unknown[] } = {};
  const problem = listProblem(value, what, kind, read);
  if (problem !== undefined) throw kitError(`${caller}: ${problem}`);
  return read.items as T[];
}

/** A string argument (a prefix): anything else is a `TypeError` (a sparse array's text is 2³²−1 commas). */
export function stringArgument(value: string, caller: string, what: string): string {
  if (typeof value !== "string") throw kitError(`${caller}'s ${what} must be a string`);
  return value;
}

const CATALOGUES = { ERROR_CODES, WARNING_CODES };

/**
 * A code argument: a code of `catalogue` (`ERROR_CODES` for a failure, `WARNING_CODES` for a warning),
 * else a `TypeError` naming `caller` and the code given. A misspelt code would make a test that can
 * never pass, or with `.not` one that can never fail: refused both ways.
 */
export function codeArgument(value: unknown, caller: string, catalogue: keyof typeof CATALOGUES): string {
  if (typeof value === "string" && Object.hasOwn(CATALOGUES[catalogue], value)) return value;
  const shown = typeof value === "string" ? JSON.stringify(value) : `(${described(value)})`;
  throw kitError(`${caller}'s code ${shown} is not one of ${catalogue}`);
}

/** What `value` is, for a message: "null", "an array", "an object", "a number"…, never what it holds. */
export function described(value: unknown): string {
  let type: string;
  try {
    type = jsonType(value);
  } catch {
    return "a value that cannot be read"; // a revoked proxy
  }
  if (type === "null" || type === "undefined") return type;
  return type === "array" || type === "object" ? `an ${type}` : `a ${type}`;
}

/** Whether `test(value)` holds, a read that throws (a getter, a revoked proxy) counting as not. */
export function holds<T>(value: T, test: (value: T) => boolean): boolean {
  try {
    return test(value);
  } catch {
    return false;
  }
}
