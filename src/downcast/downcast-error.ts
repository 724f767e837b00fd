import { AGUIError } from "@ag-ui/core";
import { quotedId, wrongField } from "../core/errors";
import type { StepContext } from "../core/types";

/**
 * A valid 1.0 stream that the 0.x `THINKING_*` shapes cannot express. Not a protocol violation
 * (that is `ReasoningProtocolError`): the *older peer* lacks the means. Same fields, so it is
 * handled the same way.
 */
export class DowncastError extends AGUIError {
  readonly code = "NOT_REPRESENTABLE" as const;
  readonly rule: string;
  readonly eventIndex: number;
  readonly eventType: string;
  readonly ids: readonly string[];
  /** The event that could not be translated. Not enumerable, so logging the error does not print its content. */
  declare readonly event: unknown;

  constructor(
    rule: string,
    ctx: StepContext,
    eventType: string,
    ids: readonly string[],
    detail: string,
    event: unknown,
  ) {
    // As ReasoningProtocolError checks its init: a TypeError naming the argument, never a failure inside.
    const index = typeof ctx === "object" && ctx !== null ? (ctx as { index?: unknown }).index : undefined;
    const wrong = wrongField({ rule, eventIndex: index, eventType, ids: ids ?? null, detail });
    if (wrong !== undefined)
      throw new TypeError(
        `agui-reasoning: DowncastError(rule, ctx, eventType, ids, detail, event): \`${wrong === "eventIndex" ? "ctx.index" : wrong}\` is missing or wrong; rule, eventType and detail are strings, ctx.index a non-negative integer, ids an array of strings`,
      );
    const idText = ids.length > 0 ? ` [${ids.map(quotedId).join(", ")}]` : "";
    super(`NOT_REPRESENTABLE (${rule}) at event #${ctx.index} ${eventType}${idText}: ${detail}`);
    this.name = "DowncastError";
    this.rule = rule;
    this.eventIndex = ctx.index;
    this.eventType = eventType;
    this.ids = Object.freeze([...ids]);
    Object.defineProperty(this, "event", { value: event, enumerable: false });
    Object.setPrototypeOf(this, new.target.prototype);
  }
}
