/**
 * No superlinear path (issue 12, finding 2 and "make the suite find this class of defect"): every
 * per-event step costs O(1) amortized (or O(log n)) in the size of the conversation, of the
 * incomplete list and of the issuer list. Each shape is run at a size n and at 10n in this one
 * process; the time per event at 10n may be at most 3× the time per event at n (`MAX_RATIO`). A
 * quadratic path makes it ~10×. Timings are the best of several repetitions (the minimum is what
 * the code costs; everything above it is the machine's load), after a warm-up, so the ratio holds on
 * a loaded 2-core machine.
 *
 * Before the fix, "open then close" and "abandoned runs" took 5–40× per event at 10n: every
 * START/END copied the whole `history.incomplete`, and abandoned items stayed in it.
 */
import { from } from "rxjs";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { ev, msg } from "../../src/testing/builders";

/**
 * Switches for the lead. `many encrypted values` is superlinear only because recording an issuer
 * copies the issuer list (src/history/issuers.ts), which the performance issue fixes; switch it on
 * once that fix is merged.
 */
export const SCALING_SWITCHES = {
  issuerListFixed: true,
};

/**
 * Time per event at 10n over time per event at n, at most. A quadratic path reads ≈ 10× and an
 * n^1.5 one 3.2×; a linear one 1.0–1.8× here (the caches and the collector: "long snapshots", whose
 * 20,000 messages outgrow the caches, reads 1.55–1.74 alone and went over 2 once in five CI runs
 * under two jest workers). 3 tells them apart with room on both sides.
 */
const MAX_RATIO = 3;
/** Measurements of each size per attempt (the best counts), alternating the sizes so load hits both alike. */
const REPETITIONS = 2;
const ATTEMPTS = 6;

interface Shape {
  readonly name: string;
  /** The stream at size n. */
  readonly stream: (n: number) => unknown[];
  /** Base size n (the larger run is 10n). */
  readonly n: number;
  readonly enabled?: boolean;
}

const SHAPES: readonly Shape[] = [
  {
    name: "open/close churn: n reasoning messages opened, then all closed (n open at once)",
    n: 800,
    stream: (n) => {
      const events: unknown[] = [ev.runStarted()];
      for (let i = 0; i < n; i++)
        events.push(ev.reasoningMessageStart(`m${i}`), ev.reasoningMessageContent(`m${i}`, "x"));
      for (let i = 0; i < n; i++) events.push(ev.reasoningMessageEnd(`m${i}`));
      events.push(ev.runFinished());
      return events;
    },
  },
  {
    name: "open/close churn: n tool calls opened and closed one after another, n text messages likewise",
    n: 400,
    stream: (n) => {
      const events: unknown[] = [ev.runStarted()];
      for (let i = 0; i < n; i++) {
        events.push(ev.toolCallStart(`tc${i}`), ev.toolCallArgs(`tc${i}`, "{}"), ev.toolCallEnd(`tc${i}`));
        events.push(ev.textStart(`a${i}`), ev.textContent(`a${i}`, "x"), ev.textEnd(`a${i}`));
      }
      events.push(ev.runFinished());
      return events;
    },
  },
  {
    name: "many runs: n/10 runs that each open 10 messages and end with RUN_ERROR (abandoned items accumulate)",
    n: 800,
    stream: (n) => {
      const events: unknown[] = [];
      for (let r = 0; r < n / 10; r++) {
        events.push(ev.runStarted(`r${r}`));
        for (let i = 0; i < 10; i++)
          events.push(ev.reasoningMessageStart(`m${r}-${i}`), ev.reasoningMessageContent(`m${r}-${i}`, "x"));
        events.push(ev.runError());
      }
      return events;
    },
  },
  {
    name: "many runs: n runs, each a text message with a fresh id that a snapshot restating two messages drops again",
    n: 300,
    stream: (n) => {
      const events: unknown[] = [];
      for (let r = 0; r < n; r++) {
        events.push(ev.runStarted(`r${r}`), ev.textStart(`m${r}`), ev.textContent(`m${r}`, "x"), ev.textEnd(`m${r}`));
        events.push(ev.messagesSnapshot([msg.user("u1", "hi"), msg.assistant("a1", "ok")]), ev.runFinished(`r${r}`));
      }
      return events;
    },
  },
  {
    name: "many encrypted values: n reasoning messages, each given an encrypted value",
    n: 2000,
    enabled: SCALING_SWITCHES.issuerListFixed,
    stream: (n) => {
      const events: unknown[] = [ev.runStarted()];
      for (let i = 0; i < n; i++) {
        events.push(
          ev.reasoningMessageStart(`m${i}`),
          ev.reasoningMessageEnd(`m${i}`),
          ev.encryptedValue("message", `m${i}`, "opaque"),
        );
      }
      events.push(ev.runFinished());
      return events;
    },
  },
  {
    name: "long snapshots: one MESSAGES_SNAPSHOT of n messages, then a delta to each of n/10 of them",
    n: 2000,
    stream: (n) => {
      const messages = Array.from({ length: n }, (_, i) => msg.assistant(`a${i}`, "x"));
      const events: unknown[] = [ev.runStarted(), ev.messagesSnapshot(messages)];
      for (let i = 0; i < n; i += 10)
        events.push(ev.textStart(`a${i}`), ev.textContent(`a${i}`, "y"), ev.textEnd(`a${i}`));
      events.push(ev.runFinished());
      return events;
    },
  },
];

/** Units of work of a stream: its events, plus the messages a snapshot carries. */
function sizeOf(events: readonly unknown[]): number {
  let size = 0;
  for (const e of events) {
    const messages = (e as { messages?: unknown }).messages;
    size += Array.isArray(messages) ? messages.length : 1;
  }
  return size;
}

/** Best time (ms) of `reps` runs of the facade over `events`, every view subscribed and the history read each time. */
function bestTime(events: readonly unknown[], reps: number): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const started = performance.now();
    const p = reasoningPipeline(from(events), { producer: "p", onWarning: () => {} });
    let histories = 0;
    p.history$.subscribe(() => histories++);
    p.warnings$.subscribe();
    let failure: unknown;
    p.events$.subscribe({ error: (e: unknown) => (failure = e) });
    const elapsed = performance.now() - started;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the pipeline's own error, rethrown as it is
    if (failure !== undefined) throw failure;
    if (histories === 0) throw new Error("no history published");
    best = Math.min(best, elapsed);
  }
  return best;
}

/** Time per unit of work at 10n over time per unit at n: the best of REPETITIONS alternating measurements. */
function measureRatio(small: readonly unknown[], large: readonly unknown[]): number {
  let perSmall = Infinity;
  let perLarge = Infinity;
  for (let rep = 0; rep < REPETITIONS; rep++) {
    perSmall = Math.min(perSmall, bestTime(small, 3) / sizeOf(small));
    perLarge = Math.min(perLarge, bestTime(large, 1) / sizeOf(large));
  }
  return perLarge / perSmall;
}

describe("scaling: time per event at 10× the size grows at most 3×", () => {
  for (const { name, stream, n, enabled } of SHAPES) {
    // A shape switched off for the lead (SCALING_SWITCHES) is reported as skipped, not silently dropped.
    (enabled === false ? it.skip : it)(`no superlinear path: ${name}`, () => {
      const small = stream(n);
      const large = stream(10 * n);
      // Warm-up (compiled code for both sizes).
      bestTime(small, 3);
      bestTime(large, 1);
      // A quadratic path exceeds the bound every time (5–10×); the machine's load only now and then:
      // a ratio over the bound is measured again, up to ATTEMPTS times, and the best one counts.
      let ratio = Infinity;
      for (let attempt = 0; attempt < ATTEMPTS && ratio > MAX_RATIO; attempt++)
        ratio = Math.min(ratio, measureRatio(small, large));
      if (process.env.SCALING_REPORT) console.log(`${name}: ${ratio.toFixed(2)}`);
      expect({ ratio: Number(ratio.toFixed(2)), withinBound: ratio <= MAX_RATIO }).toEqual({
        ratio: expect.any(Number),
        withinBound: true,
      });
    });
  }
});
