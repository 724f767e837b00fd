/**
 * Runs one generated stream through the package's pipeline and through the reference model, and
 * describes every way they disagree. Shared by the property suite and the regression replay.
 */
import { from, type Subject } from "rxjs";
import type { Message } from "@ag-ui/core";
import { reasoningPipeline, toRunInputMessages, ReasoningProtocolError, type ReasoningWarning } from "../../src";
import {
  KNOWN_DIVERGENCES,
  runReferenceModel,
  modelRunInput,
  type KnownDivergence,
  type ModelResult,
} from "../model/reference-model";
import { MINT_PREFIX } from "./arbitraries";

/** What a replayable case needs (also the JSON shape of test/regressions/*.json). */
export interface StreamCase {
  readonly producer: string;
  readonly initialMessages: readonly Message[];
  readonly events: readonly unknown[];
}

export interface PipelineRun {
  readonly outcome: "completed" | "failed";
  readonly error: unknown;
  readonly warnings: ReasoningWarning[];
  readonly messages: readonly Message[];
  readonly incomplete: readonly unknown[];
  readonly runInput: Message[];
  readonly runInputWarnings: ReasoningWarning[];
  readonly otherInput: Message[];
  readonly otherInputWarnings: ReasoningWarning[];
}

/** The idFactory both sides use: think-1, think-2, … (D-THINK-IDS). */
export function mintingIds(): () => string {
  let n = 0;
  return () => `${MINT_PREFIX}${++n}`;
}

/** A producer identity that is never the case's own. */
export const otherProducer = (producer: string): string => `other:${producer}`;

/** Freezes a value deeply: the package must never mutate its input (a write throws in strict mode). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function runPipeline(c: StreamCase): PipelineRun {
  deepFreeze(c.events);
  deepFreeze(c.initialMessages);
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(from(c.events), {
    producer: c.producer,
    initialMessages: c.initialMessages,
    idFactory: mintingIds(),
    onWarning: (w) => warnings.push(w),
  });
  let error: unknown;
  let completed = false;
  pipeline.events$.subscribe({ error: (e: unknown) => (error = e), complete: () => (completed = true) });
  if (!completed && error === undefined) throw new Error("the pipeline did not terminate synchronously on from(array)");
  const history = pipeline.history;
  const runInputWarnings: ReasoningWarning[] = [];
  const runInput = toRunInputMessages(history, { producer: c.producer, onWarning: (w) => runInputWarnings.push(w) });
  const otherInputWarnings: ReasoningWarning[] = [];
  const otherInput = toRunInputMessages(history, {
    producer: otherProducer(c.producer),
    onWarning: (w) => otherInputWarnings.push(w),
  });
  return {
    outcome: completed ? "completed" : "failed",
    error,
    warnings,
    messages: history.messages,
    incomplete: history.incomplete,
    runInput,
    runInputWarnings,
    otherInput,
    otherInputWarnings,
  };
}

/**
 * Known package divergences the model reproduces (comma-separated names of KNOWN_DIVERGENCES in
 * MODEL_ACCEPT; "all" for every one). Default: none — the model follows the rules.
 */
export const ACCEPTED: ReadonlySet<KnownDivergence> = (() => {
  const names = (process.env.MODEL_ACCEPT ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  const all = Object.keys(KNOWN_DIVERGENCES) as KnownDivergence[];
  if (names.includes("all")) return new Set(all);
  for (const n of names)
    if (!all.includes(n as KnownDivergence)) throw new Error(`MODEL_ACCEPT: unknown divergence ${n}`);
  return new Set(names as KnownDivergence[]);
})();

export function runModel(c: StreamCase): ModelResult {
  return runReferenceModel(c.events, {
    producer: c.producer,
    initialMessages: c.initialMessages,
    idFactory: mintingIds(),
    accept: ACCEPTED,
  });
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/**
 * Canonical JSON: keys sorted, own "__proto__" keys kept, undefined-valued keys dropped (they are
 * absent on the wire). Strings compare byte for byte.
 */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return value === undefined ? "undefined" : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

function multiset(codes: readonly string[]): string {
  return [...codes].sort().join(",");
}

/** Every encrypted value in a list of messages: "message:<id>" / "tool-call:<id>" → value. */
export function valuesOf(messages: readonly Message[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of messages as unknown as Record<string, unknown>[]) {
    // A tool message's value is its own, apart from one on another message sharing its id (D-HISTORY-IDS).
    if (typeof m.encryptedValue === "string")
      out.set(`${m.role === "tool" ? "tool message" : "message"}:${m.id as string}`, m.encryptedValue);
    for (const c of (m.toolCalls as Record<string, unknown>[] | undefined) ?? []) {
      if (typeof c.encryptedValue === "string") out.set(`tool-call:${c.id as string}`, c.encryptedValue);
    }
  }
  return out;
}

/** All disagreements between the pipeline and the model for one stream ([] = they agree). */
export function compare(c: StreamCase, p: PipelineRun, m: ModelResult): string[] {
  const problems: string[] = [];
  if (p.error !== undefined && !(p.error instanceof ReasoningProtocolError)) {
    problems.push(`error is not a ReasoningProtocolError: ${String(p.error)}`);
  }
  const code = p.error instanceof ReasoningProtocolError ? p.error.code : undefined;
  const index = p.error instanceof ReasoningProtocolError ? p.error.eventIndex : undefined;
  if (p.outcome !== m.outcome) problems.push(`outcome: pipeline ${p.outcome}, model ${m.outcome}`);
  if (code !== m.errorCode) problems.push(`error code: pipeline ${code}, model ${m.errorCode}`);
  else if (index !== m.errorIndex) problems.push(`error index: pipeline ${index}, model ${m.errorIndex} (${code})`);
  const pw = multiset(p.warnings.map((w) => w.code));
  const mw = multiset(m.warningCodes);
  if (pw !== mw) problems.push(`warnings: pipeline [${pw}], model [${mw}]`);
  const ph = canonical(p.messages);
  const mh = canonical(m.history.messages);
  if (ph !== mh) problems.push(`history messages differ:\n  pipeline ${truncate(ph)}\n  model    ${truncate(mh)}`);

  // Incomplete items (D-TRUNC, D-RUN-ERROR), beside the messages.
  const pin = canonical(p.incomplete);
  const min = canonical(m.history.incomplete);
  if (pin !== min) problems.push(`incomplete items differ:\n  pipeline ${truncate(pin)}\n  model    ${truncate(min)}`);

  // Run input for the issuing producer: what the model says, values byte-identical (R-REASON-17, D-ISSUER).
  const own = modelRunInput(m.history, c.producer);
  const pi = canonical(p.runInput);
  const mi = canonical(own.messages);
  if (pi !== mi)
    problems.push(`run input (own producer) differs:\n  pipeline ${truncate(pi)}\n  model    ${truncate(mi)}`);

  // Independent of the model: every value the pipeline holds was issued by this producer (initial
  // messages and snapshots included), so its own run input carries every one of them, byte for byte.
  const held = valuesOf(p.messages.filter((x) => x.role !== "activity"));
  const sent = valuesOf(p.runInput);
  const lost = [...held].filter(([k, v]) => sent.get(k) !== v).map(([k]) => k);
  if (lost.length > 0 || sent.size !== held.size)
    problems.push(`own run input does not carry every held value byte for byte: ${lost.join(", ")}`);

  // Run input for another producer: no value at all, and every value left out is named (R-REASON-26).
  const leaked = valuesOf(p.otherInput);
  if (leaked.size > 0) problems.push(`values leaked to another producer: ${[...leaked.keys()].join(", ")}`);
  const withheld = modelRunInput(m.history, otherProducer(c.producer)).withheld;
  const named = new Set(p.otherInputWarnings.filter((w) => w.code === "VALUE_WITHHELD").flatMap((w) => w.ids ?? []));
  const unnamed = withheld.filter((id) => !named.has(id));
  if (unnamed.length > 0)
    problems.push(
      `withheld values not named in VALUE_WITHHELD warnings: ${unnamed.map((i) => JSON.stringify(i)).join(", ")}`,
    );
  if (withheld.length === 0 && named.size > 0) problems.push(`VALUE_WITHHELD warnings without any withheld value`);
  if (p.otherInputWarnings.some((w) => w.code === "VALUE_WITHHELD" && w.lossy !== true))
    problems.push(`VALUE_WITHHELD not lossy`);
  return problems;
}

function truncate(s: string): string {
  return s.length > 3000 ? `${s.slice(0, 3000)}…(${s.length} chars)` : s;
}

/**
 * D-REDACT: no error message or warning may contain a delta, content or encrypted value of the
 * input. Only strings of 8+ characters are checked, and not those that also occur inside an id or
 * a type of the input (ids may be printed: a secret equal to part of one proves nothing).
 */
export function redactionLeaks(c: StreamCase, p: PipelineRun): string[] {
  const secrets = new Set<string>();
  const publicStrings: string[] = [];
  const collect = (v: unknown, key?: string): void => {
    if (typeof v === "string") {
      if (key === "delta" || key === "encryptedValue" || key === "content") {
        if (v.length >= 8) secrets.add(v);
      } else publicStrings.push(v);
      return;
    }
    if (Array.isArray(v)) v.forEach((x) => collect(x));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) collect(x, k);
  };
  collect(c.events);
  collect(c.initialMessages);
  // The producer identities are printed too (D-IDENTITY: VALUE_WITHHELD names them).
  publicStrings.push(c.producer, otherProducer(c.producer));
  const texts = [
    ...(p.error instanceof Error ? [p.error.message] : []),
    ...[...p.warnings, ...p.runInputWarnings, ...p.otherInputWarnings].map((w) => JSON.stringify(w)),
  ];
  const leaks: string[] = [];
  for (const s of secrets) {
    if (publicStrings.some((id) => id.includes(s))) continue;
    if (texts.some((t) => t.includes(s) || t.includes(JSON.stringify(s).slice(1, -1)))) leaks.push(s.slice(0, 20));
  }
  return leaks;
}

/** Runs one case both ways; `problems` lists the disagreements with the model and D-REDACT leaks. */
export function check(c: StreamCase): { problems: string[]; model: ModelResult; pipeline: PipelineRun } {
  const model = runModel(c);
  const pipeline = runPipeline(c);
  const problems = compare(c, pipeline, model);
  const leaks = redactionLeaks(c, pipeline);
  if (leaks.length > 0)
    problems.push(`D-REDACT: errors/warnings contain input text: ${leaks.map((l) => JSON.stringify(l)).join(", ")}`);
  return { problems, model, pipeline };
}

export const problemsOf = (c: StreamCase): string[] => check(c).problems;

/**
 * Delivers `events` to `subject`: all at once, or (every > 0) the next one from inside every
 * every-th call of the returned `onHistory`, after the first (the initial history, which a chain
 * emits before it subscribes its source).
 */
export function deliverer(
  events: readonly unknown[],
  every: number,
): { onHistory: () => void; run: (s: Subject<unknown>) => void } {
  let subject: Subject<unknown> | undefined;
  let next = 0;
  let seen = 0;
  const feed = (): void => {
    if (next < events.length) subject!.next(events[next++]);
  };
  return {
    onHistory: () => {
      if (every > 0 && ++seen > 1 && seen % every === 0) feed();
    },
    run: (s) => {
      subject = s;
      while (next < events.length) feed();
      s.complete();
    },
  };
}
