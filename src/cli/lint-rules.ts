/**
 * The check's lint rules: producer habits other consumers mishandle, each a non-lossy warning of
 * `WARNING_CODES` with its rule or decision id. The linter's, not the pipeline's (D-PATHS): none
 * changes what is delivered or held, so the facade, the operators and the middleware do not raise
 * them; each is silent on the real streams where it does not apply (test/integration/cli-lint.test.ts).
 * Table-driven: a rule sees the raw source events, the validated events and the end of the input.
 */
import type { Message } from "@ag-ui/core";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { catalogued } from "../core/warning-codes";
import { quotedId } from "../core/errors";
import { rawField } from "../core/json";

/** Where a rule reports: the source index being processed (read during the call only: the one context is reused), and the sink. */
interface LintContext {
  index: number;
  readonly warn: (warning: ReasoningWarning) => void;
}

/**
 * `type` is the event's (the raw event's `rawType`), read once for every rule: a property read per
 * rule and comparison was a fifth of the check's own time.
 */
interface LintRule {
  onSource?(raw: unknown, type: unknown, ctx: LintContext): void;
  onEvent?(event: AguiEvent, type: string, ctx: LintContext): void;
  onEnd?(ctx: LintContext): void;
}

/**
 * R-EVT-8: a message id is unique within its thread. A START naming a message an earlier run (or
 * the run input) holds reopens it: the new answer is appended to the old message (CopilotKit's
 * runtime names every turn's message "1"). So does a REASONING_MESSAGE_START naming a reasoning
 * message that holds an encrypted value, in any run: the value was issued for the text before, and
 * the next one replaces it (D-REPEAT) — the Vercel AI SDK adapter names every step's reasoning block
 * by its index ("0"), so a provider gets the joined text with the last step's signature back.
 */
function messageIdReused(initial: readonly Message[]): LintRule {
  const earlier = new Set<string>(initial.map((m) => m.id));
  // Messages a REASONING_ENCRYPTED_VALUE was stored on (subtype "message"), across runs.
  const valued = new Set<string>();
  let thisRun = new Set<string>();
  const reported = new Set<string>();
  return {
    onEvent(event, type, ctx) {
      if (type === "RUN_STARTED") {
        for (const id of thisRun) earlier.add(id);
        thisRun = new Set();
        reported.clear();
        return;
      }
      if (type === "REASONING_ENCRYPTED_VALUE") {
        if (event.subtype === "message" && typeof event.entityId === "string") valued.add(event.entityId);
        return;
      }
      if (type !== "TEXT_MESSAGE_START" && type !== "REASONING_MESSAGE_START") return;
      const id = event.messageId;
      if (typeof id !== "string") return;
      thisRun.add(id);
      const holdsValue = type === "REASONING_MESSAGE_START" && valued.has(id);
      if ((!earlier.has(id) && !holdsValue) || reported.has(id)) return;
      reported.add(id);
      ctx.warn(
        catalogued("MESSAGE_ID_REUSED", "R-EVT-8", {
          message: holdsValue
            ? `${type} names ${quotedId(id)}, a reasoning message that already holds an encrypted value: ` +
              "its content is appended to the old message, whose value was issued for the text before (the next value replaces it); give each reasoning block a fresh id"
            : `${type} names ${quotedId(id)}, a message an earlier run of the thread already holds: ` +
              "its content is appended to the old message; give each new message a fresh id",
          eventType: type,
          eventIndex: ctx.index,
          ids: [id],
        }),
      );
    },
  };
}

/**
 * R-REASON-20: a MESSAGES_SNAPSHOT replaces the messages it states. One that states reasoning
 * messages but not one streamed earlier in the same run drops it (this package's history and
 * `@ag-ui/client` keep reasoning only while a snapshot holds none). A snapshot without any reasoning
 * message is the usual case and is not flagged.
 */
function snapshotDropsReasoning(): LintRule {
  let streamed: string[] = [];
  return {
    onEvent(event, type, ctx) {
      if (type === "RUN_STARTED") streamed = [];
      else if (type === "REASONING_MESSAGE_START" && typeof event.messageId === "string")
        streamed.push(event.messageId);
      else if (type === "MESSAGES_SNAPSHOT" && Array.isArray(event.messages) && streamed.length > 0) {
        const messages = event.messages as readonly { id?: unknown; role?: unknown }[];
        const stated = new Set(messages.filter((m) => m.role === "reasoning").map((m) => m.id));
        if (stated.size === 0) return;
        const dropped = [...new Set(streamed)].filter((id) => !stated.has(id));
        if (dropped.length === 0) return;
        ctx.warn(
          catalogued("SNAPSHOT_DROPS_REASONING", "R-REASON-20", {
            message:
              `MESSAGES_SNAPSHOT states reasoning messages but not ${dropped.map(quotedId).join(", ")}, streamed earlier ` +
              "in this run: the history no longer holds it; restate the run's reasoning in the snapshot",
            eventType: type,
            eventIndex: ctx.index,
            ids: dropped,
          }),
        );
      }
    },
  };
}

/** Source types that open a reasoning message and on which a producer sometimes writes a `role`. */
const isRoleCarrier = (type: unknown): boolean =>
  type === "REASONING_MESSAGE_CHUNK" ||
  type === "THINKING_TEXT_MESSAGE_START" ||
  type === "THINKING_TEXT_MESSAGE_CHUNK";

/**
 * R-SCHEMA-2: a reasoning message's role is `reasoning`, required and fixed. On REASONING_MESSAGE_START another role
 * is fatal (MALFORMED_EVENT); a chunk or a 0.x THINKING_* opener has no role in the schema, so the
 * pipeline strips it, but a producer that writes `"role": "assistant"` there labels its reasoning
 * as the answer (and a 0.x-era consumer shows it so).
 */
function reasoningRole(): LintRule {
  return {
    onSource(raw, type, ctx) {
      if (!isRoleCarrier(type)) return;
      const role = rawField(raw, "role");
      if (typeof role !== "string" || role === "reasoning") return;
      const id = rawField(raw, "messageId");
      ctx.warn(
        catalogued("REASONING_ROLE", "R-SCHEMA-2", {
          message: `${String(type)} carries role ${quotedId(role)}: a reasoning message's role is "reasoning"`,
          eventType: String(type),
          eventIndex: ctx.index,
          ...(typeof id === "string" ? { ids: [id] } : {}),
        }),
      );
    },
  };
}

/**
 * D-DURATION: "thought for N s" is timed from the reasoning events' `timestamp`; without one it falls
 * back to arrival time, which a replay of the recording does not reproduce. Flagged where the
 * producer stamps the run's other events but none of its reasoning events (it can, and its reasoning
 * is timed differently from the rest); a producer that stamps nothing is not flagged — `timestamp` is
 * optional (R-EVT-3) and most real producers send none. Once per run, at its end.
 */
function reasoningWithoutTimestamp(): LintRule {
  let reasoningAt: number | undefined;
  let reasoningStamped = false;
  let otherStamped = false;
  const reset = (): void => {
    reasoningAt = undefined;
    reasoningStamped = false;
    otherStamped = false;
  };
  const report = (ctx: LintContext): void => {
    if (reasoningAt !== undefined && !reasoningStamped && otherStamped) {
      ctx.warn(
        catalogued("REASONING_WITHOUT_TIMESTAMP", "D-DURATION", {
          message:
            "the run's other events carry a timestamp, none of its reasoning events does: reasoning durations fall " +
            "back to arrival time (a replay times them differently); set timestamp on REASONING_* events too",
          eventType: "REASONING_START",
          eventIndex: reasoningAt,
        }),
      );
    }
    reset();
  };
  return {
    onSource(raw, type, ctx) {
      if (type === "RUN_STARTED") reset();
      const stamped = typeof rawField(raw, "timestamp") === "number";
      const reasoning =
        typeof type === "string" &&
        (type.startsWith("REASONING_") || type.startsWith("THINKING_")) &&
        type !== "REASONING_ENCRYPTED_VALUE";
      if (reasoning) {
        reasoningAt ??= ctx.index;
        reasoningStamped ||= stamped;
      } else otherStamped ||= stamped;
      if (type === "RUN_FINISHED" || type === "RUN_ERROR") report(ctx);
    },
    onEnd: report,
  };
}

/** Runs every lint rule of the check over one input. */
export class Linter {
  private readonly rules: readonly LintRule[];
  // The rules that have each hook, called without an optional call per rule and event.
  private readonly onSources: readonly NonNullable<LintRule["onSource"]>[];
  private readonly onEvents: readonly NonNullable<LintRule["onEvent"]>[];
  private readonly ctx: LintContext;
  constructor(initialMessages: readonly Message[], sink: (warning: ReasoningWarning) => void) {
    this.rules = [
      messageIdReused(initialMessages),
      snapshotDropsReasoning(),
      reasoningRole(),
      reasoningWithoutTimestamp(),
    ];
    this.onSources = this.rules.flatMap((r) => (r.onSource ? [r.onSource.bind(r)] : []));
    this.onEvents = this.rules.flatMap((r) => (r.onEvent ? [r.onEvent.bind(r)] : []));
    this.ctx = { index: 0, warn: sink };
  }

  /** A raw source event, its index and its `rawType`. */
  onSource(raw: unknown, index: number, type: unknown): void {
    this.ctx.index = index;
    const rules = this.onSources;
    for (let i = 0; i < rules.length; i++) rules[i]!(raw, type, this.ctx);
  }

  onEvent(event: AguiEvent): void {
    const type = event.type;
    const rules = this.onEvents;
    for (let i = 0; i < rules.length; i++) rules[i]!(event, type, this.ctx);
  }

  /** The input ended (after its last event, or at the failure). */
  end(): void {
    for (const rule of this.rules) rule.onEnd?.(this.ctx);
  }
}
