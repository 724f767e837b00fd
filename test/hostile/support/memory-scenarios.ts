import { ev, msg } from "../../../src/testing/builders";

/** The events of run number `run` of a scenario. */
export type MemoryScenario = (run: number) => unknown[];

/** A constant conversation the restating scenario repeats every run. */
const RESTATED = [msg.user("u1", "question"), msg.reasoning("r1", "thinking"), msg.assistant("a1", "answer")];

/**
 * Streams whose runs leave nothing behind that history legitimately keeps: a bounded heap is then the
 * only correct outcome (R-RUN-11: run-scoped tracking does not cross the run boundary). `growing` is
 * the control: each run adds a 1 KB message, which history must keep (R-RUN-10).
 */
export const MEMORY_SCENARIOS: Readonly<Record<string, MemoryScenario>> = {
  /** Spans, steps, subagents, state and pass-through events, every id new; every other run ends with RUN_ERROR and items open. */
  quiet: (run) => {
    const id = `${run}`;
    const body = [
      ev.runStarted(`run-${id}`),
      ev.stepStarted(`step-${id}`),
      ev.reasoningStart(`span-${id}`),
      ev.subagentStarted(`sub-${id}`),
      ev.reasoningStart(`span-${id}-sub`, { subagentRunId: `sub-${id}` }),
      ev.custom("progress", { run }),
      ev.raw({ run }),
      ev.stateSnapshot({ run }),
      ev.stateDelta([{ op: "replace", path: "/run", value: run }]),
    ];
    if (run % 2 === 1) return [...body, ev.runError("producer failed")];
    return [
      ...body,
      ev.reasoningEnd(`span-${id}-sub`, { subagentRunId: `sub-${id}` }),
      ev.subagentFinished(`sub-${id}`),
      ev.reasoningEnd(`span-${id}`),
      ev.stepFinished(`step-${id}`),
      ev.runFinished(`run-${id}`),
    ];
  },
  /** Every run restates the same three messages and stores a value on the same one (D-REPEAT). */
  restating: (run) => [
    ev.runStarted(`run-${run}`),
    ev.messagesSnapshot(RESTATED),
    ev.encryptedValue("message", "r1", `value-${run % 7}`),
    ev.runFinished(`run-${run}`),
  ],
  /**
   * One reasoning message, one answer and one tool call per run, each streamed in 32 deltas of 16
   * characters made for this run (nothing but the history may keep them). History keeps 3 × 512
   * characters per run: flat strings once each item ended, not a cell and a delta string per delta.
   */
  streamed: (run) => {
    const piece = (i: number): string => `${run}:${i}:`.padEnd(16, "~");
    const deltas = Array.from({ length: 32 }, (_, i) => i);
    return [
      ev.runStarted(`run-${run}`),
      ev.reasoningMessageStart(`r-${run}`),
      ...deltas.map((i) => ev.reasoningMessageContent(`r-${run}`, piece(i))),
      ev.reasoningMessageEnd(`r-${run}`),
      ev.textStart(`a-${run}`),
      ...deltas.map((i) => ev.textContent(`a-${run}`, piece(i))),
      ev.textEnd(`a-${run}`),
      ev.toolCallStart(`c-${run}`, "lookup", { parentMessageId: `a-${run}` }),
      ...deltas.map((i) => ev.toolCallArgs(`c-${run}`, piece(i))),
      ev.toolCallEnd(`c-${run}`),
      ev.runFinished(`run-${run}`),
    ];
  },
  /** Control: one new 1 KB reasoning message per run. */
  growing: (run) => [
    ev.runStarted(`run-${run}`),
    ev.reasoningMessageStart(`m-${run}`),
    ev.reasoningMessageContent(`m-${run}`, `${run}`.padStart(1024, "x")),
    ev.reasoningMessageEnd(`m-${run}`),
    ev.runFinished(`run-${run}`),
  ],
};
