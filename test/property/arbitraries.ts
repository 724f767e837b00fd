/**
 * fast-check generators for AG-UI 1.0 reasoning streams.
 *
 * A stream is generated as a PLAN (plain data that fast-check can shrink: runs, items, a schedule of
 * interleaving choices, mutations) and then BUILT deterministically into events by `buildCase`.
 *
 * Valid streams: several runs, each interleaving independent items — explicit and chunked reasoning
 * messages, text messages and tool calls (with results), reasoning spans, steps, activity snapshots,
 * RAW/CUSTOM/STATE fillers, encrypted values on every kind of target (messages of every role, tool
 * calls, activity messages, span ids, unknown ids), MESSAGES_SNAPSHOTs, reopened messages from
 * earlier runs, legacy THINKING_* runs and subagent lanes (tagged events, optional SUBAGENT_*
 * lifecycle). The interleaving respects exactly what keeps a stream valid:
 *   - a chunk block (first chunk with its id, then continuations that may omit it) holds its lane:
 *     no other event of that lane that would close the chunk stream (R-STREAM-15b) is scheduled
 *     inside it; RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE may be;
 *   - run-level events (MESSAGES_SNAPSHOT) wait until no block is in progress (R-STREAM-15c);
 *   - a subagent's events come after its SUBAGENT_STARTED and before its SUBAGENT_FINISHED.
 * Valid streams end every run with RUN_FINISHED or RUN_ERROR, except that the last run may be cut
 * (truncated, D-TRUNC).
 *
 * Mutations turn a valid stream into an arbitrary one: drop, duplicate, swap adjacent, retarget an
 * id, truncate, corrupt a field (wrong type, null, unknown property, unknown type, unknown subtype,
 * wrong role, missing required field, non-object event, removed attribution).
 */
import fc from "fast-check";
import type { Message } from "@ag-ui/core";

type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Leaves: ids, deltas, values, metadata
// ---------------------------------------------------------------------------------------------

/** Ids that break naive code: prototype keys, the empty string, unicode, a long one. */
export const SPECIAL_IDS = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
  "valueOf",
  " ",
  "🧠💭",
  "a\u0000b",
  "x".repeat(300),
];

/** Prefix of the ids the tests' idFactory mints (D-THINK-IDS); generated ids never use it. */
export const MINT_PREFIX = "think-";

export const idArb: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_IDS) },
    { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 4 }) },
  )
  .filter((id) => !id.startsWith(MINT_PREFIX));

export const deltaArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 5 }) },
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 5 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 100, maxLength: 600 }) },
);

export const encryptedValueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.base64String({ minLength: 4, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 800 }) },
  { weight: 1, arbitrary: fc.constantFrom(" padded ", '{"json":true}', "gAAAA==\n", "\u2028\u2029") },
);

/** Metadata objects; keys include "__proto__" as an own property (Object.fromEntries). */
export const metadataArb: fc.Arbitrary<Obj> = fc
  .uniqueArray(
    fc.tuple(fc.constantFrom("k", "finish", "__proto__", "provider.note", "ag-ui", "n"), fc.jsonValue({ maxDepth: 1 })),
    { minLength: 1, maxLength: 3, selector: (entry) => entry[0] },
  )
  .map((entries) => Object.fromEntries(entries) as Obj);

/** `arb` with probability 1/`oneIn`, otherwise undefined (shrinks towards undefined). */
function sometimes<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

const optionalMeta = sometimes(metadataArb, 4);

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------

/** 0 = the parent agent, 1 and 2 = two subagent invocations of the run. */
export type Lane = 0 | 1 | 2;
const laneArb: fc.Arbitrary<Lane> = fc.constantFrom<Lane>(0, 0, 0, 1, 2);
const TEXT_ROLES = ["assistant", "user", "system", "developer"] as const;

interface ChunkPlan {
  readonly delta: string | undefined;
  /** Continuations may omit the id (and opener fields); a block's first chunk never does. */
  readonly omitId: boolean;
  readonly meta: Obj | undefined;
}

export interface MessageItemPlan {
  readonly kind: "message";
  readonly family: "reasoning" | "text";
  readonly form: "explicit" | "chunk";
  readonly lane: Lane;
  readonly role: (typeof TEXT_ROLES)[number] | undefined;
  readonly name: string | undefined;
  /** Explicit form: the deltas. Chunk form: the chunks. */
  readonly deltas: readonly string[];
  readonly chunks: readonly ChunkPlan[];
  /** Chunk form: indexes where a new block starts (the item is reopened there, its first chunk re-carries the id). */
  readonly splits: readonly number[];
  readonly startMeta: Obj | undefined;
  readonly endMeta: Obj | undefined;
  /** Subagent items: continuations drop the tag (R-SUB-2: untagged continuations are accepted). */
  readonly untagContinuations: boolean;
  /** Reopen a message of the same family from an earlier run instead of a fresh id (R-TEXT-5, R-RUN-10). */
  readonly reopen: number | undefined;
}

export interface ToolItemPlan {
  readonly kind: "tool";
  readonly form: "explicit" | "chunk";
  readonly lane: Lane;
  readonly toolName: string;
  readonly args: readonly string[];
  readonly omitIds: readonly boolean[];
  /**
   * Where the call lands: no parentMessageId, an assistant text item of the run, a fresh id, or any
   * message known when the call starts (a non-assistant one is a parent conflict, warned).
   */
  readonly parent: "none" | "text" | "fresh" | "known";
  readonly parentPick: number;
  readonly meta: Obj | undefined;
  readonly result: string | undefined;
}

export interface SpanItemPlan {
  readonly kind: "span";
  readonly lane: Lane;
  /** Share the id of a reasoning message item of the run (R-REASON-12). */
  readonly shareId: number | undefined;
  readonly meta: Obj | undefined;
}

export interface StepItemPlan {
  readonly kind: "step";
  readonly lane: Lane;
  readonly name: string;
}

export interface ValueItemPlan {
  readonly kind: "value";
  /** What the value names; resolved when it is scheduled, among the entities known by then. */
  readonly target: "message" | "tool-call" | "activity" | "span" | "unknown" | "mismatch";
  readonly pick: number;
  readonly value: string;
  /** A second value for the same entity later (D-REPEAT). */
  readonly repeat: string | undefined;
  readonly lane: Lane;
  readonly meta: Obj | undefined;
}

export interface FillerItemPlan {
  readonly kind: "filler";
  readonly which: "raw" | "custom" | "state-snapshot" | "state-delta" | "activity";
  readonly lane: Lane;
}

export interface ActivityItemPlan {
  readonly kind: "activity";
  readonly lane: Lane;
  /** A second ACTIVITY_SNAPSHOT for the same message later, maybe with `replace: false`. */
  readonly again: "no" | "replace" | "keep";
  readonly meta: Obj | undefined;
}

export type ItemPlan =
  MessageItemPlan | ToolItemPlan | SpanItemPlan | StepItemPlan | ValueItemPlan | FillerItemPlan | ActivityItemPlan;

export interface LegacyPlan {
  readonly title: string | undefined;
  /** Metadata on THINKING_START; one that already holds agui-reasoning.thinkingTitle makes the title drop. */
  readonly startMeta: Obj | undefined;
  readonly span: boolean;
  /** Seed-001 style: the legacy START events carry a messageId (D-THINK-IDS: it is used). */
  readonly carryIds: boolean;
  readonly messages: readonly (readonly string[])[];
}

export interface SnapshotPlan {
  /** For each held message (in order), whether the snapshot restates it. */
  readonly restate: readonly boolean[];
  readonly restatedContent: readonly string[];
  readonly restatedValues: readonly (string | undefined)[];
  readonly newcomers: readonly MessageLiteralPlan[];
  /** A decoy copy (another content and value) of the listed message at this index (modulo), right before it: the later copy wins (R-STATE-4, R-EVT-8). */
  readonly decoy: number | undefined;
}

export interface MessageLiteralPlan {
  readonly role: "user" | "assistant" | "system" | "developer" | "reasoning" | "tool" | "activity";
  readonly content: string;
  readonly value: string | undefined;
  /** Assistant messages: tool calls with optional values. */
  readonly toolCalls: readonly { readonly args: string; readonly value: string | undefined }[];
}

export interface RunPlan {
  readonly items: readonly ItemPlan[];
  readonly legacy: LegacyPlan | undefined;
  readonly snapshot: SnapshotPlan | undefined;
  readonly input: readonly MessageLiteralPlan[] | undefined;
  /** RUN_STARTED.input also restates messages already held (they are left as they are). */
  readonly echo: boolean;
  /** A decoy copy of the input message at this index (modulo), right after it: the first copy wins (R-EVT-8). */
  readonly inputDecoy: number | undefined;
  /** Announce subagent invocations with SUBAGENT_STARTED/FINISHED (lanes 1 and 2). */
  readonly announce: readonly [boolean, boolean];
  readonly terminal: "finished" | "success" | "cancelled" | "error-midway" | "truncated";
  readonly cut: number;
  readonly lateError: boolean;
  /** Interleaving choices (index into the ready items, modulo). */
  readonly schedule: readonly number[];
}

export type MutationPlan =
  | { readonly kind: "drop" | "duplicate" | "swap" | "truncate"; readonly at: number }
  | { readonly kind: "retarget"; readonly at: number; readonly pick: number }
  | { readonly kind: "corrupt"; readonly at: number; readonly how: Corruption };

export const CORRUPTIONS = [
  "delta-number",
  "id-number",
  "id-null",
  "metadata-null",
  "rawEvent-null",
  "unknown-property",
  "unknown-type",
  "missing-required",
  "non-object",
  "role-assistant",
  "subtype-unknown",
  "subtype-number",
  "untag",
  "untag-idless-chunk",
  "tag-null",
  "timestamp-float",
  "parentMessageId-null",
] as const;
export type Corruption = (typeof CORRUPTIONS)[number];

export interface CasePlan {
  readonly ids: readonly string[];
  readonly producer: string;
  readonly leadingError: boolean;
  readonly initial: readonly MessageLiteralPlan[];
  readonly runs: readonly RunPlan[];
  readonly mutations: readonly MutationPlan[];
}

// ----- plan arbitraries -----------------------------------------------------------------------

const chunkArb: fc.Arbitrary<ChunkPlan> = fc.record({
  delta: fc.option(deltaArb, { freq: 6, nil: undefined }), // absent 1 in 6
  omitId: fc.boolean(),
  meta: sometimes(metadataArb, 6),
});

const messageItemArb: fc.Arbitrary<MessageItemPlan> = fc.record({
  kind: fc.constant("message" as const),
  family: fc.constantFrom("reasoning" as const, "text" as const),
  form: fc.constantFrom("explicit" as const, "chunk" as const),
  lane: laneArb,
  role: sometimes(fc.constantFrom(...TEXT_ROLES), 2),
  name: sometimes(fc.string({ maxLength: 5 }), 4),
  deltas: fc.array(deltaArb, { maxLength: 5 }),
  chunks: fc.array(chunkArb, { minLength: 1, maxLength: 5 }),
  splits: fc.array(fc.nat(5), { maxLength: 2 }),
  startMeta: optionalMeta,
  endMeta: optionalMeta,
  untagContinuations: fc.boolean(),
  reopen: sometimes(fc.nat(), 5),
});

const toolItemArb: fc.Arbitrary<ToolItemPlan> = fc.record({
  kind: fc.constant("tool" as const),
  form: fc.constantFrom("explicit" as const, "chunk" as const),
  lane: laneArb,
  toolName: fc.oneof(fc.constantFrom("search", "get_weather"), fc.string({ maxLength: 5 })),
  args: fc.array(deltaArb, { maxLength: 4 }),
  omitIds: fc.array(fc.boolean(), { maxLength: 4 }),
  parent: fc.constantFrom("none" as const, "text" as const, "text" as const, "fresh" as const, "known" as const),
  parentPick: fc.nat(),
  meta: optionalMeta,
  result: sometimes(deltaArb, 2),
});

const valueItemArb: fc.Arbitrary<ValueItemPlan> = fc.record({
  kind: fc.constant("value" as const),
  target: fc.constantFrom(
    "message" as const,
    "message" as const,
    "message" as const,
    "tool-call" as const,
    "tool-call" as const,
    "activity" as const,
    "span" as const,
    "unknown" as const,
    "mismatch" as const,
  ),
  pick: fc.nat(),
  value: encryptedValueArb,
  repeat: sometimes(encryptedValueArb, 5),
  lane: laneArb,
  meta: sometimes(metadataArb, 6),
});

const itemArb: fc.Arbitrary<ItemPlan> = fc.oneof(
  { weight: 6, arbitrary: messageItemArb },
  { weight: 3, arbitrary: toolItemArb },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("span" as const),
      lane: laneArb,
      shareId: sometimes(fc.nat(), 3),
      meta: optionalMeta,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("step" as const),
      lane: laneArb,
      name: fc.oneof(fc.constantFrom("plan", "__proto__"), fc.string({ maxLength: 4 })),
    }),
  },
  { weight: 4, arbitrary: valueItemArb },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("filler" as const),
      which: fc.constantFrom(
        "raw" as const,
        "custom" as const,
        "state-snapshot" as const,
        "state-delta" as const,
        "activity" as const,
      ),
      lane: laneArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("activity" as const),
      lane: fc.constant<Lane>(0),
      again: fc.constantFrom("no" as const, "replace" as const, "keep" as const),
      meta: optionalMeta,
    }),
  },
);

export const messageLiteralArb: fc.Arbitrary<MessageLiteralPlan> = fc.record({
  role: fc.constantFrom(
    "user" as const,
    "assistant" as const,
    "assistant" as const,
    "system" as const,
    "developer" as const,
    "reasoning" as const,
    "reasoning" as const,
    "tool" as const,
    "activity" as const,
  ),
  content: deltaArb,
  value: sometimes(encryptedValueArb, 2),
  toolCalls: fc.array(fc.record({ args: fc.string({ maxLength: 6 }), value: sometimes(encryptedValueArb, 2) }), {
    maxLength: 2,
  }),
});

const legacyArb: fc.Arbitrary<LegacyPlan> = fc.record({
  title: sometimes(fc.string({ maxLength: 8 }), 2),
  startMeta: sometimes(
    fc.oneof(
      metadataArb,
      fc.constant({ "agui-reasoning": { thinkingTitle: "set" } }),
      fc.constant({ "agui-reasoning": { other: 1 } }),
    ),
    3,
  ),
  span: fc.boolean(),
  carryIds: fc.boolean(),
  messages: fc.array(fc.array(deltaArb, { maxLength: 4 }), { minLength: 1, maxLength: 2 }),
});

const snapshotArb: fc.Arbitrary<SnapshotPlan> = fc.record({
  restate: fc.array(fc.boolean(), { maxLength: 12 }),
  restatedContent: fc.array(deltaArb, { maxLength: 4 }),
  restatedValues: fc.array(sometimes(encryptedValueArb, 2), { maxLength: 4 }),
  newcomers: fc.array(messageLiteralArb, { maxLength: 2 }),
  decoy: sometimes(fc.nat(), 3),
});

export interface RunOptions {
  /** Allow MESSAGES_SNAPSHOT (off for the content-concatenation property). */
  readonly snapshots: boolean;
  readonly maxItems: number;
}

function runArb(options: RunOptions): fc.Arbitrary<RunPlan> {
  return fc.record({
    items: fc.array(itemArb, { maxLength: options.maxItems }),
    legacy: sometimes(legacyArb, 4),
    snapshot: options.snapshots ? sometimes(snapshotArb, 4) : fc.constant(undefined),
    input: sometimes(fc.array(messageLiteralArb, { maxLength: 2 }), 3),
    echo: fc.boolean(),
    inputDecoy: sometimes(fc.nat(), 3),
    announce: fc.tuple(fc.boolean(), fc.boolean()),
    terminal: fc.constantFrom(
      "finished" as const,
      "finished" as const,
      "success" as const,
      "cancelled" as const,
      "error-midway" as const,
      "truncated" as const,
    ),
    cut: fc.nat(),
    lateError: fc.boolean(),
    schedule: fc.array(fc.nat(), { maxLength: 40 }),
  });
}

const mutationArb: fc.Arbitrary<MutationPlan> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("drop" as const, "duplicate" as const, "swap" as const, "truncate" as const),
    at: fc.nat(),
  }),
  fc.record({ kind: fc.constant("retarget" as const), at: fc.nat(), pick: fc.nat() }),
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("corrupt" as const), at: fc.nat(), how: fc.constantFrom(...CORRUPTIONS) }),
  },
);

export interface CaseOptions extends RunOptions {
  readonly maxRuns: number;
  readonly maxMutations: number;
  readonly minMutations?: number;
}

export function casePlanArb(options: CaseOptions): fc.Arbitrary<CasePlan> {
  return fc.record({
    ids: fc.uniqueArray(idArb, { minLength: 30, maxLength: 30 }),
    producer: fc.constantFrom("https://agent.example/run", "agent-a", "__proto__"),
    leadingError: fc.boolean(),
    initial: fc.array(messageLiteralArb, { maxLength: 3 }),
    runs: fc.array(runArb(options), { minLength: 1, maxLength: options.maxRuns }),
    mutations: fc.array(mutationArb, { minLength: options.minMutations ?? 0, maxLength: options.maxMutations }),
  });
}

// ---------------------------------------------------------------------------------------------
// Building a plan into events
// ---------------------------------------------------------------------------------------------

export interface GeneratedCase {
  readonly producer: string;
  readonly initialMessages: Message[];
  readonly events: unknown[];
  /** For streams without mutations: message id → concatenation of its deltas in arrival order. */
  readonly deltasById: Map<string, string>;
  readonly mutated: boolean;
  readonly hasSnapshot: boolean;
}

/** One event of an item, as the scheduler sees it. */
interface Step {
  /** Built when scheduled (values and snapshots name what is known at that moment). */
  readonly make: () => Obj;
  /** The lane the event is in for chunk closing: its subagentRunId, or the parent. */
  readonly lane: string | undefined;
  /** The event ends an open chunk stream of its lane (R-STREAM-15b). */
  readonly closesLane: boolean;
  /** Chunk blocks hold their lane from their first chunk to their last. */
  readonly acquire?: boolean;
  readonly release?: boolean;
  /** A run-level event: waits until no lane is held. */
  readonly runLevel?: boolean;
  readonly ready?: () => boolean;
  readonly emitted?: () => void;
}

interface KnownMessage {
  readonly id: string;
  readonly role: string;
  readonly toolCalls: string[];
}

const PARENT = "\u0000parent";

class Builder {
  private next = 0;
  /** Messages and tool calls the consumer holds as far as the generator can tell. */
  readonly known: KnownMessage[] = [];
  /**
   * id → role as the verifier remembers it (D-ROLE-CONFLICT): first declaration wins, a snapshot
   * overwrites, nothing is forgotten. A reopen must agree with it as well as with the history.
   */
  readonly roleMemory = new Map<string, string>();
  readonly spans: string[] = [];
  readonly deltasById = new Map<string, string>();
  private minted = 0;
  hasSnapshot = false;

  constructor(private readonly plan: CasePlan) {}

  id(): string {
    const id = this.plan.ids[this.next];
    this.next++;
    return id ?? `gen-${this.next}`;
  }

  know(id: string, role: string): KnownMessage {
    let m = this.known.find((k) => k.id === id);
    if (m === undefined) {
      m = { id, role, toolCalls: [] };
      this.known.push(m);
    }
    if (!this.roleMemory.has(id)) this.roleMemory.set(id, role);
    return m;
  }

  appended(id: string, delta: string): void {
    this.deltasById.set(id, (this.deltasById.get(id) ?? "") + delta);
  }

  literal(plan: MessageLiteralPlan): Obj {
    const id = this.id();
    const m: Obj = { id, role: plan.role };
    if (plan.role === "activity") {
      m.activityType = "progress";
      m.content = { step: plan.content };
    } else {
      m.content = plan.content;
      if (plan.value !== undefined) m.encryptedValue = plan.value;
      if (plan.role === "tool") m.toolCallId = `call-of-${id}`;
    }
    const known = this.know(id, plan.role);
    if (plan.role === "assistant" && plan.toolCalls.length > 0) {
      m.toolCalls = plan.toolCalls.map((tc) => {
        const call: Obj = { id: this.id(), type: "function", function: { name: "lookup", arguments: tc.args } };
        if (tc.value !== undefined) call.encryptedValue = tc.value;
        known.toolCalls.push(call.id as string);
        return call;
      });
    }
    if (plan.role !== "activity") this.appended(id, plan.content);
    return m;
  }

  build(): GeneratedCase {
    const initialMessages = this.plan.initial.map((m) => this.literal(m)) as unknown as Message[];
    const events: Obj[] = [];
    if (this.plan.leadingError) events.push({ type: "RUN_ERROR", message: "not started" });
    this.plan.runs.forEach((run, r) => {
      const last = r === this.plan.runs.length - 1;
      events.push(...this.buildRun(run, r, last));
    });
    return {
      producer: this.plan.producer,
      initialMessages,
      events,
      deltasById: this.deltasById,
      mutated: false,
      hasSnapshot: this.hasSnapshot,
    };
  }

  buildRun(run: RunPlan, r: number, last: boolean): Obj[] {
    const runId = `run-${r}`;
    const started: Obj = { type: "RUN_STARTED", threadId: "thread-1", runId };
    if (run.input !== undefined) {
      const echoed = run.echo
        ? this.known
            .filter((k) => k.role !== "tool" && k.role !== "activity")
            .map((k) => ({ id: k.id, role: k.role, content: "echo" }))
        : [];
      const listed = run.input.map((m) => this.literal(m));
      if (run.inputDecoy !== undefined && listed.length > 0) {
        const at = run.inputDecoy % listed.length;
        listed.splice(at + 1, 0, decoyOf(listed[at]!));
      }
      const messages = [...echoed, ...listed];
      started.input = { threadId: "thread-1", runId, messages, tools: [], context: [] };
    }
    const out: Obj[] = [started];
    const subagents: [string, string] = [this.id(), this.id()];
    const tagOf = (lane: Lane): string | undefined => (lane === 0 ? undefined : subagents[lane - 1]);

    const items: Step[][] = [];
    const reopened = new Set<string>();
    const messageItems: { id: string; plan: MessageItemPlan }[] = [];
    const spanIds = new Set<string>();
    const laneItems: [number[], number[], number[]] = [[], [], []];

    for (const item of run.items) {
      const steps = this.itemSteps(item, tagOf, reopened, messageItems, spanIds);
      if (steps.length === 0) continue;
      laneItems[item.lane].push(items.length);
      items.push(steps);
    }
    if (run.legacy !== undefined) items.push(this.legacySteps(run.legacy));
    if (run.snapshot !== undefined)
      items.push([{ make: () => this.snapshot(run.snapshot!), lane: undefined, closesLane: false, runLevel: true }]);

    // Subagent lifecycle: the lane's items wait for SUBAGENT_STARTED; SUBAGENT_FINISHED waits for them.
    const progress: number[] = items.map(() => 0);
    for (const lane of [1, 2] as const) {
      if (!run.announce[lane - 1] || laneItems[lane].length === 0) continue;
      const tag = tagOf(lane)!;
      let announced = false;
      const gate = (): boolean => announced;
      for (const i of laneItems[lane])
        items[i] = items[i]!.map((s, k) => (k === 0 ? { ...s, ready: () => gate() && (s.ready?.() ?? true) } : s));
      const members = [...laneItems[lane]];
      items.push([
        {
          make: () => ({ type: "SUBAGENT_STARTED", subagentRunId: tag, name: `helper-${lane}` }),
          lane: tag,
          closesLane: false,
          emitted: () => (announced = true),
        },
      ]);
      items.push([
        {
          make: () => ({ type: "SUBAGENT_FINISHED", subagentRunId: tag }),
          lane: tag,
          closesLane: true,
          ready: () => members.every((i) => progress[i] === items[i]!.length),
        },
      ]);
      progress.push(0, 0);
    }

    const total = items.reduce((n, steps) => n + steps.length, 0);
    const limit = run.terminal === "error-midway" ? run.cut % (total + 1) : total;
    const merged = this.merge(items, progress, run.schedule, limit);
    switch (run.terminal) {
      case "error-midway":
        out.push(...merged, { type: "RUN_ERROR", message: "provider failed", code: "E_PROVIDER" });
        break;
      case "truncated":
        out.push(...merged);
        if (!last) out.push({ type: "RUN_FINISHED", threadId: "thread-1", runId });
        break;
      default: {
        out.push(...merged);
        const finished: Obj = { type: "RUN_FINISHED", threadId: "thread-1", runId };
        if (run.terminal === "success") finished.outcome = { type: "success" };
        if (run.terminal === "cancelled") finished.outcome = { type: "cancelled" };
        out.push(finished);
      }
    }
    if (run.lateError && run.terminal !== "error-midway" && !(run.terminal === "truncated" && last))
      out.push({ type: "RUN_ERROR", message: "late failure" });
    return out;
  }

  /** Interleaves the items' steps: each step goes out when it is ready and its lane allows it. */
  merge(items: Step[][], progress: number[], schedule: readonly number[], limit: number): Obj[] {
    const out: Obj[] = [];
    // Which item holds each lane (a chunk block in progress).
    const held = new Map<string, number>();
    let turn = 0;
    while (out.length < limit) {
      const ready: number[] = [];
      items.forEach((steps, i) => {
        const step = steps[progress[i]!];
        if (step === undefined) return;
        if (step.ready && !step.ready()) return;
        if (step.runLevel && held.size > 0) return;
        const holder = held.get(step.lane ?? PARENT);
        if (holder !== undefined && holder !== i && (step.closesLane || step.acquire)) return;
        ready.push(i);
      });
      if (ready.length === 0) break;
      const choice = schedule.length === 0 ? 0 : schedule[turn % schedule.length]!;
      turn++;
      const i = ready[choice % ready.length]!;
      const step = items[i]![progress[i]!]!;
      progress[i]!++;
      if (step.acquire) held.set(step.lane ?? PARENT, i);
      if (step.release) held.delete(step.lane ?? PARENT);
      out.push(step.make());
      step.emitted?.();
    }
    return out;
  }

  itemSteps(
    item: ItemPlan,
    tagOf: (lane: Lane) => string | undefined,
    reopened: Set<string>,
    messageItems: { id: string; plan: MessageItemPlan }[],
    spanIds: Set<string>,
  ): Step[] {
    const tag = tagOf(item.lane);
    const tagged = (o: Obj, keepTag = true): Obj => (keepTag && tag !== undefined ? { ...o, subagentRunId: tag } : o);
    const withMeta = (o: Obj, meta: Obj | undefined): Obj => (meta === undefined ? o : { ...o, metadata: meta });
    const step = (make: () => Obj, closesLane: boolean, keepTag = true, extra: Partial<Step> = {}): Step => ({
      make,
      lane: keepTag ? tag : undefined,
      closesLane,
      ...extra,
    });

    switch (item.kind) {
      case "message":
        return this.messageSteps(item, tag, reopened, messageItems, step, tagged, withMeta);
      case "tool":
        return this.toolSteps(item, tag, messageItems, step, tagged, withMeta);
      case "span": {
        // At most one span per run shares a given message id (two would be open at once, R-REASON-10).
        const reasoningItems = messageItems.filter((m) => m.plan.family === "reasoning" && !spanIds.has(m.id));
        const shared =
          item.shareId === undefined ? undefined : reasoningItems[item.shareId % Math.max(1, reasoningItems.length)];
        const id = shared?.id ?? this.id();
        spanIds.add(id);
        return [
          step(() => tagged(withMeta({ type: "REASONING_START", messageId: id }, item.meta)), true, true, {
            emitted: () => void this.spans.push(id),
          }),
          step(() => tagged({ type: "REASONING_END", messageId: id }), true),
        ];
      }
      case "step": {
        // Step names are per owner (R-RUN-12): one name once per lane and run.
        let stepName = item.name;
        while (spanIds.has(`step\u0000${item.lane}\u0000${stepName}`)) stepName += "'";
        spanIds.add(`step\u0000${item.lane}\u0000${stepName}`);
        return [
          step(() => tagged({ type: "STEP_STARTED", stepName }), true),
          step(() => tagged({ type: "STEP_FINISHED", stepName }), true),
        ];
      }
      case "value":
        return this.valueSteps(item, step, tagged, withMeta);
      case "filler":
        return [this.fillerStep(item, step, tagged)];
      case "activity": {
        const id = this.id();
        const snapshot = (n: number, replace?: boolean): Obj => ({
          type: "ACTIVITY_SNAPSHOT",
          messageId: id,
          activityType: "progress",
          content: { n },
          ...(replace !== undefined ? { replace } : {}),
          ...(item.meta !== undefined ? { metadata: item.meta } : {}),
        });
        const steps = [step(() => snapshot(1), false, false, { emitted: () => void this.know(id, "activity") })];
        if (item.again !== "no")
          steps.push(step(() => snapshot(2, item.again === "replace" ? undefined : false), false, false));
        return steps;
      }
    }
  }

  messageSteps(
    item: MessageItemPlan,
    tag: string | undefined,
    reopened: Set<string>,
    messageItems: { id: string; plan: MessageItemPlan }[],
    step: (make: () => Obj, closesLane: boolean, keepTag?: boolean, extra?: Partial<Step>) => Step,
    tagged: (o: Obj, keepTag?: boolean) => Obj,
    withMeta: (o: Obj, meta: Obj | undefined) => Obj,
  ): Step[] {
    const reasoning = item.family === "reasoning";
    // A reopen takes a message of the same family from an earlier run (never one reopened twice in a run).
    let id: string | undefined;
    let role: string = reasoning ? "reasoning" : (item.role ?? "assistant");
    if (item.reopen !== undefined) {
      const fits = (role: string | undefined): boolean =>
        reasoning ? role === "reasoning" : ["assistant", "user", "system", "developer"].includes(role ?? "");
      const candidates = this.known.filter(
        (k) => fits(k.role) && fits(this.roleMemory.get(k.id)) && !reopened.has(k.id),
      );
      const pick = candidates[item.reopen % Math.max(1, candidates.length)];
      if (pick !== undefined) {
        id = pick.id;
        role = pick.role;
        reopened.add(id);
      }
    }
    const messageId = id ?? this.id();
    reopened.add(messageId);
    messageItems.push({ id: messageId, plan: item });
    const created = (): void => void this.know(messageId, role);
    const keepTag = !item.untagContinuations;
    const types = reasoning
      ? {
          start: "REASONING_MESSAGE_START",
          content: "REASONING_MESSAGE_CONTENT",
          end: "REASONING_MESSAGE_END",
          chunk: "REASONING_MESSAGE_CHUNK",
        }
      : {
          start: "TEXT_MESSAGE_START",
          content: "TEXT_MESSAGE_CONTENT",
          end: "TEXT_MESSAGE_END",
          chunk: "TEXT_MESSAGE_CHUNK",
        };
    // Opener fields of text messages (a reopen restates the established role so nothing conflicts).
    const openers: Obj = {};
    if (!reasoning && (item.role !== undefined || id !== undefined)) openers.role = role;
    if (!reasoning && item.name !== undefined && id === undefined) openers.name = item.name;

    if (item.form === "explicit") {
      const steps: Step[] = [
        step(
          () =>
            tagged(
              withMeta(
                { type: types.start, messageId, ...(reasoning ? { role: "reasoning" } : openers) },
                item.startMeta,
              ),
            ),
          true,
          true,
          { emitted: created },
        ),
      ];
      item.deltas.forEach((delta) =>
        steps.push(
          step(() => tagged({ type: types.content, messageId, delta }, keepTag), true, keepTag, {
            emitted: () => this.appended(messageId, delta),
          }),
        ),
      );
      steps.push(step(() => tagged(withMeta({ type: types.end, messageId }, item.endMeta), keepTag), true, keepTag));
      return steps;
    }

    // Chunk form: blocks; a block's first chunk carries the id (and opener fields), later ones may omit it.
    const splits = new Set(item.splits.filter((s) => s > 0 && s < item.chunks.length));
    const steps: Step[] = [];
    item.chunks.forEach((chunk, k) => {
      const first = k === 0 || splits.has(k);
      const last = k === item.chunks.length - 1 || splits.has(k + 1);
      const carry = first || !chunk.omitId;
      const event: Obj = { type: types.chunk };
      if (carry) Object.assign(event, { messageId }, openers);
      if (chunk.delta !== undefined) event.delta = chunk.delta;
      const meta = k === 0 ? (item.startMeta ?? chunk.meta) : chunk.meta;
      steps.push(
        step(() => tagged(withMeta(event, meta)), true, true, {
          acquire: first,
          release: last,
          emitted: () => {
            created();
            if (chunk.delta !== undefined) this.appended(messageId, chunk.delta);
          },
        }),
      );
    });
    return steps;
  }

  toolSteps(
    item: ToolItemPlan,
    tag: string | undefined,
    messageItems: { id: string; plan: MessageItemPlan }[],
    step: (make: () => Obj, closesLane: boolean, keepTag?: boolean, extra?: Partial<Step>) => Step,
    tagged: (o: Obj, keepTag?: boolean) => Obj,
    withMeta: (o: Obj, meta: Obj | undefined) => Obj,
  ): Step[] {
    const toolCallId = this.id();
    const assistants = messageItems.filter(
      (m) => m.plan.family === "text" && m.plan.reopen === undefined && (m.plan.role ?? "assistant") === "assistant",
    );
    let parentMessageId =
      item.parent === "fresh"
        ? this.id()
        : item.parent === "text"
          ? assistants[item.parentPick % Math.max(1, assistants.length)]?.id
          : undefined;
    // "known": resolved when the call starts, among the messages known by then (any role).
    let resolved = item.parent !== "known";
    const resolveParent = (): void => {
      if (resolved) return;
      resolved = true;
      const candidates = this.known.filter((k) => k.role !== "tool" || item.parentPick % 3 === 0);
      parentMessageId = candidates[item.parentPick % Math.max(1, candidates.length)]?.id;
    };
    const opened = (): void => {
      const named = parentMessageId === undefined ? undefined : this.known.find((k) => k.id === parentMessageId);
      const holder = named !== undefined && named.role !== "assistant" ? toolCallId : (parentMessageId ?? toolCallId);
      const known = this.known.find((k) => k.id === holder) ?? this.know(holder, "assistant");
      known.toolCalls.push(toolCallId);
    };
    const opener = (): Obj => {
      resolveParent();
      return { toolCallId, toolCallName: item.toolName, ...(parentMessageId !== undefined ? { parentMessageId } : {}) };
    };
    const steps: Step[] = [];
    if (item.form === "explicit") {
      steps.push(
        step(() => tagged(withMeta({ type: "TOOL_CALL_START", ...opener() }, item.meta)), true, true, {
          emitted: opened,
        }),
      );
      for (const delta of item.args)
        steps.push(step(() => tagged({ type: "TOOL_CALL_ARGS", toolCallId, delta }), true));
      steps.push(step(() => tagged({ type: "TOOL_CALL_END", toolCallId }), true));
    } else {
      const chunks = item.args.length === 0 ? [undefined] : item.args;
      chunks.forEach((delta, k) => {
        const make = (): Obj => {
          const event: Obj = { type: "TOOL_CALL_CHUNK" };
          if (k === 0 || !item.omitIds[k]) Object.assign(event, opener());
          if (delta !== undefined) event.delta = delta;
          return tagged(k === 0 ? withMeta(event, item.meta) : event);
        };
        steps.push(
          step(make, true, true, {
            acquire: k === 0,
            release: k === chunks.length - 1,
            emitted: k === 0 ? opened : undefined,
          }),
        );
      });
    }
    if (item.result !== undefined) {
      const resultId = this.id();
      const content = item.result;
      steps.push(
        step(() => ({ type: "TOOL_CALL_RESULT", messageId: resultId, toolCallId, content }), true, false, {
          emitted: () => void this.know(resultId, "tool"),
        }),
      );
    }
    return steps;
  }

  valueSteps(
    item: ValueItemPlan,
    step: (make: () => Obj, closesLane: boolean, keepTag?: boolean, extra?: Partial<Step>) => Step,
    tagged: (o: Obj, keepTag?: boolean) => Obj,
    withMeta: (o: Obj, meta: Obj | undefined) => Obj,
  ): Step[] {
    // The target is resolved when the event is scheduled, among what is known by then.
    let resolved: { subtype: string; entityId: string } | undefined;
    const resolve = (): { subtype: string; entityId: string } => {
      if (resolved !== undefined) return resolved;
      const messages = this.known.filter((k) => k.role !== "activity");
      const calls = this.known.flatMap((k) => k.toolCalls);
      const activities = this.known.filter((k) => k.role === "activity");
      const pick = <T>(list: readonly T[]): T | undefined => list[item.pick % Math.max(1, list.length)];
      switch (item.target) {
        case "message":
          resolved = { subtype: "message", entityId: pick(messages)?.id ?? this.id() };
          break;
        case "tool-call":
          resolved = { subtype: "tool-call", entityId: pick(calls) ?? this.id() };
          break;
        case "activity":
          resolved = { subtype: "message", entityId: pick(activities)?.id ?? this.id() };
          break;
        case "span":
          resolved = { subtype: "message", entityId: pick(this.spans) ?? this.id() };
          break;
        case "mismatch": // a message id named as a tool call, or the reverse (#69, #70)
          resolved =
            item.pick % 2 === 0
              ? { subtype: "tool-call", entityId: pick(messages)?.id ?? this.id() }
              : { subtype: "message", entityId: pick(calls) ?? this.id() };
          break;
        case "unknown":
          resolved = { subtype: item.pick % 2 === 0 ? "message" : "tool-call", entityId: this.id() };
          break;
      }
      return resolved;
    };
    const event = (value: string): Obj =>
      tagged(withMeta({ type: "REASONING_ENCRYPTED_VALUE", ...resolve(), encryptedValue: value }, item.meta));
    const steps = [step(() => event(item.value), false)];
    if (item.repeat !== undefined) {
      const repeat = item.repeat;
      steps.push(step(() => event(repeat), false));
    }
    return steps;
  }

  fillerStep(
    item: FillerItemPlan,
    step: (make: () => Obj, closesLane: boolean, keepTag?: boolean, extra?: Partial<Step>) => Step,
    tagged: (o: Obj) => Obj,
  ): Step {
    switch (item.which) {
      case "raw":
        return step(() => tagged({ type: "RAW", event: { provider: "x", n: 1 } }), false);
      case "custom":
        return step(() => tagged({ type: "CUSTOM", name: "progress", value: null }), true);
      case "state-snapshot":
        return step(() => tagged({ type: "STATE_SNAPSHOT", snapshot: { n: 1 } }), true);
      case "state-delta":
        return step(() => tagged({ type: "STATE_DELTA", delta: [] }), true);
      case "activity": {
        const id = this.id();
        return step(
          () => ({ type: "ACTIVITY_SNAPSHOT", messageId: id, activityType: "progress", content: { done: 1 } }),
          false,
          false,
          {
            emitted: () => void this.know(id, "activity"),
          },
        );
      }
    }
  }

  legacySteps(legacy: LegacyPlan): Step[] {
    const steps: Step[] = [];
    const parent = (make: () => Obj, emitted?: () => void): Step => ({
      make,
      lane: undefined,
      closesLane: true,
      ...(emitted ? { emitted } : {}),
    });
    const carried = (): string | undefined => (legacy.carryIds ? this.id() : undefined);
    // D-THINK-IDS: a carried non-empty messageId is used, otherwise the factory mints the next id.
    const used = (carriedId: string | undefined): string =>
      carriedId !== undefined && carriedId !== "" ? carriedId : `${MINT_PREFIX}${++this.minted}`;
    if (legacy.span) {
      const spanId = carried();
      steps.push(
        parent(
          () => ({
            type: "THINKING_START",
            ...(legacy.title !== undefined ? { title: legacy.title } : {}),
            ...(spanId !== undefined ? { messageId: spanId } : {}),
            ...(legacy.startMeta !== undefined ? { metadata: legacy.startMeta } : {}),
          }),
          () => void this.spans.push(used(spanId)),
        ),
      );
    }
    for (const deltas of legacy.messages) {
      const messageId = carried();
      let id = messageId ?? "";
      steps.push(
        parent(
          () => ({ type: "THINKING_TEXT_MESSAGE_START", ...(messageId !== undefined ? { messageId } : {}) }),
          () => {
            id = used(messageId);
            this.know(id, "reasoning");
          },
        ),
      );
      for (const delta of deltas)
        steps.push(
          parent(
            () => ({ type: "THINKING_TEXT_MESSAGE_CONTENT", delta }),
            () => this.appended(id, delta),
          ),
        );
      steps.push(parent(() => ({ type: "THINKING_TEXT_MESSAGE_END" })));
    }
    if (legacy.span) steps.push(parent(() => ({ type: "THINKING_END" })));
    return steps;
  }

  /** A snapshot restating some held messages (with new content, maybe a new value) plus newcomers. */
  snapshot(plan: SnapshotPlan): Obj {
    this.hasSnapshot = true;
    const messages: Obj[] = [];
    this.known.forEach((k, i) => {
      if (!plan.restate[i] || k.role === "tool") return;
      const m: Obj = { id: k.id, role: k.role };
      if (k.role === "activity") Object.assign(m, { activityType: "progress", content: { restated: true } });
      else m.content = plan.restatedContent[i % Math.max(1, plan.restatedContent.length)] ?? "";
      const value = plan.restatedValues[i % Math.max(1, plan.restatedValues.length)];
      if (value !== undefined && k.role !== "activity") m.encryptedValue = value;
      if (k.role === "assistant" && k.toolCalls.length > 0 && i % 2 === 0) {
        m.toolCalls = k.toolCalls.map((id) => ({
          id,
          type: "function",
          function: { name: "lookup", arguments: "{}" },
        }));
      }
      messages.push(m);
    });
    // What the consumer holds afterwards (R-STATE-4/5/6): the generator's knowledge follows.
    const restatedIds = new Set(messages.map((m) => m.id as string));
    const hasRole = (role: string): boolean =>
      messages.some((m) => m.role === role) || plan.newcomers.some((n) => n.role === role);
    const kept = this.known.filter(
      (k) =>
        restatedIds.has(k.id) ||
        (k.role === "activity" && !hasRole("activity")) ||
        (k.role === "reasoning" && !hasRole("reasoning")),
    );
    for (const k of kept) {
      if (!restatedIds.has(k.id)) continue;
      const copy = messages.find((m) => m.id === k.id)!;
      k.toolCalls.splice(
        0,
        k.toolCalls.length,
        ...((copy.toolCalls as Obj[] | undefined) ?? []).map((c) => c.id as string),
      );
      this.roleMemory.set(k.id, k.role);
    }
    this.known.splice(0, this.known.length, ...kept);
    const newcomers = plan.newcomers.map((n) => this.literal(n));
    for (const n of newcomers) this.roleMemory.set(n.id as string, n.role as string);
    const listed = [...messages, ...newcomers];
    if (plan.decoy !== undefined && listed.length > 0) {
      const at = plan.decoy % listed.length;
      listed.splice(at, 0, decoyOf(listed[at]!));
    }
    return { type: "MESSAGES_SNAPSHOT", messages: listed };
  }
}

/** Builds the events of a plan (deterministic), then applies its mutations. */
export function buildCase(plan: CasePlan): GeneratedCase {
  const built = new Builder(plan).build();
  if (plan.mutations.length === 0) return built;
  let events: unknown[] = built.events;
  for (const mutation of plan.mutations) events = mutate(events, mutation);
  return { ...built, events, mutated: true };
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

const ID_FIELDS = ["messageId", "toolCallId", "entityId"] as const;

/** Required fields per type, used by the "missing-required" corruption (first one is removed). */
const REQUIRED: Record<string, readonly string[]> = {
  RUN_STARTED: ["runId", "threadId"],
  RUN_FINISHED: ["threadId"],
  RUN_ERROR: ["message"],
  TEXT_MESSAGE_START: ["messageId"],
  TEXT_MESSAGE_CONTENT: ["delta", "messageId"],
  TEXT_MESSAGE_END: ["messageId"],
  TOOL_CALL_START: ["toolCallName", "toolCallId"],
  TOOL_CALL_ARGS: ["delta"],
  TOOL_CALL_END: ["toolCallId"],
  TOOL_CALL_RESULT: ["content"],
  REASONING_START: ["messageId"],
  REASONING_END: ["messageId"],
  REASONING_MESSAGE_START: ["role", "messageId"],
  REASONING_MESSAGE_CONTENT: ["delta"],
  REASONING_MESSAGE_END: ["messageId"],
  REASONING_ENCRYPTED_VALUE: ["encryptedValue", "entityId", "subtype"],
  MESSAGES_SNAPSHOT: ["messages"],
  STEP_STARTED: ["stepName"],
  STEP_FINISHED: ["stepName"],
  SUBAGENT_STARTED: ["name"],
  SUBAGENT_FINISHED: ["subagentRunId"],
  CUSTOM: ["name"],
  ACTIVITY_SNAPSHOT: ["content"],
  THINKING_TEXT_MESSAGE_CONTENT: ["delta"],
};

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function mutate(events: readonly unknown[], m: MutationPlan): unknown[] {
  if (events.length === 0) return [...events];
  const at = m.at % events.length;
  const out = [...events];
  switch (m.kind) {
    case "drop":
      out.splice(at, 1);
      return out;
    case "duplicate":
      out.splice(at + 1, 0, out[at]);
      return out;
    case "swap":
      if (at + 1 < out.length) [out[at], out[at + 1]] = [out[at + 1], out[at]];
      return out;
    case "truncate":
      return out.slice(0, at);
    case "retarget": {
      const event = out[at];
      if (!isObj(event)) return out;
      const field = ID_FIELDS.find((f) => typeof event[f] === "string");
      if (field === undefined) return out;
      // Another id of the same field anywhere in the stream (entity ids may name any message or call).
      const pool = new Set<string>();
      for (const e of out) {
        if (!isObj(e)) continue;
        for (const f of field === "entityId" ? ID_FIELDS : [field]) if (typeof e[f] === "string") pool.add(e[f]);
      }
      const ids = [...pool].filter((id) => id !== event[field]);
      if (ids.length === 0) return out;
      out[at] = { ...event, [field]: ids[m.pick % ids.length] };
      return out;
    }
    case "corrupt": {
      // Type-specific corruptions hit the first event from `at` on (wrapping) that they apply to.
      let target = at;
      for (let k = 0; k < out.length; k++) {
        const i = (at + k) % out.length;
        if (appliesTo(out[i], m.how)) {
          target = i;
          break;
        }
      }
      out[target] = corrupt(out[target], m.how, target);
      return out;
    }
  }
}

const CHUNK_TYPES = new Set(["TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK", "REASONING_MESSAGE_CHUNK"]);

function appliesTo(event: unknown, how: Corruption): boolean {
  if (!isObj(event)) return false;
  const type = event.type as string;
  switch (how) {
    case "delta-number":
      return "delta" in event;
    case "id-number":
    case "id-null":
      return ID_FIELDS.some((f) => f in event);
    case "role-assistant":
      return type === "REASONING_MESSAGE_START" || type === "TEXT_MESSAGE_START" || type === "TEXT_MESSAGE_CHUNK";
    case "subtype-unknown":
    case "subtype-number":
      return type === "REASONING_ENCRYPTED_VALUE";
    case "untag":
      return "subagentRunId" in event && !type.startsWith("SUBAGENT_");
    case "untag-idless-chunk":
      return CHUNK_TYPES.has(type) && "subagentRunId" in event && !("messageId" in event) && !("toolCallId" in event);
    case "parentMessageId-null":
      return type === "TOOL_CALL_START" || type === "TOOL_CALL_CHUNK";
    case "missing-required":
      return (REQUIRED[type] ?? []).some((f) => f in event);
    default:
      return true;
  }
}

function corrupt(event: unknown, how: Corruption, at: number): unknown {
  if (!isObj(event)) return event;
  const type = event.type as string;
  const set = (field: string, value: unknown): Obj => ({ ...event, [field]: value });
  const idField = ID_FIELDS.find((f) => f in event);
  switch (how) {
    case "delta-number":
      return "delta" in event ? set("delta", 5) : set("timestamp", "yesterday");
    case "id-number":
      return idField !== undefined ? set(idField, 7) : set("metadata", 3);
    case "id-null":
      return idField !== undefined ? set(idField, null) : set("metadata", null);
    case "metadata-null":
      return set("metadata", null);
    case "rawEvent-null":
      return set("rawEvent", null);
    case "unknown-property":
      return set(at % 2 === 0 ? "encryptedValueType" : "zzUnknown", "x");
    case "unknown-type":
      return set("type", "REASONING_SUMMARY");
    case "missing-required": {
      const field = (REQUIRED[type] ?? []).find((f) => f in event);
      if (field === undefined) return set("type", 42);
      const { [field]: _removed, ...rest } = event;
      return rest;
    }
    case "non-object":
      return [null, 42, "REASONING_START", [event]][at % 4];
    case "role-assistant":
      if (type === "REASONING_MESSAGE_START") return set("role", "assistant");
      return type === "TEXT_MESSAGE_START" || type === "TEXT_MESSAGE_CHUNK"
        ? set("role", "critic")
        : set("zzUnknown", 1);
    case "subtype-unknown":
      return type === "REASONING_ENCRYPTED_VALUE" ? set("subtype", "artifact") : set("rawEvent", null);
    case "subtype-number":
      return type === "REASONING_ENCRYPTED_VALUE" ? set("subtype", 1) : set("metadata", null);
    case "untag-idless-chunk":
    case "untag": {
      if (!("subagentRunId" in event) || type.startsWith("SUBAGENT_")) return set("zzUnknown", 1);
      const { subagentRunId: _tag, ...rest } = event;
      return rest;
    }
    case "tag-null":
      return set("subagentRunId", null);
    case "timestamp-float":
      return set("timestamp", 1.5);
    case "parentMessageId-null":
      return type === "TOOL_CALL_START" || type === "TOOL_CALL_CHUNK"
        ? set("parentMessageId", null)
        : set("rawEvent", null);
  }
}

// ---------------------------------------------------------------------------------------------
// Ready-made arbitraries
// ---------------------------------------------------------------------------------------------

/** Valid streams (no mutation). */
export const validCaseArb = (options: Partial<CaseOptions> = {}): fc.Arbitrary<GeneratedCase> =>
  casePlanArb({ snapshots: true, maxItems: 6, maxRuns: 3, maxMutations: 0, ...options }).map(buildCase);

/** Arbitrary streams: a valid one with 1–3 mutations. */
export const mutatedCaseArb = (options: Partial<CaseOptions> = {}): fc.Arbitrary<GeneratedCase> =>
  casePlanArb({ snapshots: true, maxItems: 6, maxRuns: 3, maxMutations: 3, minMutations: 1, ...options }).map(
    buildCase,
  );

/**
 * Another copy of a listed message (same id and role, so the same key: D-HISTORY-IDS) with other
 * content and a value of its own, and no tool calls: a list repeating a message (R-EVT-8) keeps one
 * copy, so a decoy that reaches the history shows.
 */
function decoyOf(message: Obj): Obj {
  const decoy: Obj = { id: message.id, role: message.role };
  if (message.role === "activity") {
    decoy.activityType = "progress";
    decoy.content = { decoy: true };
  } else {
    decoy.content = "decoy";
    decoy.encryptedValue = "decoy-value";
    if (message.role === "tool") decoy.toolCallId = message.toolCallId;
  }
  return decoy;
}
