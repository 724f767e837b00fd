import { isObservable, type Observable } from "rxjs";
import type { ReasoningErrorCode } from "../core/errors";
import type { ReasoningWarning } from "../core/types";
import type { ReasoningWarningCode } from "../core/warning-codes";
import { isPlainObject } from "../core/json";
import { listProblem } from "../core/arguments";
import { codeArgument, described, holds, listArgument, objectArgument } from "./arguments";
import { defined, type ExpectedFailure, type ExpectedWarning } from "./asymmetric";
import { runPipeline } from "./run-pipeline";
import { inspectEvents, type InspectOptions } from "../cli/inspect";
import { printable } from "../cli/printable";
import { renderFailure, verdictLine } from "../cli/render";

/** What `toBeConformant` checks besides the protocol: the command's gates, and the run input. */
export type ConformanceOptions = InspectOptions;

declare global {
  // Declaration merging into @types/jest's `expect`: the type parameters must be exactly its
  // `Matchers<R, T = {}>`, or TypeScript rejects the merge; hence its namespace, its unused T and its `{}`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars, @typescript-eslint/no-empty-object-type
    interface Matchers<R, T = {}> {
      /**
       * The stream fails with a `ReasoningProtocolError` of this code (and these fields). Accepts an
       * array of events (run through the whole pipeline), a synchronous Observable (e.g.
       * `from(events).pipe(verifyDiscipline())`), a function that throws or returns one, an error,
       * or a `runStage`/`runPipeline` result.
       */
      toFailWithCode(code: ReasoningErrorCode, expected?: ExpectedFailure): R;
      /**
       * A warning of this code (and these fields) was reported. Accepts an array of warnings, a
       * `collectWarnings()` collector, a `runStage`/`runPipeline` result, or an array of events (run
       * through the whole pipeline).
       */
      toWarnWith(code: ReasoningWarningCode, expected?: ExpectedWarning): R;
      /**
       * The events pass `agui-reasoning check`: the same pipeline, lint rules and gates, failing with
       * the explanation the command prints (the violation, its rule, the ids). Options as the
       * command's: `maxWarnings`, `failOnLossy`, `allowEmpty`, `initialMessages`.
       */
      toBeConformant(options?: ConformanceOptions): R;
    }
  }
}

/** The part of jest's / vitest's matcher context these matchers use. */
interface MatcherContext {
  readonly isNot?: boolean;
  equals(a: unknown, b: unknown): boolean;
}

interface MatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** The matchers, for `expect.extend(reasoningMatchers)`; {@link installReasoningMatchers} does that for you. */
export const reasoningMatchers = {
  toBeConformant,
  toFailWithCode(this: MatcherContext, received: unknown, code: string, expected: ExpectedFailure = {}): MatcherResult {
    // A misspelt code would make `.not.toFailWithCode` pass whatever happened: refused both ways.
    codeArgument(code, "toFailWithCode", "ERROR_CODES");
    const wanted = { code, ...defined(expected, "toFailWithCode") };
    const outcome = guarded(failureOf, received);
    if ("problem" in outcome)
      return { pass: false, message: () => `expected a stream failing with ${code}, but ${outcome.problem}` };
    const error = outcome.error;
    if (!isProtocolError(error)) {
      return {
        pass: false,
        message: () =>
          `expected a ReasoningProtocolError ${code}, but ${error === undefined ? "the stream did not fail" : `it failed with ${describeError(error)}`}`,
      };
    }
    const actual = pick(error, Object.keys(wanted));
    const pass = this.equals(actual, wanted);
    return {
      pass,
      message: () =>
        pass
          ? `expected the stream not to fail with ${show(wanted)}, but it did: ${error.message}`
          : `expected a failure ${show(wanted)}, got ${show(actual)}: ${error.message}`,
    };
  },

  toWarnWith(this: MatcherContext, received: unknown, code: string, expected: ExpectedWarning = {}): MatcherResult {
    // A misspelt code would make `.not.toWarnWith` pass whatever happened: refused both ways.
    codeArgument(code, "toWarnWith", "WARNING_CODES");
    const wanted = { code, ...defined(expected, "toWarnWith") };
    const warnings = guarded(warningsOf, received);
    if ("problem" in warnings) return { pass: false, message: () => `expected warnings, but ${warnings.problem}` };
    const pass = warnings.some((w) => this.equals(pick(w, Object.keys(wanted)), wanted));
    const seen = warnings.length === 0 ? "no warnings" : `warnings ${warnings.map((w) => w.code).join(", ")}`;
    return {
      pass,
      message: () =>
        pass
          ? `expected no warning ${show(wanted)}, but one was reported`
          : `expected a warning ${show(wanted)}, got ${seen}`,
    };
  },
};

/**
 * `expect(events).toBeConformant(options?)`: `agui-reasoning check` over an array of events (jest
 * and vitest: it is a plain `expect.extend` matcher). Its message is the command's own verdict — the
 * violation as the human report explains it, and the summary line — with nothing from the stream's
 * content (D-REDACT).
 */
function toBeConformant(this: MatcherContext, received: unknown, options?: ConformanceOptions): MatcherResult {
  const given = objectArgument(options, "toBeConformant", "options");
  // Lists as read once (`listArgument`, `listProblem`): a proxy may answer a second read of a length otherwise.
  const { initialMessages } = given;
  const checked =
    initialMessages === undefined
      ? given
      : { ...given, initialMessages: listArgument(initialMessages, "toBeConformant", "initialMessages", "message") };
  if (!holds(received, Array.isArray))
    return { pass: false, message: () => `expected an array of events, but received ${described(received)}` };
  // A hole is no event, and the check reads a list to its end: a sparse one claims 2³²−1 slots.
  const read: { items?: unknown[] } = {};
  const hole = listProblem(received, "events", "any", read);
  if (hole !== undefined) return { pass: false, message: () => `expected an array of events, but ${hole}` };
  let outcome: ReturnType<typeof inspectEvents>;
  try {
    outcome = inspectEvents(read.items!, checked);
  } catch (error) {
    return {
      pass: false,
      message: () => `expected conformant events, but checking them failed: ${describeError(error)}`,
    };
  }
  const f = outcome.failure;
  const verdict = printable(verdictLine(outcome));
  if (f === undefined)
    return { pass: true, message: () => `expected a failing check, but agui-reasoning check says ${verdict}` };
  const explanation = printable(renderFailure(f).join("\n"));
  return {
    pass: false,
    message: () => `expected conformant events, but agui-reasoning check says:\n${explanation}\n${verdict}`,
  };
}

/**
 * Installs `toFailWithCode`, `toWarnWith` and `toBeConformant` with one call (e.g. in a jest `setupFilesAfterEnv`
 * file, or at the top of a test file). Pass vitest's `expect` when it is not global.
 */
export function installReasoningMatchers(target?: { extend(matchers: Record<string, unknown>): void }): void {
  const expectFn = target ?? (globalThis as { expect?: { extend(matchers: Record<string, unknown>): void } }).expect;
  if (!holds(expectFn, (e) => typeof e?.extend === "function")) {
    throw new Error(
      "agui-reasoning/testing: installReasoningMatchers needs jest's or vitest's `expect` (pass it when it is not global)",
    );
  }
  expectFn!.extend(reasoningMatchers);
}

type Problem = { problem: string };
type Outcome = { error: unknown } | Problem;

/** The error (or `undefined` for success) of whatever the matcher received. */
function failureOf(received: unknown): Outcome {
  if (received instanceof Error) return { error: received };
  if (Array.isArray(received)) return { error: runPipeline(received).error };
  if (isObservable(received)) return errorOfObservable(received);
  if (typeof received === "function") {
    let value: unknown;
    try {
      value = (received as () => unknown)();
    } catch (error) {
      return { error };
    }
    return isObservable(value) ? errorOfObservable(value) : { error: undefined };
  }
  // A runPipeline result (`events`) or a runStage one (`out`).
  if (isPlainObject(received) && "warnings" in received && ("events" in received || "out" in received))
    return { error: received.error };
  return {
    problem: `received ${described(received)} (pass events, an Observable, a function, an error or a run result)`,
  };
}

function errorOfObservable(source: Observable<unknown>): Outcome {
  let outcome: Outcome | undefined;
  const subscription = source.subscribe({
    error: (error: unknown) => (outcome = { error }),
    complete: () => (outcome = { error: undefined }),
  });
  if (outcome) return outcome;
  subscription.unsubscribe();
  return { problem: "the Observable did not end synchronously (use a marble test with protocolErrorWith() for time)" };
}

/** The warnings of whatever the matcher received. */
function warningsOf(received: unknown): readonly ReasoningWarning[] | Problem {
  const list = Array.isArray(received) ? received : isPlainObject(received) ? received.warnings : undefined;
  // A hole is neither a warning nor an event, and a sparse list claims 2³²−1 slots. The list as read once.
  const read: { items?: unknown[] } = {};
  const hole = Array.isArray(list)
    ? listProblem(list, Array.isArray(received) ? "received" : "received.warnings", "any", read)
    : undefined;
  if (hole !== undefined) return { problem: `${hole} (pass warnings, a collector, a run result or events)` };
  const items = read.items ?? [];
  if (Array.isArray(received)) {
    if (items.every(isWarning)) return items;
    return runPipeline(items).warnings;
  }
  if (Array.isArray(list)) return items as ReasoningWarning[];
  return { problem: `received ${described(received)} (pass warnings, a collector, a run result or events)` };
}

/** Duck-typed so a second copy of the package (ESM next to CJS) is still recognised. */
function isProtocolError(e: unknown): e is Error & Record<string, unknown> {
  return (
    e instanceof Error && e.name === "ReasoningProtocolError" && typeof (e as { code?: unknown }).code === "string"
  );
}

function isWarning(w: unknown): w is ReasoningWarning {
  return (
    typeof w === "object" &&
    w !== null &&
    !Array.isArray(w) &&
    typeof (w as ReasoningWarning).code === "string" &&
    typeof (w as ReasoningWarning).message === "string"
  );
}

function pick(source: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (source as Record<string, unknown>)[key]]));
}

// Errors and warnings are already redacted (D-REDACT); the matcher prints only their fields.
const show = JSON.stringify;

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return described(error);
}

/** `read(received)`, or a failure of the matcher where a read of `received` throws (a getter, a revoked proxy). */
function guarded<T>(read: (received: unknown) => T | Problem, received: unknown): T | Problem {
  try {
    return read(received);
  } catch {
    // Never what the read threw: it may quote the stream (D-REDACT).
    return { problem: "received a value whose reads throw" };
  }
}
