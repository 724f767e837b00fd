import {
  concat,
  defer,
  EMPTY,
  from,
  fromEvent,
  isObservable,
  of,
  takeUntil,
  tap,
  throwError,
  type Observable,
  type Subscription,
} from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../pipeline/reasoning-pipeline";
import { lengthOf, rawField } from "../core/json";
import { holds, kitError, listArgument, objectArgument } from "./arguments";
import { TEST_PRODUCER } from "./run-pipeline";

/** The events of one run: an array, an Observable (e.g. a marble `cold(…)`), or built from the input. */
export type AgentTurn =
  readonly unknown[] | Observable<unknown> | ((input: RunAgentInput) => readonly unknown[] | Observable<unknown>);

/** One turn per `run()` call, in order; or one function answering every call (`run` counts from 1). */
export type AgentScript =
  readonly AgentTurn[] | ((input: RunAgentInput, run: number) => readonly unknown[] | Observable<unknown>);

/** The agent a middleware hands the input on to (what `@ag-ui/client` passes as `next`). */
export interface MockNextAgent {
  run(input: RunAgentInput): Observable<AguiEvent>;
  readonly messages: Message[];
  readonly state: unknown;
}

/** `@ag-ui/client` middleware, in either of its two forms (a `Middleware` object or a function). */
export type AgentMiddleware =
  | ((input: RunAgentInput, next: MockNextAgent) => unknown)
  | { run(input: RunAgentInput, next: MockNextAgent): unknown };

/** What happened to one `run()` call. */
export interface MockRun {
  /** The input exactly as `run` received it (after any middleware): what would have been sent. */
  readonly input: RunAgentInput;
  /** `pending` until subscribed; `unsubscribed` when torn down before its scripted stream ended. */
  readonly status: "pending" | "running" | "completed" | "errored" | "unsubscribed";
}

export interface MockAgentOptions {
  /** Stands for the agent's endpoint; also the `producer` identity `runAgent` uses (D-ISSUER). */
  readonly url?: string;
  readonly agentId?: string;
  readonly threadId?: string;
  readonly description?: string;
  readonly initialMessages?: readonly Message[];
  readonly initialState?: unknown;
  /** Extra options for the pipeline `runAgent` applies events with. */
  readonly pipeline?: ReasoningPipelineOptions;
}

/** Parameters of `runAgent`, as for `AbstractAgent.runAgent`. */
export interface MockRunParameters {
  readonly runId?: string;
  readonly tools?: RunAgentInput["tools"];
  readonly context?: RunAgentInput["context"];
  readonly forwardedProps?: unknown;
}

/**
 * `source` until `signal` aborts; then, as `@ag-ui/client` 1.0's HTTP transport reports a fetch it
 * aborted, a `RUN_ERROR` with `code: "abort"`, and the end. With `signal` aborted before the
 * subscription the fetch never starts: the error is the abort's reason (an `AbortError`), and the
 * script does not start either.
 */
function abortable(source: Observable<unknown>, signal: AbortSignal): Observable<unknown> {
  return defer(() =>
    signal.aborted
      ? // eslint-disable-next-line rxjs-x/throw-error -- the abort's reason, passed on as fetch rejects with it
        throwError(() => signal.reason as unknown)
      : concat(
          source.pipe(takeUntil(fromEvent(signal, "abort"))),
          defer(() => (signal.aborted ? of({ type: "RUN_ERROR", message: "Request aborted", code: "abort" }) : EMPTY)),
        ),
  );
}

/**
 * A scripted stand-in for an `HttpAgent` / `AbstractAgent`, in the spirit of NgRx's
 * `provideMockActions`: hand it to code that runs an agent, and assert on what that code sent.
 *
 * - `run(input)` records `input` and returns the next scripted turn as a cold Observable;
 *   a call beyond the script errors (it never hangs).
 * - `use(...middlewares)` installs `@ag-ui/client`-style middleware (first = outermost), which
 *   `runAgent` applies, as `AbstractAgent` does.
 * - `runAgent(parameters)` builds the input from `threadId`, `messages` (activity messages left out)
 *   and `state`, runs it through the middleware and this package's pipeline, and updates `messages`
 *   from the derived history (warnings are collected in `warnings`, not printed).
 *
 * It is a structural look-alike (no `@ag-ui/client` dependency): where a parameter is typed as
 * `HttpAgent`, pass `agent.as<HttpAgent>()`.
 */
export class MockAgent {
  agentId: string | undefined;
  description: string;
  threadId: string;
  /** Stands for the endpoint; the producer identity of `runAgent`. */
  url: string;
  headers: Record<string, string> = {};
  messages: Message[];
  state: unknown;
  isRunning = false;
  /** Replaced per `runAgent`, aborted by `abortRun()` (as `HttpAgent` does). */
  abortController = new AbortController();
  /** Every `run()` call in order. */
  readonly runs: MockRun[] = [];
  /** Warnings of every `runAgent` pipeline. */
  readonly warnings: ReasoningWarning[] = [];

  // Installed middleware, outermost first.
  private readonly middlewares: AgentMiddleware[] = [];
  // The subscription of the `runAgent` in progress (ended by `abortRun`).
  private active: Subscription | undefined;
  // The options as given, read once.
  private readonly options: MockAgentOptions;

  constructor(
    private readonly script: AgentScript,
    options?: MockAgentOptions,
  ) {
    if (typeof script !== "function" && !holds(script, Array.isArray))
      throw kitError("mockAgent's script must be a list of turns or a function");
    const given = (this.options = objectArgument(options, "mockAgent", "options"));
    this.url = given.url ?? TEST_PRODUCER;
    this.agentId = given.agentId ?? "mock-agent";
    this.threadId = given.threadId ?? "t1";
    this.description = given.description ?? "";
    this.messages = listArgument(given.initialMessages ?? [], "mockAgent", "initialMessages", "any") as Message[];
    this.state = given.initialState ?? {};
  }

  /** Every input `run` received, in order. */
  get inputs(): RunAgentInput[] {
    return this.runs.map((r) => r.input);
  }

  /** The input of the latest `run` call. */
  get lastInput(): RunAgentInput | undefined {
    return this.runs[this.runs.length - 1]?.input;
  }

  /** This agent typed as what the code under test expects (`agent.as<HttpAgent>()`). */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- a cast the caller names, by design
  as<T>(): T {
    return this as unknown as T;
  }

  /**
   * The next scripted turn for `input`, recorded. Like `HttpAgent.run`, it ends when `abortController`
   * (as it is now) aborts: with a `RUN_ERROR` of `code: "abort"`, which the middleware sees too.
   */
  run(input: RunAgentInput): Observable<AguiEvent> {
    const record: { input: RunAgentInput; status: MockRun["status"] } = { input, status: "pending" };
    this.runs.push(record);
    const scripted = this.turnFor(input, this.runs.length).pipe(
      tap<unknown>({
        subscribe: () => (record.status = "running"),
        error: () => (record.status = "errored"),
        complete: () => (record.status = "completed"),
        unsubscribe: () => {
          if (record.status === "running") record.status = "unsubscribed";
        },
      }),
    );
    return abortable(scripted, this.abortController.signal) as Observable<AguiEvent>;
  }

  use(...middlewares: AgentMiddleware[]): this {
    const isMiddleware = (m: AgentMiddleware) =>
      typeof m === "function" || (typeof m === "object" && m !== null && typeof m.run === "function");
    if (!middlewares.every((m) => holds(m, isMiddleware)))
      throw kitError("MockAgent.use expects middleware: functions or objects with a `run` method");
    this.middlewares.push(...middlewares);
    return this;
  }

  /**
   * Runs one turn as `AbstractAgent.runAgent` does; resolves with the new messages, rejects on a violation. Like
   * that `async` method it never throws: bad messages, a throwing middleware or script reject the promise.
   */
  runAgent(parameters: MockRunParameters = {}): Promise<{ result: unknown; newMessages: Message[] }> {
    return new Promise((resolve, reject) => {
      // A list without holes (`messages` is a public field), read once; the pipeline checks each message, as `initialMessages`.
      this.messages = listArgument(this.messages, "MockAgent.runAgent", "messages", "any") as Message[];
      const input = this.prepareInput(objectArgument(parameters, "MockAgent.runAgent", "parameters"));
      const before = new Set(this.messages.map((m) => rawField(m, "id")));
      this.abortController = new AbortController();
      const pipeline = reasoningPipeline(from(this.chain().run(input)), {
        producer: this.url,
        onWarning: () => {},
        ...this.options.pipeline,
        initialMessages: this.messages,
      });
      this.isRunning = true;
      let result: unknown;
      const done = (): void => {
        this.isRunning = false;
        this.active = undefined;
      };
      const history = pipeline.history$.subscribe((h) => (this.messages = [...h.messages]));
      const warnings = pipeline.warnings$.subscribe((w) => this.warnings.push(w));
      const events = pipeline.events$.subscribe({
        next: (e) => {
          if (e.type === "RUN_FINISHED") result = e["result"];
        },
        error: (error: unknown) => {
          done();
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the source's own error, passed on as it came
          reject(error);
        },
        complete: () => {
          done();
          resolve({ result, newMessages: this.messages.filter((m) => !before.has(m.id)) });
        },
      });
      events.add(history);
      events.add(warnings);
      this.active = events;
    });
  }

  /**
   * Aborts the `runAgent` in progress as `HttpAgent`'s does: its scripted stream is unsubscribed, a
   * `RUN_ERROR` with `code: "abort"` ends the run (what was open is abandoned, D-RUN-ERROR), and `runAgent`
   * resolves with what arrived.
   */
  abortRun(): void {
    this.abortController.abort();
  }

  addMessage(message: Message): void {
    this.messages.push(message);
  }

  addMessages(messages: readonly Message[]): void {
    // Not `push(...messages)`: a long list overflows the argument stack.
    for (const m of listArgument(messages, "MockAgent.addMessages", "messages", "any")) this.messages.push(m);
  }

  setMessages(messages: readonly Message[]): void {
    this.messages = listArgument(messages, "MockAgent.setMessages", "messages", "any") as Message[];
  }

  setState(state: unknown): void {
    this.state = state;
  }

  /** The input `runAgent` sends, as `AbstractAgent.prepareRunAgentInput` builds it (R-INPUT-2/4). */
  private prepareInput(parameters: MockRunParameters): RunAgentInput {
    return {
      threadId: this.threadId,
      runId: parameters.runId ?? `r${this.runs.length + 1}`,
      protocolVersion: "1.0",
      tools: parameters.tools ?? [],
      context: parameters.context ?? [],
      forwardedProps: parameters.forwardedProps ?? {},
      state: this.state,
      messages: this.messages.filter((m) => rawField(m, "role") !== "activity"),
    };
  }

  /** The middleware chain ending in this agent (first installed = outermost, as in `@ag-ui/client`). */
  private chain(): MockNextAgent {
    return this.middlewares.reduceRight<MockNextAgent>((next, middleware) => {
      const run = (input: RunAgentInput): Observable<AguiEvent> =>
        from(
          (typeof middleware === "function"
            ? middleware(input, next)
            : middleware.run(input, next)) as Observable<AguiEvent>,
        );
      return {
        run,
        get messages() {
          return next.messages;
        },
        get state() {
          return next.state;
        },
      };
    }, this);
  }

  /** The scripted events of a run; a script that throws or gives no events fails the run's stream, not `run()`. */
  private turnFor(input: RunAgentInput, run: number): Observable<unknown> {
    const script = this.script;
    try {
      if (typeof script !== "function" && script[run - 1] === undefined)
        throw new Error(
          `agui-reasoning/testing: mockAgent has no turn for run #${run} (the script has ${script.length})`,
        );
      const turn = typeof script === "function" ? script(input, run) : script[run - 1];
      const events: unknown = typeof turn === "function" ? turn(input) : turn;
      // A turn whose reads throw (a revoked proxy) is no turn either, never the read's own error; a list
      // is read once, its length once and bounded (`lengthOf`).
      const given = readTurn(events);
      if (given === undefined) throw kitError(`mockAgent's turn for run #${run} is not an array or an Observable`);
      return from(given);
    } catch (error) {
      // eslint-disable-next-line rxjs-x/throw-error -- the script's own throw, passed on as it came
      return throwError(() => error);
    }
  }
}

/** A turn's events: a copy of a list, an Observable as it is, or `undefined` for anything else (or a read that throws). */
function readTurn(events: unknown): readonly unknown[] | Observable<unknown> | undefined {
  try {
    if (Array.isArray(events)) return Array.from({ length: lengthOf(events) }, (_, i) => events[i] as unknown);
    return isObservable(events) ? events : undefined;
  } catch {
    return undefined;
  }
}

/** A scripted agent; see {@link MockAgent}. `mockAgent([[ev.runStarted(), …, ev.runFinished()]])`. */
export function mockAgent(script: AgentScript, options?: MockAgentOptions): MockAgent {
  return new MockAgent(script, options);
}
