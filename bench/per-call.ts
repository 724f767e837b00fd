import { performance } from "node:perf_hooks";
import { from, lastValueFrom, type Observable } from "rxjs";
import type { ReasoningHistory } from "../src";
import { messagesOf, reasoningPipeline, reasoningView, toRunInputMessages } from "../src";
import { reasoningMiddleware } from "../src/integration/http-agent-middleware";
import { median } from "./paced-cells";
import { buildStream } from "./streams";

/**
 * What the calls a chat UI makes once per update or once per run cost at a conversation's length
 * (docs/chat-ui.md, docs/ui-libraries.md): `reasoningView(history, previous)` on a history whose turns
 * are all unchanged (the least a call does: it checks the history and compares every turn), and
 * `toRunInputMessages`, each on the mixed conversation's final history (paced, as a chat UI runs it); and one run of the middleware
 * seeded with that history, the application sending the whole conversation back (`messagesOf`), the
 * next agent replaying one more run of the same shape.
 *
 *   npm run bench:per-call -- [runs=1000,4000] [samples=15]
 */

const sizes = (process.argv[2] ?? "1000,4000").split(",").map(Number);
const samples = Number(process.argv[3] ?? 15);
const PRODUCER = "bench://agent";

function timed(run: () => void): number {
  run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function main(): Promise<void> {
  console.log(
    `| runs | messages | reasoningView (unchanged) | toRunInputMessages | middleware run (${samples} samples) |`,
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const runs of sizes) {
    const events = buildStream({ kind: "conversation", shape: "mixed", runs: runs + 1 }).events;
    // Where the last run starts: it is the one the next agent replays.
    let last = 0;
    events.forEach((e, i) => {
      if (e.type === "RUN_STARTED") last = i;
    });
    let history: ReasoningHistory | undefined;
    // Paced, as docs/chat-ui.md has a chat UI run it (the final history is the unpaced one's, D-PACE).
    const pipeline = reasoningPipeline(from(events.slice(0, last)), { producer: PRODUCER, historyPace: 16 });
    pipeline.history$.subscribe((h) => (history = h));
    await lastValueFrom(pipeline.events$, { defaultValue: undefined });
    const h = history!;
    const view = reasoningView(h);
    const viewMs = timed(() => reasoningView(h, view));
    const inputMs = timed(() => toRunInputMessages(h, { producer: PRODUCER }));

    const middleware = reasoningMiddleware({ producer: PRODUCER, initialHistory: h, onWarning: () => {} });
    const sent = messagesOf(h);
    const next = { run: () => from(events.slice(last)) };
    const input = (i: number) => ({
      threadId: "t",
      runId: `again-${i}`,
      messages: sent,
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    const runMs: number[] = [];
    for (let i = 0; i <= samples; i++) {
      const t0 = performance.now();
      await lastValueFrom(middleware(input(i), next) as Observable<unknown>, { defaultValue: undefined });
      if (i > 0) runMs.push(performance.now() - t0); // the first is the warm-up
    }
    console.log(
      `| ${runs} | ${h.messages.length} | ${viewMs.toFixed(2)} ms | ${inputMs.toFixed(2)} ms | ${median(runMs).toFixed(1)} ms |`,
    );
  }
}

void main();
