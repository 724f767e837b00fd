import { from, isObservable, type Observable, type OperatorFunction } from "rxjs";
import { ReasoningProtocolError } from "../../../src/core/errors";
import type { AguiEvent, ReasoningWarning } from "../../../src/core/types";
import type { ReasoningHistory } from "../../../src/history/types";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../../../src/pipeline/reasoning-pipeline";

/** What one subscription of the facade did. Histories are not collected: a hostile stream may publish 100,000 of them. */
export interface Outcome {
  readonly events: AguiEvent[];
  readonly warnings: ReasoningWarning[];
  /** The last history (what was delivered stays, also after a failure). */
  readonly history: ReasoningHistory;
  /** What `events$` failed with, if it did. */
  readonly error?: unknown;
  /** `events$` completed or failed synchronously. */
  readonly ended: boolean;
}

/** Runs the facade over a synchronous source (an array, a generator, or an Observable that ends at once). */
export function runFacade(
  source: Iterable<unknown> | Observable<unknown>,
  options: ReasoningPipelineOptions = {},
): Outcome {
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(isObservable(source) ? source : from(source), {
    producer: "hostile-test",
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  const events: AguiEvent[] = [];
  let failure: { error: unknown } | undefined;
  let ended = false;
  pipeline.events$.subscribe({
    next: (e) => events.push(e),
    error: (error: unknown) => {
      failure = { error };
      ended = true;
    },
    complete: () => (ended = true),
  });
  const outcome = { events, warnings, history: pipeline.history, ended };
  return failure ? { ...outcome, error: failure.error } : outcome;
}

/** What one operator (or chain) did over a synchronous source. */
export interface OperatorOutcome<T> {
  readonly out: T[];
  readonly error?: unknown;
  readonly ended: boolean;
}

export function runOperator<T>(source: Iterable<unknown>, operator: OperatorFunction<unknown, T>): OperatorOutcome<T> {
  const out: T[] = [];
  let failure: { error: unknown } | undefined;
  let ended = false;
  from(source)
    .pipe(operator)
    .subscribe({
      next: (e) => out.push(e),
      error: (error: unknown) => {
        failure = { error };
        ended = true;
      },
      complete: () => (ended = true),
    });
  return failure ? { out, error: failure.error, ended } : { out, ended };
}

/** The fields of a failure that tests pin; `{ error: <what it was> }` for anything but a ReasoningProtocolError. */
export function failureOf(error: unknown): Record<string, unknown> | undefined {
  if (error === undefined) return undefined;
  if (!(error instanceof ReasoningProtocolError)) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  return { code: error.code, rule: error.rule, eventIndex: error.eventIndex, eventType: error.eventType };
}

/** Ends with a `ReasoningProtocolError` (never a TypeError, RangeError, or anything else). */
export function expectProtocolError(error: unknown): ReasoningProtocolError {
  expect(failureOf(error)).toEqual(expect.objectContaining({ code: expect.any(String) }));
  return error as ReasoningProtocolError;
}

/** `depth` objects nested in each other (`{ a: { a: … leaf } }`), built without recursion. */
export function deepObject(depth: number, leaf: unknown = "leaf"): Record<string, unknown> {
  let node: unknown = leaf;
  for (let i = 0; i < depth; i++) node = { a: node };
  return node as Record<string, unknown>;
}

/** `depth` arrays nested in each other. */
export function deepArray(depth: number, leaf: unknown = "leaf"): unknown[] {
  let node: unknown = leaf;
  for (let i = 0; i < depth; i++) node = [node];
  return node as unknown[];
}

/** How many levels of `{ a: … }` a value has (iterative). */
export function depthOf(value: unknown): number {
  let depth = 0;
  let node = value;
  while (typeof node === "object" && node !== null && Object.hasOwn(node, "a")) {
    node = (node as { a: unknown }).a;
    depth++;
  }
  return depth;
}

/** The own property descriptors of the prototypes an attack would pollute, to compare before and after. */
export function prototypeFingerprint(): string[] {
  const described = (name: string, proto: object): string[] =>
    Reflect.ownKeys(proto).map((key) => {
      const d = Object.getOwnPropertyDescriptor(proto, key)!;
      return `${name}.${String(key)}:${typeof d.value}:${String(d.writable)}:${String(d.enumerable)}:${typeof d.get}`;
    });
  return [
    ...described("Object", Object.prototype),
    ...described("Array", Array.prototype),
    ...described("Function", Function.prototype),
    ...described("String", String.prototype),
    `Object.proto:${String(Object.getPrototypeOf(Object.prototype))}`,
  ];
}

/** Asserts nothing reached the shared prototypes. */
export function expectNoPollution(before: readonly string[]): void {
  const probe = {} as Record<string, unknown>;
  expect({
    polluted: probe.polluted,
    isAdmin: probe.isAdmin,
    proto: Object.getPrototypeOf(probe) === Object.prototype,
  }).toEqual({
    polluted: undefined,
    isAdmin: undefined,
    proto: true,
  });
  expect(prototypeFingerprint()).toEqual(before);
}
