import { distinctUntilChanged, from, lastValueFrom, map, type Observable } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import { reasoningPipeline, toRunInputMessages } from "../../src";
import type { ReasoningHistory, ReasoningPipelineOptions } from "../../src";
import {
  alphabet,
  createTestScheduler,
  ev,
  expectPipeline,
  historyOf,
  installReasoningMatchers,
  loadRecording,
  mockAgent,
  msg,
  runPipeline,
} from "../../src/testing";

// ---- The integrator's code (in an app it lives in its own module) -------------------------------

export interface Panel {
  readonly thinking: string;
  readonly answer: string;
}

/** The app's pipeline: AG-UI events in, what the reasoning panel shows out. */
export function reasoningPanel(events$: Observable<unknown>, options: ReasoningPipelineOptions) {
  const pipeline = reasoningPipeline(events$, options);
  const panel$ = pipeline.history$.pipe(
    map((h) => ({
      thinking: h.messages
        .filter((m) => m.role === "reasoning")
        .map((m) => m.content)
        .join("\n"),
      answer: h.messages
        .filter((m) => m.role === "assistant")
        .map((m) => m.content ?? "")
        .join(""),
    })),
    distinctUntilChanged((a, b) => a.thinking === b.thinking && a.answer === b.answer),
  );
  return { events$: pipeline.events$, warnings$: pipeline.warnings$, panel$ };
}

/** One turn: the question goes out with the history (values only for this agent), the new history comes back. */
export async function ask(
  agent: { url: string; run(input: RunAgentInput): Observable<unknown> },
  history: ReasoningHistory,
  question: string,
): Promise<ReasoningHistory> {
  const asked = {
    ...history,
    messages: [...history.messages, { id: `u${history.messages.length}`, role: "user", content: question } as Message],
  };
  const messages = toRunInputMessages(asked, { producer: agent.url });
  const input: RunAgentInput = {
    threadId: "t1",
    runId: `r${messages.length}`,
    messages,
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const pipeline = reasoningPipeline(agent.run(input), {
    producer: agent.url,
    initialHistory: asked,
    onWarning: () => {},
  });
  await lastValueFrom(pipeline.events$, { defaultValue: undefined });
  return pipeline.history;
}

// ---- Its tests, with agui-reasoning/testing ------------------------------------------------------

installReasoningMatchers();
const options = { producer: "https://agent.test/run", onWarning: () => {} };
const panel = (thinking: string, answer: string): Panel => ({ thinking, answer });

it("R-STREAM-15: the panel shows the thinking as it streams, then the answer", () => {
  createTestScheduler().run((helpers) => {
    const { events$, panel$, warnings$ } = reasoningPanel(helpers.cold("R k--- K h---- F--- |", alphabet), options);
    expectPipeline(helpers, { events$, history$: panel$, warnings$ }).toBe(
      `
      events:   R (<c) C (>ta) (TF) |
      history:  0 1--- 2 3---- ---- |
      warnings: - ---- - ----- ---- |
      `,
      {
        ...alphabet,
        0: panel("", ""),
        1: panel("Let me", ""),
        2: panel("Let me think.", ""),
        3: panel("Let me think.", "Hello"),
      },
    );
  });
});

it("R-REASON-17: the next turn sends the encrypted reasoning back, byte for byte", async () => {
  const agent = mockAgent([
    [
      ev.runStarted("r1"),
      ev.reasoningChunk("m1", "Let me"),
      ev.encryptedValue("message", "m1", "opaque"),
      ev.textChunk("a1", "Hi"),
      ev.runFinished("r1"),
    ],
    [ev.runStarted("r3"), ev.textChunk("a2", "Again"), ev.runFinished("r3")],
  ]);
  const first = await ask(agent, historyOf(), "hello");
  await ask(agent, first, "and now?");
  expect(agent.inputs[1]!.messages).toContainEqual(msg.reasoning("m1", "Let me", { encryptedValue: "opaque" }));
});

it("R-REASON-9: a broken producer fails the panel with ORPHAN_CONTENT; a legacy one is upcast with warnings", () => {
  expect(reasoningPanel(from(loadRecording("broken-orphan-content")), options).events$).toFailWithCode(
    "ORPHAN_CONTENT",
    { eventIndex: 5 },
  );
  expect(runPipeline(loadRecording("legacy-thinking-0.0.45"))).toWarnWith("THINKING_UPCAST", {
    eventType: "THINKING_START",
  });
});

it("docs/testing.md shows this file verbatim (with the package's import paths)", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kept out of the imports docs/testing.md shows
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  const self = readFileSync(__filename, "utf8");
  const example = self
    .slice(0, self.indexOf('\n\nit("docs/testing.md shows this file verbatim'))
    .replace('"../../src/testing"', '"agui-reasoning/testing"')
    .replaceAll('"../../src"', '"agui-reasoning"');
  const doc = readFileSync(require.resolve("../../docs/testing.md"), "utf8");
  expect(doc.includes("```ts\n" + example + "\n```")).toBe(true);
});
