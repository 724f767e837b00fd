import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createRequire } from "node:module";
import { asyncScheduler, from, map, type Observable } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import { countEncryptedValues, RUN_ID, THREAD_ID, type BenchStream } from "./streams";

/**
 * The four ways the benchmark pushes one stream through a pipeline. Each variant runs the stream
 * once and resolves when the pipeline completed; it never copies the input (the events array is
 * built once per child process, outside the timing).
 */
export const VARIANTS = ["floor", "pipeline", "validated", "chained", "reference"] as const;
export type VariantName = (typeof VARIANTS)[number];

export const VARIANT_LABELS: Readonly<Record<VariantName, string>> = {
  floor: "(a) floor: from + 5×map(identity)",
  pipeline: "(b) reasoningPipeline: events$ + history$ + warnings$",
  validated: "(c) stage operators, no history$",
  chained: "(c') the five operators piped, deriveHistory last",
  reference: "(d) @ag-ui/client 1.0.0 chain",
};

/** What one run produced, for the correctness check that precedes the timing. */
export interface RunOutcome {
  /** Values the pipeline emitted (events, or mutations for the reference). */
  readonly emitted: number;
  readonly warnings: number;
  /** Final conversation, when the variant derives one (message id → content length). */
  readonly content?: ReadonlyMap<string, number>;
  /** Final conversation: encrypted values found (messages and tool calls). */
  readonly encryptedValues?: number;
  /** Final conversation: messages. */
  readonly messages?: number;
  /** The final history itself (ours), for the retained-memory measurement. */
  readonly history?: { readonly messages: readonly Message[]; readonly issuers: readonly unknown[] };
}

/**
 * Called every `PROBE_EVERY` emitted values during the (untimed) memory run, from inside the
 * event flow, so a synchronous pipeline can still be sampled while it runs.
 */
export type Probe = () => void;
export const PROBE_EVERY = 1024;

export type Variant = (stream: BenchStream, probe?: Probe) => Promise<RunOutcome>;

/** Subscribes `source$`, counting emissions; the sink is chosen once so timed runs pay no probe check. */
function drain<T>(source$: Observable<T>, probe: Probe | undefined, onValue?: (value: T) => void): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    // Values received so far (the run's emission count).
    let count = 0;
    const next =
      probe === undefined
        ? onValue === undefined
          ? () => {
              count++;
            }
          : (value: T) => {
              count++;
              onValue(value);
            }
        : (value: T) => {
            if ((++count & (PROBE_EVERY - 1)) === 0) probe();
            onValue?.(value);
          };
    source$.subscribe({ next, error: reject, complete: () => resolve(count) });
  });
}

const identity = <T>(x: T): T => x;

/** (a) The floor: what RxJS itself costs for five operators over the same array. */
export const floor: Variant = async (stream, probe) => {
  const emitted = await drain(
    from(stream.events).pipe(map(identity), map(identity), map(identity), map(identity), map(identity)),
    probe,
  );
  return { emitted, warnings: 0 };
};

/** Content lengths and stored encrypted values of a message list (the sanity check's summary). */
export function summarize(messages: readonly Message[]): {
  content: Map<string, number>;
  encryptedValues: number;
  messages: number;
} {
  const content = new Map<string, number>();
  for (const m of messages) if (typeof m.content === "string") content.set(m.id, m.content.length);
  return { content, encryptedValues: countEncryptedValues(messages), messages: messages.length };
}

// Our package is measured as it ships: the bundle `npm run build` writes to dist/ (`npm run bench`
// builds first). Through tsx every call between our source files goes through a module getter,
// which is not what users run. BENCH_SOURCE=src measures src/ through tsx instead (no build needed).
// The bundle is loaded by a computed path, so the typecheck (`npm test`) needs no dist/: its types
// are src/'s, which the bundle is built from.
type Ours = typeof import("../src");
let ours: Ours | undefined;
const DIST_BUNDLE = resolve(__dirname, "../dist/index.cjs");
async function loadOurs(): Promise<Ours> {
  ours ??= process.env.BENCH_SOURCE === "src" ? await import("../src") : await loadBundle();
  return ours;
}
async function loadBundle(): Promise<Ours> {
  if (!existsSync(DIST_BUNDLE))
    throw new Error(`${DIST_BUNDLE} does not exist: run \`npm run bench\` (it builds first), or set BENCH_SOURCE=src`);
  return (await import(DIST_BUNDLE)) as Ours;
}

const PACE = process.env.BENCH_PACE === undefined ? undefined : Number(process.env.BENCH_PACE);

/** The producer identity every run of ours is created for (D-ISSUER). */
const PRODUCER = "bench://agent";

/** (b) The facade with all three streams subscribed, as an application uses it. */
export const pipeline: Variant = async (stream, probe) => {
  const { reasoningPipeline } = await loadOurs();
  let warnings = 0;
  const p = reasoningPipeline(from(stream.events), {
    producer: PRODUCER,
    initialMessages: stream.priorMessages,
    onWarning: () => {
      warnings++;
    },
    // BENCH_PACE=16: the paced facade (D-PACE), e.g. to profile it with bench/profile.ts.
    ...(PACE === undefined ? {} : { historyPace: PACE, scheduler: asyncScheduler }),
  });
  // The latest history (what a UI would render).
  let history: { readonly messages: readonly Message[]; readonly issuers: readonly unknown[] } | undefined;
  // history$ and warnings$ first, so a synchronous source is seen whole (see ReasoningPipeline).
  p.history$.subscribe((h) => {
    history = h;
  });
  p.warnings$.subscribe(() => {});
  const emitted = await drain(p.events$, probe);
  return { emitted, warnings, ...(history ? { ...summarize(history.messages), history } : {}) };
};

/** (c) The four event operators chained one after another, without deriving history$. */
export const validated: Variant = async (stream, probe) => {
  const { upcastThinking, enforceSchema, expandChunks, verifyDiscipline } = await loadOurs();
  let warnings = 0;
  const onWarning = (): void => {
    warnings++;
  };
  const emitted = await drain(
    from(stream.events).pipe(
      upcastThinking({ onWarning }),
      enforceSchema({ onWarning }),
      expandChunks({ onWarning }),
      verifyDiscipline({ onWarning }),
    ),
    probe,
  );
  return { emitted, warnings };
};

/**
 * (c') The five operators piped one after another — the composable chain the package is named for —
 * with the history derived by `deriveHistory` (the latest one kept, as a UI would).
 */
export const chained: Variant = async (stream, probe) => {
  const { upcastThinking, enforceSchema, expandChunks, verifyDiscipline, deriveHistory } = await loadOurs();
  let warnings = 0;
  const onWarning = (): void => {
    warnings++;
  };
  const seed = { producer: PRODUCER, initialMessages: stream.priorMessages as Message[], onWarning };
  let history: { readonly messages: readonly Message[]; readonly issuers: readonly unknown[] } | undefined;
  const emitted = await drain(
    from(stream.events).pipe(
      upcastThinking({ onWarning }),
      enforceSchema({ onWarning }),
      expandChunks({ onWarning }),
      verifyDiscipline({ onWarning, initialMessages: seed.initialMessages }),
      deriveHistory(seed),
    ),
    probe,
    (h) => {
      history = h;
    },
  );
  return { emitted, warnings, ...(history ? { ...summarize(history.messages), history } : {}) };
};

/**
 * (d) @ag-ui/client 1.0.0's own chain, composed exactly as `AbstractAgent.runAgent` composes it:
 * the CompatibilityBoundary middleware around the agent's `run`, then `enforceEvents`,
 * `transformChunks`, `verifyEvents`, and `defaultApplyEvents` (which yields the state mutations).
 * The source is built with the client's own rxjs (it ships 7.8.1 beside our 7.8.2).
 */
export const reference: Variant = async (stream, probe) => {
  const client = await import("@ag-ui/client");
  const { AbstractAgent, CompatibilityBoundary, enforceEvents, transformChunks, verifyEvents, defaultApplyEvents } =
    client;
  const clientRx = createRequire(require.resolve("@ag-ui/client"))("rxjs") as typeof import("rxjs");
  type ClientEvents = ReturnType<InstanceType<typeof client.HttpAgent>["run"]>;
  const events = stream.events;
  class ReplayAgent extends AbstractAgent {
    run(): ClientEvents {
      return clientRx.from(events) as unknown as ClientEvents;
    }
  }
  const agent = new ReplayAgent({ threadId: THREAD_ID, initialMessages: stream.priorMessages as Message[] });
  const input: RunAgentInput = {
    threadId: THREAD_ID,
    runId: RUN_ID,
    messages: structuredClone(stream.priorMessages) as Message[],
    tools: [],
    context: [],
    forwardedProps: {},
    state: {},
  };
  const raw$ = new CompatibilityBoundary().run(input, agent);
  const verified$ = raw$.pipe(enforceEvents(), transformChunks(), verifyEvents());
  const mutations$ = defaultApplyEvents(input, verified$, agent, []);
  // The messages of the latest mutation that carried any (the reference's derived history).
  let messages: Message[] | undefined;
  const emitted = await drain(mutations$ as unknown as Observable<{ messages?: Message[] }>, probe, (m) => {
    if (m.messages) messages = m.messages;
  });
  return { emitted, warnings: 0, ...(messages ? summarize(messages) : {}) };
};

export const VARIANT_RUNNERS: Readonly<Record<VariantName, Variant>> = {
  floor,
  pipeline,
  validated,
  chained,
  reference,
};
