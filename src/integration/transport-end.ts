import { EMPTY, catchError, concat, defer, from, tap, throwError, type Observable, type ObservableInput } from "rxjs";
import { isReasoningProtocolError } from "../core/errors";
import { rawField, rawType } from "../core/json";
import { plural } from "../core/plural";
import type { ReasoningWarning } from "../core/types";
import { catalogued } from "../core/warning-codes";
import { endsRun } from "../pipeline/paced-publisher";

/**
 * A connection failing after the response started (a reset, a proxy timeout: what `fetch` rejects
 * with, a `TypeError`) is the end of the stream (R-TRANS-2; `check --url` says the same, D-PATHS):
 *
 * - a run was open: the stream ends as a response cut mid-run does (`RUN_TRUNCATED`, what was open
 *   listed as truncated, D-TRUNC; `exportState()` can continue it);
 * - a run had ended and none is open: it completes — the run delivered all it had;
 * - both with a lossy `CONNECTION_BROKEN` warning to `warn` (what followed is lost);
 * - no run seen: a `TransportError` naming the endpoint — a completion would report it a success;
 *   so is a reply that ends without any event (an empty body, JSON where SSE was expected: the
 *   client reads no frame from it), which `check --url` refuses as well;
 * - the client's own reports that quote what it received (`HTTP 422: <body>`, a `JSON.parse` message
 *   quoting an event) are replaced by ones that do not (`redactedClientError`, D-REDACT);
 * - any other error (a protocol error, the agent's own) passes unchanged.
 *
 * It also contains the rejection the failure raises: `@ag-ui/client` 1.0's reader teardown runs
 * `reader.cancel().catch((e) => { if (e?.name !== "AbortError") throw e })`, and `cancel()` rejects
 * with the very error the stream failed with, rethrown where nobody catches it (it ends a Node
 * service). So the error is named `AbortError` for that moment (an own property, removed on the next
 * macrotask), and the teardown lets it go as it lets an abort go.
 */
export function endedTransport(
  source: ObservableInput<unknown>,
  endpoint: string,
  warn: (warning: ReasoningWarning) => void,
): Observable<unknown> {
  return defer(() => {
    // Whether a run is open, and whether one ended: what decides between an end and a transport error.
    let runOpen = false;
    let runEnded = false;
    let events = 0;
    const transported = from(source).pipe(
      tap((event) => {
        events++;
        if (rawType(event) === "RUN_STARTED") runOpen = true;
        else if (endsRun(event)) {
          runOpen = false;
          runEnded = true;
        }
      }),
      catchError((error: unknown) => {
        if (!isTransportFailure(error)) throw redactedClientError(error, endpoint);
        // Named before `letTeardownGo` renames the failure.
        const failure = runOpen || runEnded ? undefined : new TransportError(endpoint, error);
        const broken = failure === undefined ? connectionBroken(events, kindOf(error)) : undefined;
        letTeardownGo(error);
        if (failure !== undefined) return throwError(() => failure);
        warn(broken!);
        return EMPTY;
      }),
    );
    // A reply that ended without any event (a failure without a run was raised above): no run came.
    const noRun = defer(() => (events === 0 ? throwError(() => new TransportError(endpoint)) : EMPTY));
    return concat(transported, noRun);
  });
}

/**
 * `@ag-ui/client` 1.0 reports an HTTP error as `Error("HTTP <status>: <body>")` and an event that is
 * not JSON with `JSON.parse`'s `SyntaxError` (also an event the reply ended inside: the client parses
 * it, where SSE would drop it; which of the two it was, the error does not tell). Both quote what the
 * agent sent, and a body (a FastAPI 422 echoes the request) or a frame may hold reasoning text and
 * encrypted values. Such an error is
 * replaced by one of the same class naming the endpoint, the status and the body's size, never its
 * text, and without the original as `cause` (Node prints a cause's message too). Others pass as they are.
 */
function redactedClientError(error: unknown, endpoint: string): unknown {
  if (!(error instanceof Error)) return error;
  const http = /^HTTP (\d{3}): /.exec(error.message);
  if (http !== null && error.constructor === Error) {
    const size = plural(error.message.length - http[0].length, "character");
    return new Error(
      `agui-reasoning: ${endpoint} answered HTTP ${http[1]!}; its body (${size}) is not shown, as it may quote the conversation`,
    );
  }
  if (error instanceof SyntaxError) {
    return new SyntaxError(
      `agui-reasoning: the stream from ${endpoint} holds an event that is not valid JSON, or ended inside one (the parser's message is not shown: it quotes the event)`,
    );
  }
  return error;
}

/**
 * No run came from an agent: the connection failed after its response started while no run was open
 * (`cause`: the failure), or the reply ended without any event (no `cause`). Its message names the
 * endpoint and the failure's kind (its name and code), never the failure's own message, which may
 * quote what the stream carried (D-REDACT).
 */
export class TransportError extends Error {
  override readonly name = "TransportError";

  constructor(
    readonly endpoint: string,
    cause?: TypeError,
  ) {
    super(
      cause === undefined
        ? `agui-reasoning: the reply from ${endpoint} ended without any event (no run came): ` +
            "a reply without a run is not a success"
        : `agui-reasoning: the connection to ${endpoint} failed (${kindOf(cause)}) while no run was open; ` +
            "a stream that ends without its own end is not a success",
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * CONNECTION_BROKEN (R-TRANS-2): the connection broke after `events` source events; `detail` says how
 * (a kind or code, never what the stream carried). `shownEvents`: the count as the caller writes it.
 * The library and `agui-reasoning check --url` give the same warning (D-PATHS).
 */
export function connectionBroken(events: number, detail: string, shownEvents = String(events)): ReasoningWarning {
  return catalogued("CONNECTION_BROKEN", "R-TRANS-2", {
    message: `the connection broke after ${plural(events, "event", shownEvents)} (${detail}): the stream ends there, and what followed is lost`,
    eventType: "<end of stream>",
    eventIndex: events,
  });
}

/** `TypeError, ECONNRESET`: what kind of failure, without its message. */
function kindOf(error: TypeError): string {
  // Whatever a caller built the error with (`new TransportError(url, null)`): its kind, or "unknown".
  // Not `instanceof Error`: fetch's errors may come from another realm.
  if (typeof error !== "object" || error === null || typeof error.name !== "string") return "unknown";
  const code = (error.cause as { code?: unknown } | null | undefined)?.code ?? (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.name}, ${code}` : error.name;
}

/**
 * A `TypeError`, by name rather than `instanceof`: the one `fetch` rejects with comes from the
 * runtime's own realm (under jest, or from another frame, `instanceof TypeError` is false).
 */
function isTransportFailure(error: unknown): error is TypeError {
  return !isReasoningProtocolError(error) && rawField(error, "name") === "TypeError";
}

function letTeardownGo(error: TypeError): void {
  if (Object.hasOwn(error, "name")) return;
  try {
    Object.defineProperty(error, "name", { value: "AbortError", configurable: true });
  } catch {
    return; // A frozen error: nothing to do.
  }
  setTimeout(() => delete (error as { name?: string }).name, 0);
}
