import { Observable, ReplaySubject, Subject, from, type ObservableInput } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import type { ReasoningWarning } from "../core/types";
import { warningSink } from "../core/warnings";
import type { ReasoningHistory, ValueIssuer } from "../history/types";
import { toRunInputMessages } from "../history/run-input";
import { heldDurations } from "../history/durations";
import { issuersOf } from "../history/issuers";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../pipeline/reasoning-pipeline";

export interface ReasoningMiddlewareOptions extends Omit<
  ReasoningPipelineOptions,
  "producer" | "initialMessages" | "initialHistory"
> {
  /** Identity of the agent this middleware is installed on (D-ISSUER), e.g. its URL or agentId. */
  readonly producer: string;
  /**
   * Where the conversation starts (restored from storage, or shared with another agent's pipeline).
   * Its issuer records decide which encrypted values may travel to `producer` (R-REASON-26).
   */
  readonly initialHistory?: ReasoningHistory;
  /** Called with every new history state, across runs. */
  readonly onHistory?: (history: ReasoningHistory) => void;
}

/** The agent the middleware chain hands over: only `run` is used. */
export interface NextAgent {
  run(input: RunAgentInput): unknown;
}

/**
 * A middleware function for `agent.use(...)`, carrying the history it derives.
 *
 * Its return type is deliberately loose: `@ag-ui/client` pins its own copy of rxjs, whose
 * `Observable` type does not accept another copy's even though both interoperate at runtime.
 */
export interface ReasoningMiddleware {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (input: RunAgentInput, next: NextAgent): any;
  /** Every history state of every run; the latest is replayed to a new subscriber. */
  readonly history$: Observable<ReasoningHistory>;
  /** Every warning of every run (pipeline warnings and withheld values). */
  readonly warnings$: Observable<ReasoningWarning>;
  /** The latest history; `options.initialHistory` (or `undefined`) before the first run. */
  readonly history: ReasoningHistory | undefined;
}

/**
 * `agent.use(reasoningMiddleware({ producer: url }))`: every run of the agent goes through the
 * reasoning pipeline, and the derived history is reachable through `onHistory`, `history$` or
 * `history`.
 *
 * Outgoing, the run input keeps an encrypted value only if this middleware has no record of another
 * producer issuing it (D-ISSUER): a value recorded for another producer is removed and reported
 * with a `VALUE_WITHHELD` warning. Values on messages it has never seen are what the application
 * chose to give this agent, and are attributed to it (as `initialMessages` are).
 *
 * Note the order inside `@ag-ui/client`: its own compatibility boundary runs closest to the wire,
 * so `THINKING_*` events arrive here already translated by it; and its enforcement, chunk expansion
 * and verification run again after this middleware, on events this pipeline already validated.
 */
export function reasoningMiddleware(options: ReasoningMiddlewareOptions): ReasoningMiddleware {
  const { onHistory, initialHistory, ...pipelineOptions } = options;
  const sink = warningSink(options);
  // History states across runs; replays the latest.
  const histories = new ReplaySubject<ReasoningHistory>(1);
  // Warnings across runs.
  const warnings = new Subject<ReasoningWarning>();
  // The latest history: what decides, on the next run, which values may go out.
  let latest: ReasoningHistory | undefined = initialHistory;
  if (latest) histories.next(latest);

  const report = (w: ReasoningWarning): void => {
    sink(w);
    warnings.next(w);
  };

  const run = (input: RunAgentInput, next: NextAgent): Observable<unknown> =>
    new Observable<unknown>((subscriber) => {
      const messages = outgoingMessages(input.messages, latest, options.producer, report);
      const pipeline = reasoningPipeline(from(next.run({ ...input, messages }) as ObservableInput<unknown>), {
        ...pipelineOptions,
        quiet: false,
        onWarning: report,
        // The run input's messages, their values the producer's (as initialMessages would have them),
        // and the durations earlier runs recorded for them (D-DURATION: they survive across runs).
        initialHistory: seedHistory(messages, latest, options.producer),
      });
      const history = pipeline.history$.subscribe((h) => {
        latest = h;
        histories.next(h);
        onHistory?.(h);
      });
      const events = pipeline.events$.subscribe(subscriber);
      return () => {
        events.unsubscribe();
        history.unsubscribe();
      };
    });

  return Object.defineProperties(run, {
    history$: { value: histories.asObservable(), enumerable: true },
    warnings$: { value: warnings.asObservable(), enumerable: true },
    history: { get: () => latest, enumerable: true },
  }) as ReasoningMiddleware;
}

/**
 * The run input's messages with every encrypted value recorded as issued by another producer
 * removed (one `VALUE_WITHHELD` warning). Values without a record are attributed to `producer`.
 */
function outgoingMessages(
  messages: readonly Message[] | undefined,
  known: ReasoningHistory | undefined,
  producer: string,
  onWarning: (w: ReasoningWarning) => void,
): Message[] {
  const list = Array.isArray(messages) ? messages : [];
  const recorded = new Map<string, ValueIssuer>();
  for (const issuer of known?.issuers ?? []) recorded.set(entityKey(issuer.subtype, issuer.entityId), issuer);
  const issuers: ValueIssuer[] = [];
  for (const [subtype, entityId] of valueCarriers(list)) {
    issuers.push(recorded.get(entityKey(subtype, entityId)) ?? { subtype, entityId, issuer: producer });
  }
  return toRunInputMessages({ messages: list, incomplete: [], issuers, durations: [] }, { producer, onWarning });
}

/** The history a run starts from: `messages` as `initialMessages` seeds them, plus their known durations. */
function seedHistory(
  messages: readonly Message[],
  known: ReasoningHistory | undefined,
  producer: string,
): ReasoningHistory {
  const issuers: ValueIssuer[] = [];
  for (const message of messages) issuersOf(message, producer, issuers);
  const ids = new Set(messages.map((m) => m.id));
  const durations = known?.durations === undefined ? [] : heldDurations(known.durations, ids);
  return { messages, incomplete: [], issuers, durations };
}

/** Every message and tool call in `messages` that carries an encrypted value. */
function* valueCarriers(messages: readonly Message[]): Generator<[ValueIssuer["subtype"], string]> {
  for (const m of messages) {
    if (typeof m !== "object" || m === null) continue;
    if (typeof (m as { encryptedValue?: unknown }).encryptedValue === "string") yield ["message", m.id];
    const calls = (m as { toolCalls?: unknown }).toolCalls;
    if (!Array.isArray(calls)) continue;
    for (const call of calls as Array<{ id?: unknown; encryptedValue?: unknown }>) {
      if (typeof call?.encryptedValue === "string" && typeof call.id === "string") yield ["tool-call", call.id];
    }
  }
}

const entityKey = (subtype: string, entityId: string): string => `${subtype}\u0000${entityId}`;
