/**
 * D-HISTORY-IDS as a property: whatever the pipeline derives, every other way in accepts and
 * reproduces. Over the suite's generated valid conversations (several runs, snapshots, activity,
 * subagents, legacy THINKING_*, truncation; arbitraries.ts), with both orders of D-TOOL-RESULT-ID
 * added — a tool result under the id of the assistant message holding its call (LangGraph Python's
 * unstreamed tool call), and a tool message followed by a text message under its id:
 *
 * 1. `parseHistory(serializeHistory(h))` equals `h` at every history `history$` publishes, and
 *    `parseHistory(historyToJSON(h))` (a value, read as strictly as the writers write; also as a
 *    structured clone keeps it) equals it too (D-PATHS);
 * 2. `resumeFrom(exportState())`, through JSON, at every cut point continues exactly as the
 *    uninterrupted run (same outcome, same final history), and so does the snapshot value itself
 *    (a structured clone, read as strictly as a stored history) at the middle cut point;
 * 3. `toRunInputMessages(h)` given back as `initialMessages`, as `initialHistory`, as a
 *    `RUN_STARTED.input` echo and in a `MESSAGES_SNAPSHOT` gives the same messages.
 */
import { fixedClock } from "../support/clock";
import fc from "fast-check";
import { from } from "rxjs";
import type { Message } from "@ag-ui/core";
import {
  isReasoningProtocolError,
  historyToJSON,
  parseHistory,
  reasoningPipeline,
  serializeHistory,
  toRunInputMessages,
  type ReasoningHistory,
  type ReasoningPipelineOptions,
} from "../../src";
import { validCaseArb, type GeneratedCase } from "./arbitraries";
import { mintingIds } from "./harness";
import { SEED, TOTAL_RUNS } from "./property-run";
import { resumable, type PipelineSnapshot } from "../../src/resilience";

type Obj = Record<string, unknown>;

/** Both orders of D-TOOL-RESULT-ID, added to a generated stream. */
function withSharedIds(c: GeneratedCase, rewrite: readonly boolean[]): unknown[] {
  const parents = new Map<string, string>();
  const rewritten = new Set<string>();
  let k = 0;
  const events = (c.events as Obj[]).map((event) => {
    if (event.type === "TOOL_CALL_START" && typeof event.parentMessageId === "string")
      parents.set(event.toolCallId as string, event.parentMessageId);
    if (event.type !== "TOOL_CALL_RESULT") return event;
    const parent = parents.get(event.toolCallId as string);
    // The first result of a call on each parent, when the plan says so, takes the parent's id.
    if (parent === undefined || rewritten.has(parent) || !rewrite[k++ % Math.max(1, rewrite.length)]) return event;
    rewritten.add(parent);
    return { ...event, messageId: parent };
  });
  const first = events[0];
  if (first?.type !== "RUN_STARTED") return events;
  // A run of its own before the generated ones: a tool message, then a text message under its id.
  const run = { threadId: first.threadId, runId: "d-tool-result-id-run" };
  return [
    { type: "RUN_STARTED", ...run },
    { type: "TOOL_CALL_START", toolCallId: "d-tool-result-id-call", toolCallName: "lookup" },
    { type: "TOOL_CALL_END", toolCallId: "d-tool-result-id-call" },
    {
      type: "TOOL_CALL_RESULT",
      messageId: "d-tool-result-id",
      toolCallId: "d-tool-result-id-call",
      content: "42",
    },
    { type: "TEXT_MESSAGE_START", messageId: "d-tool-result-id", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "d-tool-result-id", delta: "It is 42." },
    { type: "TEXT_MESSAGE_END", messageId: "d-tool-result-id" },
    { type: "RUN_FINISHED", ...run },
    ...events,
  ];
}

interface Outcome {
  readonly histories: ReasoningHistory[];
  readonly history: ReasoningHistory;
  readonly error: string | undefined;
  readonly exportState: () => unknown;
}

function run(events: readonly unknown[], options: ReasoningPipelineOptions): Outcome {
  const pipeline = reasoningPipeline(from(events), { onWarning: () => {}, scheduler: fixedClock(), ...options });
  const histories: ReasoningHistory[] = [];
  pipeline.history$.subscribe((h) => histories.push(h));
  let error: string | undefined;
  pipeline.events$.subscribe({
    error: (e: unknown) => (error = isReasoningProtocolError(e) ? e.code : String(e)),
  });
  return { histories, history: pipeline.history, error, exportState: () => pipeline.exportState() };
}

/** At most `n` cut points, spread over 0…length (all of them for a short stream). */
function cutPoints(length: number, n: number): number[] {
  if (length + 1 <= n) return Array.from({ length: length + 1 }, (_, i) => i);
  return Array.from({ length: n }, (_, i) => Math.round((i * length) / (n - 1)));
}

const RUNS = Math.max(10, Math.round(TOTAL_RUNS / 70));

describe("D-HISTORY-IDS every way into a history accepts what the pipeline derives (property)", () => {
  it("D-HISTORY-IDS D-TOOL-RESULT-ID storage, resume and the four ways back reproduce every generated conversation", () => {
    // Cases whose final history holds two messages under one id: the shapes this property is about.
    let shared = 0;
    const property = fc.property(
      validCaseArb(),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
      (c, rewrite) => {
        const events = withSharedIds(c, rewrite);
        const base: ReasoningPipelineOptions = { producer: c.producer, idFactory: mintingIds() };
        const whole = run(events, { ...base, initialMessages: c.initialMessages });
        const keys = whole.history.messages.map((m) => m.id);
        if (keys.length !== new Set(keys).size) shared++;

        // 1. Storage, at every published history.
        for (const h of whole.histories) {
          const back = parseHistory(serializeHistory(h));
          expect(back).toEqual(h);
          const json = historyToJSON(h);
          expect(parseHistory(json)).toEqual(back);
          expect(parseHistory(structuredClone(json))).toEqual(back);
        }

        // 2. Resume at every cut point (through JSON, as a snapshot is stored; once as the value itself).
        const cuts = cutPoints(events.length, 16);
        for (const cut of cuts) {
          // Through JSON, as a snapshot is stored; at the middle cut also the value itself, as a
          // structured clone keeps it (IndexedDB, postMessage).
          const ways = cut === cuts[cuts.length >> 1] ? [false, true] : [false];
          for (const asValue of ways) {
            const ids = mintingIds();
            const first = run(events.slice(0, cut), { ...base, idFactory: ids, initialMessages: c.initialMessages });
            if (first.error !== undefined && first.error !== "RUN_TRUNCATED") continue; // not exportable
            const exported = first.exportState();
            const snapshot = (
              asValue ? structuredClone(exported) : JSON.parse(JSON.stringify(exported))
            ) as PipelineSnapshot;
            const second = run(events.slice(cut), { ...base, idFactory: ids, resumeFrom: resumable(snapshot) });
            expect({ cut, asValue, error: second.error, history: second.history }).toEqual({
              cut,
              asValue,
              error: whole.error,
              history: whole.history,
            });
          }
        }

        // 3. The run input given back, four ways.
        const input: Message[] = toRunInputMessages(whole.history, { producer: c.producer, onWarning: () => {} });
        const threadId = "t-back";
        const ways = [
          run([], { ...base, initialMessages: input }),
          run([], { ...base, initialHistory: { messages: input, incomplete: [], issuers: [], durations: [] } }),
          run(
            [
              { type: "RUN_STARTED", threadId, runId: "r", input: { threadId, runId: "r", messages: input } },
              { type: "RUN_FINISHED", threadId, runId: "r" },
            ],
            base,
          ),
          run(
            [
              { type: "RUN_STARTED", threadId, runId: "r" },
              { type: "MESSAGES_SNAPSHOT", messages: input },
              { type: "RUN_FINISHED", threadId, runId: "r" },
            ],
            base,
          ),
        ];
        ways.forEach((way, i) =>
          expect({ way: i, error: way.error, messages: way.history.messages }).toEqual({
            way: i,
            error: undefined,
            messages: input,
          }),
        );
      },
    );
    fc.assert(property, { seed: SEED, numRuns: RUNS });
    expect(shared).toBeGreaterThan(RUNS / 5);
  });
});
