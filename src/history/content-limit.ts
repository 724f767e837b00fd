import type { AguiEvent, StepContext } from "../core/types";
import { protocolError } from "../core/errors";

/**
 * The `maxContentLength` bound (D-LIMIT): one message's content, or one tool call's arguments, may
 * hold at most this many UTF-16 code units. Why a bound of our own: past the engine's string limit
 * (2^29 − 24 units in V8) an append throws a `RangeError` — or, inside a builder that joins later,
 * loses the delta silently. 2^28 is below every engine's limit, and far above any real message.
 */
export const DEFAULT_MAX_CONTENT_LENGTH = 2 ** 28;

/**
 * The largest bound accepted: V8's string limit (2^29 − 24 code units), the lowest of the engines
 * (SpiderMonkey 2^30 − 2, JavaScriptCore 2^31 − 1). No `Infinity`: past the engine's limit the
 * append would throw a `RangeError` again.
 */
export const MAX_CONTENT_LENGTH_BOUND = 2 ** 29 - 24;

/** The option, checked at creation: an integer from 0 to `MAX_CONTENT_LENGTH_BOUND` (a `RangeError` otherwise, like `maxOpenItems`). */
export function maxContentLengthOf(option: unknown, operator: string): number {
  const bound = option ?? DEFAULT_MAX_CONTENT_LENGTH;
  if (typeof bound !== "number" || !Number.isInteger(bound) || bound < 0 || bound > MAX_CONTENT_LENGTH_BOUND) {
    throw new RangeError(
      `${operator}: maxContentLength must be an integer from 0 to ${MAX_CONTENT_LENGTH_BOUND} (the engine's string limit; got ${typeof bound === "number" ? String(bound) : typeof bound}).`,
    );
  }
  return bound;
}

/** Whether appending `added` units to `held` units stays within `bound` (no string is built to find out). */
export function fitsContentLength(held: number, added: number, bound: number): boolean {
  return added <= bound - held;
}

/**
 * The LIMIT_EXCEEDED for a delta that would take `what` (its id `id`) past `bound`. Names lengths
 * only, never text (D-REDACT); nothing is appended or shortened.
 */
export function contentLimitExceeded(
  event: AguiEvent,
  ctx: StepContext,
  what: string,
  id: string,
  held: number,
  added: number,
  bound: number,
): Error {
  return protocolError(
    "LIMIT_EXCEEDED",
    "D-LIMIT",
    event,
    ctx,
    [id],
    `appending ${added} UTF-16 code units to the ${what} (holding ${held}) would exceed maxContentLength (${bound}); nothing was appended`,
  );
}
