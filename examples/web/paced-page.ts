/**
 * Bundled into the page by test/browser/paced.test.ts: a paced pipeline (D-PACE) on `animationFrameScheduler` in
 * a real browser. The source sends a run of one reasoning message, `PER_FRAME` deltas per animation
 * frame (from inside requestAnimationFrame callbacks, as a network chunk would arrive), then
 * RUN_FINISHED. The page records, per publication, the animation frame it happened in, the text it
 * showed, and what the history held when RUN_FINISHED reached `events$`; and runs the same events
 * unpaced to compare the last history.
 */
import { animationFrameScheduler, from, Observable } from "rxjs";
import { reasoningPipeline, type ReasoningHistory } from "../../src";

const PER_FRAME = 40;
const FRAMES = 12;
const producer = "https://agent.example/run";

const events: unknown[] = [
  { type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: 1 },
  { type: "REASONING_MESSAGE_START", messageId: "m", role: "reasoning", timestamp: 2 },
];
for (let i = 0; i < PER_FRAME * FRAMES; i++)
  events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: "m", delta: "x" });
events.push({ type: "REASONING_MESSAGE_END", messageId: "m", timestamp: 3 });
events.push({ type: "RUN_FINISHED", threadId: "t", runId: "r", timestamp: 4 });

// The animation frame the page is in: counted by a requestAnimationFrame loop of its own.
let frame = 0;
let counting = true;
const tick = (): void => {
  frame++;
  if (counting) requestAnimationFrame(tick);
};
requestAnimationFrame(tick);

/** `PER_FRAME` events per animation frame, each batch from inside a frame callback. */
const perFrame = new Observable<unknown>((subscriber) => {
  let next = 0;
  const batch = (): void => {
    for (let n = 0; n < PER_FRAME && next < events.length; n++) subscriber.next(events[next++]);
    if (next < events.length) requestAnimationFrame(batch);
    else subscriber.complete();
  };
  requestAnimationFrame(batch);
});

const textOf = (h: ReasoningHistory): string => {
  const content = h.messages.find((m) => m.id === "m")?.content;
  return typeof content === "string" ? content : "";
};

// The same events unpaced, first (a synchronous source: done when connect() returns).
const unpaced = reasoningPipeline(from(events), { producer });
let unpacedCount = 0;
// The views complete with their source: nothing to unsubscribe.
// eslint-disable-next-line rxjs-x/no-ignored-subscription
unpaced.history$.subscribe(() => unpacedCount++);
unpaced.connect();

const paced = reasoningPipeline(perFrame, { producer, historyPace: 0, scheduler: animationFrameScheduler });
const published: { frame: number; length: number }[] = [];
// eslint-disable-next-line rxjs-x/no-ignored-subscription
paced.history$.subscribe((h) => published.push({ frame, length: textOf(h).length }));
let atFinish: number | undefined;
const strip = (h: ReasoningHistory): string => JSON.stringify({ ...h, durations: [] });
// eslint-disable-next-line rxjs-x/no-ignored-subscription
paced.events$.subscribe({
  next: (e) => {
    if (e.type === "RUN_FINISHED") atFinish = textOf(paced.history).length;
  },
  complete: () => {
    counting = false;
    (window as { pacedResult?: unknown }).pacedResult = {
      published,
      atFinish,
      total: PER_FRAME * FRAMES,
      unpacedCount,
      sameLast: strip(paced.history) === strip(unpaced.history),
      incomplete: paced.history.incomplete.length,
    };
    document.body.dataset.state = "done";
  },
  error: (e: unknown) => {
    (window as { pacedResult?: unknown }).pacedResult = { error: String(e) };
    document.body.dataset.state = "failed";
  },
});
