/**
 * The reference model: an independent, deliberately simple interpreter of the AG-UI 1.0 reasoning
 * rules (digest R-…, decisions D-…). It is the specification in executable form, used as the oracle
 * of the property tests. It shares NO code with src/ (only types from "@ag-ui/core").
 *
 * One plain loop over the events. Each source event goes through the five stages depth-first
 * (upcast → enforce → expand → verify → history), exactly the order a consumer must apply
 * (R-PROC-12/13, R-STREAM-7, R-PROC-17). Simplicity beats speed here: histories are arrays searched
 * linearly, states are mutated in place, nothing is shared with the package's optimised code.
 *
 * Schema enforcement is LIMITED on purpose: it checks the top-level fields of every event type,
 * which covers the valid events the generators produce and the corruptions they apply (wrong JSON
 * type, missing required field, `null`, unknown property, unknown event type, unknown `subtype`,
 * wrong reasoning role, non-object events). Nested values (snapshot messages, run input, outcomes,
 * patches) are trusted to be valid: the generators only produce valid ones there.
 * `RUN_STARTED.protocolVersion` warnings, ACTIVITY_DELTA patches, state and `maxOpenItems` are not
 * modelled (the generators produce none of them).
 *
 * Where the spec is silent, the model follows the package's documented choices (they are not
 * rules, but a history must be one thing): a tool call without `parentMessageId` lands on an
 * assistant message whose id is the tool call id, and a `parentMessageId` naming a non-assistant
 * message falls back to that with `TOOL_CALL_PARENT_CONFLICT` (as @ag-ui/client does); a tool
 * result goes right after the assistant message holding its call; a result reusing a held tool
 * message id replaces it (`DUPLICATE_MESSAGE_ID`), one reusing the id of a message of another role
 * is a tool message of its own (D-TOOL-RESULT-ID: a non-lossy `DUPLICATE_MESSAGE_ID` unless the
 * other is the assistant message minted with the id of a call it holds; lookups by id find the
 * other); an ACTIVITY_SNAPSHOT naming a non-activity message is skipped (`ACTIVITY_SKIPPED`,
 * D-ACTIVITY-REPLACE); a START naming a held message of the other family fails (`ID_ROLE_CONFLICT`,
 * D-ROLE-CONFLICT, also for tool/activity messages); fragments of an open item a snapshot removed
 * warn `TARGET_REMOVED` only when they carry something (a non-empty delta or metadata), and of one
 * it restated with a role the opening family does not hold `TARGET_REPLACED` (D-SNAPSHOT-ROLE); a
 * run's end naming other ids than its start warns `RUN_ID_MISMATCH` (D-RUN-ID); an event removed for an unknown `subtype` reports only that removal; a
 * legacy opener while one of its kind is open fails (`DUPLICATE_OPEN`).
 */
import type { Message } from "@ag-ui/core";

// ---------------------------------------------------------------------------------------------
// Public shape
// ---------------------------------------------------------------------------------------------

export interface ModelOptions {
  /** Issuer identity recorded for every stored encrypted value (D-ISSUER). */
  readonly producer?: string;
  /** Mints ids for THINKING_* events that carry none (D-THINK-IDS). */
  readonly idFactory: () => string;
  /** Messages the consumer already holds (their values are attributed to `producer`). */
  readonly initialMessages?: readonly Message[];
  /**
   * Known, reported divergences of the package from this model (see KNOWN_DIVERGENCES) that the
   * model should reproduce instead of the rule, so a property run can keep exploring past them.
   * Empty by default: the model follows the rules.
   */
  readonly accept?: ReadonlySet<KnownDivergence>;
}

/**
 * Where the package is known to differ from the rules (each reported with a minimal stream).
 * The model reproduces one only when asked to (`ModelOptions.accept`).
 */
export const KNOWN_DIVERGENCES = {
  // None open. (UNKNOWN_SUBTYPE_CONCEALS_MALFORMED was fixed in enforceSchema; its regression case
  // stays in test/regressions/.)
} as const;
export type KnownDivergence = keyof typeof KNOWN_DIVERGENCES;

/** A message or tool call that is not complete (D-TRUNC, D-RUN-ERROR), kept beside the messages. */
export interface ModelIncompleteItem {
  readonly kind: "message" | "tool-call";
  readonly id: string;
  readonly reason: "open" | "abandoned" | "truncated";
}

export interface ModelHistory {
  readonly messages: Message[];
  /** In the order the items were first listed (a reopen takes its old place back). */
  readonly incomplete: ModelIncompleteItem[];
  /** "message\u0000<id>", "tool message\u0000<id>" or "tool-call\u0000<id>" → issuer of the value stored there (D-ISSUER). */
  readonly issuers: Map<string, string | undefined>;
}

export interface ModelResult {
  readonly outcome: "completed" | "failed";
  readonly errorCode?: string;
  /** Index of the source event that caused the failure (the event count for RUN_TRUNCATED). */
  readonly errorIndex?: number;
  /** Warning codes in the order they were raised. */
  readonly warningCodes: string[];
  readonly history: ModelHistory;
}

type Obj = Record<string, unknown>;

/** A rejection of the stream: the model's counterpart of ReasoningProtocolError. */
class Reject extends Error {
  constructor(
    readonly code: string,
    readonly index: number,
  ) {
    super(code);
  }
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

// ---------------------------------------------------------------------------------------------
// Stage 1: THINKING_* upcast (R-DEP-2/5, D-THINK-IDS, D-THINK-TITLE, D-THINK-ORPHAN)
// ---------------------------------------------------------------------------------------------

const LEGACY_TARGET: Record<string, string> = {
  THINKING_START: "REASONING_START",
  THINKING_END: "REASONING_END",
  THINKING_TEXT_MESSAGE_START: "REASONING_MESSAGE_START",
  THINKING_TEXT_MESSAGE_CONTENT: "REASONING_MESSAGE_CONTENT",
  THINKING_TEXT_MESSAGE_END: "REASONING_MESSAGE_END",
};

// ---------------------------------------------------------------------------------------------
// Stage 2: schema enforcement (top level only, see the file comment)
// ---------------------------------------------------------------------------------------------

/** How one top-level field is judged. A trailing "?" in the table means optional. */
type FieldKind =
  | "string"
  | "int"
  | "meta" // object, never null (R-META-1)
  | "raw" // any JSON but null; null is tolerated (R-DEP-6)
  | "any" // any value but undefined
  | "textRole" // developer | system | assistant | user; an unknown string is stripped (R-PROC-3)
  | "reasoningRole" // the constant "reasoning" (R-SCHEMA-2)
  | "toolRole" // the constant "tool"
  | "subtype" // "message" | "tool-call"; an unknown string removes the event (R-REASON-24)
  | "bool"
  | "array" // contents trusted
  | "object" // contents trusted
  | "content"; // string or array of parts (trusted)

const BASE = "timestamp:int? rawEvent:raw? metadata:meta?";
const ATTR = `${BASE} subagentRunId:string?`;
const SHAPES: Record<string, string> = {
  TEXT_MESSAGE_START: `${ATTR} messageId:string role:textRole? name:string?`,
  TEXT_MESSAGE_CONTENT: `${ATTR} messageId:string delta:string`,
  TEXT_MESSAGE_END: `${ATTR} messageId:string`,
  TEXT_MESSAGE_CHUNK: `${ATTR} messageId:string? role:textRole? delta:string? name:string?`,
  TOOL_CALL_START: `${ATTR} toolCallId:string toolCallName:string parentMessageId:string?`,
  TOOL_CALL_ARGS: `${ATTR} toolCallId:string delta:string`,
  TOOL_CALL_END: `${ATTR} toolCallId:string`,
  TOOL_CALL_CHUNK: `${ATTR} toolCallId:string? toolCallName:string? parentMessageId:string? delta:string?`,
  TOOL_CALL_RESULT: `${ATTR} messageId:string toolCallId:string content:content role:toolRole?`,
  STATE_SNAPSHOT: `${ATTR} snapshot:any`,
  STATE_DELTA: `${ATTR} delta:array`,
  MESSAGES_SNAPSHOT: `${BASE} messages:array`,
  ACTIVITY_SNAPSHOT: `${ATTR} messageId:string activityType:string content:object replace:bool?`,
  ACTIVITY_DELTA: `${ATTR} messageId:string activityType:string patch:array`,
  RAW: `${ATTR} event:any source:string?`,
  CUSTOM: `${ATTR} name:string value:any`,
  RUN_STARTED: `${BASE} threadId:string runId:string protocolVersion:string? parentRunId:string? input:object?`,
  RUN_FINISHED: `${BASE} threadId:string runId:string result:raw? outcome:object? usage:array?`,
  RUN_ERROR: `${BASE} message:string code:string? usage:array?`,
  STEP_STARTED: `${ATTR} stepName:string`,
  STEP_FINISHED: `${ATTR} stepName:string`,
  REASONING_START: `${ATTR} messageId:string`,
  REASONING_MESSAGE_START: `${ATTR} messageId:string role:reasoningRole`,
  REASONING_MESSAGE_CONTENT: `${ATTR} messageId:string delta:string`,
  REASONING_MESSAGE_END: `${ATTR} messageId:string`,
  REASONING_MESSAGE_CHUNK: `${ATTR} messageId:string? delta:string?`,
  REASONING_END: `${ATTR} messageId:string`,
  REASONING_ENCRYPTED_VALUE: `${ATTR} subtype:subtype entityId:string encryptedValue:string`,
  SUBAGENT_STARTED: `${BASE} subagentRunId:string name:string description:string? parentSubagentRunId:string? parentToolCallId:string? parentMessageId:string?`,
  SUBAGENT_FINISHED: `${BASE} subagentRunId:string result:raw? outcome:object?`,
  SUBAGENT_ERROR: `${BASE} subagentRunId:string message:string code:string?`,
};

/** Top-level `null`s the deprecation registry converts to "absent" (R-DEP-6). */
const NULL_TOLERATED: Record<string, readonly string[]> = {
  TOOL_CALL_START: ["parentMessageId"],
  TOOL_CALL_CHUNK: ["parentMessageId"],
  RUN_FINISHED: ["outcome", "result"],
  SUBAGENT_FINISHED: ["result"],
};

interface FieldRule {
  readonly kind: FieldKind;
  readonly optional: boolean;
}

const RULES: Map<string, Map<string, FieldRule>> = new Map(
  Object.entries(SHAPES).map(([type, spec]) => [
    type,
    new Map(
      spec.split(" ").map((part) => {
        const [name, kindText] = part.split(":") as [string, string];
        const optional = kindText.endsWith("?");
        return [name, { kind: (optional ? kindText.slice(0, -1) : kindText) as FieldKind, optional }];
      }),
    ),
  ]),
);

/** Whether `value` is acceptable for a field of this kind (undefined handled by the caller). */
function fieldAccepts(kind: FieldKind, value: unknown): "ok" | "malformed" | "unknown-member" {
  switch (kind) {
    case "string":
      return typeof value === "string" ? "ok" : "malformed";
    case "int":
      return Number.isSafeInteger(value) ? "ok" : "malformed";
    case "meta":
    case "object":
      return isObj(value) ? "ok" : "malformed";
    case "raw":
      return value === null ? "malformed" : "ok";
    case "any":
      return "ok";
    case "textRole":
      if (typeof value !== "string") return "malformed";
      return ["developer", "system", "assistant", "user"].includes(value) ? "ok" : "unknown-member";
    case "reasoningRole":
      return value === "reasoning" ? "ok" : "malformed";
    case "toolRole":
      return value === "tool" ? "ok" : "malformed";
    case "subtype":
      if (typeof value !== "string") return "malformed";
      return value === "message" || value === "tool-call" ? "ok" : "unknown-member";
    case "bool":
      return typeof value === "boolean" ? "ok" : "malformed";
    case "array":
      return Array.isArray(value) ? "ok" : "malformed";
    case "content":
      return typeof value === "string" || Array.isArray(value) ? "ok" : "malformed";
  }
}

// ---------------------------------------------------------------------------------------------
// Stage 3: chunk families (D-SCOPE-FAMILIES)
// ---------------------------------------------------------------------------------------------

interface ChunkFamily {
  readonly name: "text" | "tool" | "reasoning";
  readonly chunk: string;
  readonly idField: "messageId" | "toolCallId";
  readonly start: string;
  readonly content: string;
  readonly end: string;
  /** Opener fields a continuation may repeat only with the same value (R-STREAM-14); defaults apply. */
  readonly openers: readonly string[];
}

const FAMILIES: readonly ChunkFamily[] = [
  {
    name: "text",
    chunk: "TEXT_MESSAGE_CHUNK",
    idField: "messageId",
    start: "TEXT_MESSAGE_START",
    content: "TEXT_MESSAGE_CONTENT",
    end: "TEXT_MESSAGE_END",
    openers: ["role", "name"],
  },
  {
    name: "tool",
    chunk: "TOOL_CALL_CHUNK",
    idField: "toolCallId",
    start: "TOOL_CALL_START",
    content: "TOOL_CALL_ARGS",
    end: "TOOL_CALL_END",
    openers: ["toolCallName", "parentMessageId"],
  },
  {
    name: "reasoning",
    chunk: "REASONING_MESSAGE_CHUNK",
    idField: "messageId",
    start: "REASONING_MESSAGE_START",
    content: "REASONING_MESSAGE_CONTENT",
    end: "REASONING_MESSAGE_END",
    openers: [],
  },
];
const FAMILY_OF_CHUNK = new Map(FAMILIES.map((f) => [f.chunk, f]));
/**
 * Explicit events that name an item by id (R-STREAM-9), and the id field. Message ids are one
 * namespace (text and reasoning messages), tool call ids another; span ids name no message
 * (R-REASON-12), so span events are not listed.
 */
const NAMES_ITEM = new Map<string, "messageId" | "toolCallId">([
  ...[
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
  ].map((t) => [t, "messageId"] as const),
  ...["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"].map((t) => [t, "toolCallId"] as const),
]);

/** Non-chunk events that end the open chunk stream of their lane (R-STREAM-15b). */
const LANE_CLOSERS = new Set([
  "TEXT_MESSAGE_START",
  "TEXT_MESSAGE_CONTENT",
  "TEXT_MESSAGE_END",
  "TOOL_CALL_START",
  "TOOL_CALL_ARGS",
  "TOOL_CALL_END",
  "TOOL_CALL_RESULT",
  "STEP_STARTED",
  "STEP_FINISHED",
  "STATE_SNAPSHOT",
  "STATE_DELTA",
  "CUSTOM",
  "REASONING_START",
  "REASONING_END",
  "REASONING_MESSAGE_START",
  "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END",
]);
/** Run-level events that end every lane (R-STREAM-15c). */
const RUN_LEVEL = new Set(["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"]);

/** One open chunk stream: at most one per lane (lane = subagentRunId, undefined = parent). */
interface ChunkStream {
  readonly family: ChunkFamily;
  readonly id: string;
  readonly lane: string | undefined;
  /** Opener field values, with defaults applied (text role "assistant"). */
  readonly openers: ReadonlyMap<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Stage 4: discipline families (table-driven, like the rules)
// ---------------------------------------------------------------------------------------------

interface DisciplineFamily {
  readonly open: string;
  readonly continues: readonly string[];
  readonly closes: readonly string[];
  readonly key: "messageId" | "toolCallId" | "stepName" | "subagentRunId";
  /** Steps: one namespace per owner (R-RUN-12). */
  readonly perOwner: boolean;
  /** Subagent invocation ids are single-use within a run. */
  readonly reopenable: boolean;
  /** The key is the tag itself (subagents): no attribution check. */
  readonly attributed: boolean;
}

const DISCIPLINE: readonly DisciplineFamily[] = [
  // Spans (R-REASON-10, D-SPAN-OWNER), reasoning messages, text messages, tool calls.
  {
    open: "REASONING_START",
    continues: [],
    closes: ["REASONING_END"],
    key: "messageId",
    perOwner: false,
    reopenable: true,
    attributed: true,
  },
  {
    open: "REASONING_MESSAGE_START",
    continues: ["REASONING_MESSAGE_CONTENT"],
    closes: ["REASONING_MESSAGE_END"],
    key: "messageId",
    perOwner: false,
    reopenable: true,
    attributed: true,
  },
  {
    open: "TEXT_MESSAGE_START",
    continues: ["TEXT_MESSAGE_CONTENT"],
    closes: ["TEXT_MESSAGE_END"],
    key: "messageId",
    perOwner: false,
    reopenable: true,
    attributed: true,
  },
  {
    open: "TOOL_CALL_START",
    continues: ["TOOL_CALL_ARGS"],
    closes: ["TOOL_CALL_END"],
    key: "toolCallId",
    perOwner: false,
    reopenable: true,
    attributed: true,
  },
  {
    open: "STEP_STARTED",
    continues: [],
    closes: ["STEP_FINISHED"],
    key: "stepName",
    perOwner: true,
    reopenable: true,
    attributed: true,
  },
  {
    open: "SUBAGENT_STARTED",
    continues: [],
    closes: ["SUBAGENT_FINISHED", "SUBAGENT_ERROR"],
    key: "subagentRunId",
    perOwner: false,
    reopenable: false,
    attributed: false,
  },
];

/** An item of the current run. Closed items stay until the run ends: a reopen must come from their owner (R-TEXT-6). */
interface RunItem {
  readonly owner: string | undefined;
  open: boolean;
}

// ---------------------------------------------------------------------------------------------
// The interpreter
// ---------------------------------------------------------------------------------------------

const PARENT_LANE = undefined;
const TEXT_ROLES: readonly unknown[] = ["developer", "system", "assistant", "user"];

class Interpreter {
  readonly warnings: string[] = [];
  index = 0;

  // upcast: the open legacy span / message ids (D-THINK-IDS).
  legacySpan: string | undefined;
  legacyMessage: string | undefined;

  // expand: open chunk streams by lane.
  readonly lanes = new Map<string | undefined, ChunkStream>();

  // verify: run phase, the run's items per family (key → item), known message roles.
  phase: "before-first" | "open" | "finished" | "errored" = "before-first";
  /** The open run's ids (D-RUN-ID). */
  runIds: Obj = {};
  readonly items: Map<string, RunItem>[] = DISCIPLINE.map(() => new Map());
  readonly roles = new Map<string, string>();

  // history: messages, issuers, and what is open in history (D-SNAPSHOT-OPEN: open items a snapshot removed).
  readonly messages: Obj[] = [];
  readonly openInHistory = { message: new Set<string>(), toolCall: new Set<string>() };
  readonly removedWhileOpen = { message: new Set<string>(), toolCall: new Set<string>() };
  readonly issuers = new Map<string, string | undefined>();
  incomplete: ModelIncompleteItem[] = [];

  constructor(private readonly options: ModelOptions) {
    for (const m of options.initialMessages ?? []) {
      const copy = structuredClone(m) as unknown as Obj;
      this.messages.push(copy);
      this.recordIssuers(copy);
      this.roles.set(copy.id as string, copy.role as string);
    }
  }

  accepts(divergence: KnownDivergence): boolean {
    return this.options.accept?.has(divergence) === true;
  }

  fail(code: string): never {
    throw new Reject(code, this.index);
  }

  warn(code: string): void {
    this.warnings.push(code);
  }

  // ----- source event ------------------------------------------------------------------------

  source(raw: unknown): void {
    for (const upcast of this.upcast(raw)) {
      const enforced = this.enforce(upcast);
      if (enforced === undefined) continue;
      for (const expanded of this.expand(enforced)) {
        this.verify(expanded);
        this.history(expanded);
      }
    }
  }

  end(): void {
    // D-TRUNC: the source completed. What is still open in history is truncated (also when the
    // run is open, which then fails): no END is synthesized, no RUN_FINISHED.
    this.endOpenItems("truncated");
    if (this.phase === "open") this.fail("RUN_TRUNCATED");
  }

  // ----- stage 1 -----------------------------------------------------------------------------

  upcast(raw: unknown): unknown[] {
    if (!isObj(raw) || typeof raw.type !== "string") return [raw];
    const type = raw.type;
    if (type === "RUN_STARTED" || type === "RUN_ERROR") {
      // Nothing legacy survives into a new run; RUN_ERROR ends whatever was open (R-RUN-11).
      this.legacySpan = undefined;
      this.legacyMessage = undefined;
    }
    const target = LEGACY_TARGET[type];
    if (target === undefined) return [raw];

    // D-THINK-IDS: a carried non-empty messageId is used; an opener without one mints an id.
    const carried = typeof raw.messageId === "string" && raw.messageId !== "" ? raw.messageId : undefined;
    const isSpan = type === "THINKING_START" || type === "THINKING_END";
    const open = isSpan ? this.legacySpan : this.legacyMessage;
    const opens = type === "THINKING_START" || type === "THINKING_TEXT_MESSAGE_START";
    const closes = type === "THINKING_END" || type === "THINKING_TEXT_MESSAGE_END";
    let id: string;
    if (opens) {
      if (open !== undefined) this.fail("DUPLICATE_OPEN"); // 0.x items have no ids: one of a kind at a time
      id = carried ?? this.options.idFactory();
    } else {
      if (open === undefined) this.fail("LEGACY_ORPHAN"); // D-THINK-ORPHAN: nothing minted
      id = carried ?? open;
    }
    if (isSpan) this.legacySpan = closes ? undefined : id;
    else this.legacyMessage = closes ? undefined : id;

    const out: Obj = { ...raw, type: target, messageId: id };
    if (type === "THINKING_TEXT_MESSAGE_START" && raw.role === undefined) out.role = "reasoning"; // a carried role is judged by enforcement
    if (type === "THINKING_START" && raw.title !== undefined) {
      if (typeof raw.title !== "string") this.fail("MALFORMED_EVENT"); // 0.x title is a string (R-DEP-5)
      this.warn("THINKING_UPCAST");
      this.moveTitle(raw.title, out);
      return [out];
    }
    this.warn("THINKING_UPCAST");
    return [out];
  }

  /**
   * D-THINK-TITLE: the title moves to metadata["agui-reasoning"].thinkingTitle (reported). When that
   * place is taken it is dropped (lossy warning); when metadata is malformed it stays where it was,
   * for enforcement to reject the event.
   */
  moveTitle(title: string, out: Obj): void {
    const metadata = out.metadata;
    if (metadata !== undefined && !isObj(metadata)) return;
    const own = metadata?.["agui-reasoning"];
    delete out.title;
    if (own === undefined) out.metadata = { ...metadata, "agui-reasoning": { thinkingTitle: title } };
    else if (isObj(own) && !has(own, "thinkingTitle"))
      out.metadata = { ...metadata, "agui-reasoning": { ...own, thinkingTitle: title } };
    else return this.warn("THINKING_TITLE_DROPPED");
    this.warn("THINKING_TITLE_MOVED");
  }

  // ----- stage 2 -----------------------------------------------------------------------------

  /** The event to forward (possibly stripped), or undefined when it is dropped. */
  enforce(event: unknown): Obj | undefined {
    if (!isObj(event) || typeof event.type !== "string") this.fail("MALFORMED_EVENT");
    const rules = RULES.get(event.type);
    if (rules === undefined) {
      this.warn("UNKNOWN_EVENT_TYPE"); // R-PROC-1/6
      return undefined;
    }
    const tolerated = NULL_TOLERATED[event.type] ?? [];
    const warnings: string[] = [];
    const strip: string[] = [];
    let removeEvent = false;
    let malformed = false;
    for (const [name, rule] of rules) {
      const value = has(event, name) ? event[name] : undefined;
      if (value === undefined) {
        if (!rule.optional) malformed = true;
        continue;
      }
      if (value === null && (name === "rawEvent" || tolerated.includes(name))) {
        warnings.push("NULL_TOLERATED");
        strip.push(name);
        continue;
      }
      const verdict = fieldAccepts(rule.kind, value);
      if (verdict === "malformed") malformed = true;
      if (verdict === "unknown-member") {
        if (rule.optional) {
          warnings.push("UNKNOWN_UNION_MEMBER");
          strip.push(name);
        } else {
          warnings.push("UNKNOWN_SUBTYPE");
          removeEvent = true;
        }
      }
    }
    for (const key of Object.keys(event)) {
      if (key === "type" || rules.has(key)) continue;
      warnings.push("STRIPPED_PROPERTY"); // R-PROC-2/6/7
      strip.push(key);
    }
    // A malformed described field fails the run (R-PROC-4), whatever else the event carries.
    if (malformed) this.fail("MALFORMED_EVENT");
    if (removeEvent) {
      // R-REASON-24: the whole event goes; what was noted inside it no longer applies (one warning).
      this.warn("UNKNOWN_SUBTYPE");
      return undefined;
    }
    for (const w of warnings) this.warn(w);
    if (strip.length === 0) return event;
    const copy: Obj = { ...event };
    for (const key of strip) delete copy[key];
    return copy;
  }

  // ----- stage 3 -----------------------------------------------------------------------------

  expand(event: Obj): Obj[] {
    const type = event.type as string;
    const family = FAMILY_OF_CHUNK.get(type);
    if (family !== undefined) return this.expandChunk(family, event);

    const out: Obj[] = [];
    if (RUN_LEVEL.has(type)) {
      for (const lane of [...this.lanes.keys()]) this.closeLane(lane, out);
    } else if (type === "SUBAGENT_FINISHED" || type === "SUBAGENT_ERROR") {
      this.closeLane(event.subagentRunId as string, out); // R-STREAM-17
    } else if (LANE_CLOSERS.has(type)) {
      this.closeLane(str(event.subagentRunId), out); // R-STREAM-15b
      // R-STREAM-9: an explicit event naming an item a chunk stream assembles (in any lane) ends it.
      const idField = NAMES_ITEM.get(type);
      if (idField !== undefined) {
        const named = this.streamNamed(idField, event[idField]);
        if (named !== undefined) this.closeLane(named.lane, out);
      }
    }
    out.push(event);
    return out;
  }

  /** The open chunk stream with this id in the id's namespace (message ids or tool call ids), in any lane. */
  streamNamed(idField: "messageId" | "toolCallId", id: unknown): ChunkStream | undefined {
    for (const stream of this.lanes.values()) if (stream.family.idField === idField && stream.id === id) return stream;
    return undefined;
  }

  closeLane(lane: string | undefined, out: Obj[]): void {
    const stream = this.lanes.get(lane);
    if (stream === undefined) return;
    this.lanes.delete(lane);
    const end: Obj = { type: stream.family.end, [stream.family.idField]: stream.id };
    if (stream.lane !== undefined) end.subagentRunId = stream.lane;
    out.push(end);
  }

  expandChunk(family: ChunkFamily, chunk: Obj): Obj[] {
    const id = str(chunk[family.idField]);
    const tag = str(chunk.subagentRunId);
    const out: Obj[] = [];

    // Which open stream the chunk concerns, if any.
    let found: ChunkStream | undefined;
    if (id !== undefined) {
      found = this.streamNamed(family.idField, id);
      if (found !== undefined && tag !== undefined && tag !== found.lane) this.fail("ATTRIBUTION_MISMATCH"); // R-SUB-2
    } else {
      // R-STREAM-16: the tagged lane; untagged, the parent's stream of this kind, else the sole subagent one.
      const inLane = this.lanes.get(tag);
      if (inLane !== undefined && inLane.family === family) found = inLane;
      else if (tag === undefined) {
        const candidates = [...this.lanes.values()].filter((s) => s.lane !== PARENT_LANE && s.family === family);
        if (candidates.length > 1) this.fail("AMBIGUOUS_CONTINUATION");
        found = candidates[0];
      }
      if (found === undefined) this.fail("FIRST_CHUNK_WITHOUT_ID"); // R-STREAM-11: never mint an id
    }

    if (found !== undefined && found.family === family) {
      // Continuation (R-STREAM-12/14): repeated opener fields must agree (defaults count).
      for (const field of family.openers) {
        if (chunk[field] !== undefined && chunk[field] !== found.openers.get(field))
          this.fail("CONFLICTING_CHUNK_FIELD");
      }
      // CONTENT for a delta, or an empty one delivering metadata/rawEvent (D-META-CHUNK).
      if (chunk.delta !== undefined || chunk.metadata !== undefined || chunk.rawEvent !== undefined) {
        out.push(this.synthesized(family.content, family, found, chunk, { delta: chunk.delta ?? "" }));
      }
      return out;
    }

    // A new item (R-STREAM-10/13), in the lane of the stream its id was found in, else the chunk's lane.
    if (family.name === "tool" && chunk.toolCallName === undefined) this.fail("FIRST_CHUNK_WITHOUT_ID");
    const lane = found !== undefined ? found.lane : tag;
    const openers = new Map<string, unknown>();
    if (family.name === "text") {
      openers.set("role", chunk.role ?? "assistant");
      openers.set("name", chunk.name);
    }
    if (family.name === "tool") {
      openers.set("toolCallName", chunk.toolCallName);
      openers.set("parentMessageId", chunk.parentMessageId);
    }
    this.closeLane(lane, out); // R-STREAM-15a: the lane's previous stream ends first
    const stream: ChunkStream = { family, id: id as string, lane, openers };
    this.lanes.set(lane, stream);
    const fields: Obj = family.name === "reasoning" ? { role: "reasoning" } : {};
    for (const [name, value] of openers) if (value !== undefined) fields[name] = value;
    out.push(this.synthesized(family.start, family, stream, chunk, fields));
    // CONTENT when the first chunk has a delta, even "" (D-SEED-001); its metadata rode on the START.
    if (chunk.delta !== undefined)
      out.push(this.synthesized(family.content, family, stream, chunk, { delta: chunk.delta }));
    return out;
  }

  /** A synthesized event: the chunk's metadata and rawEvent, the lane's attribution, never its timestamp (R-PROC-15). */
  synthesized(type: string, family: ChunkFamily, stream: ChunkStream, chunk: Obj, fields: Obj): Obj {
    const event: Obj = { type, [family.idField]: stream.id, ...fields };
    if (stream.lane !== undefined) event.subagentRunId = stream.lane;
    if (chunk.metadata !== undefined) event.metadata = chunk.metadata;
    if (chunk.rawEvent !== undefined) event.rawEvent = chunk.rawEvent;
    return event;
  }

  // ----- stage 4 -----------------------------------------------------------------------------

  verify(event: Obj): void {
    const type = event.type as string;
    const tag = str(event.subagentRunId);

    // Run lifecycle (R-RUN-1/7/8/9/11).
    if (type === "RUN_STARTED") {
      if (this.phase === "open") this.fail("NESTED_RUN");
      this.phase = "open";
      this.runIds = { runId: event.runId, threadId: event.threadId };
      this.clearRunItems(); // a new run starts with nothing open (#21)
      const input = event.input;
      if (isObj(input) && Array.isArray(input.messages)) {
        for (const m of input.messages as Obj[]) this.rememberRole(m.id as string, m.role as string);
      }
      return;
    }
    if (type === "RUN_ERROR") {
      if (this.phase === "errored") this.fail("EVENT_OUTSIDE_RUN");
      if (this.phase === "open") this.compareRunIds(event);
      this.phase = "errored";
      this.clearRunItems(); // D-RUN-ERROR
      return;
    }
    if (this.phase !== "open") this.fail("EVENT_OUTSIDE_RUN");
    if (type === "RUN_FINISHED") {
      const anyOpen = this.items.some((items) => [...items.values()].some((i) => i.open));
      if (anyOpen) this.fail("OPEN_AT_RUN_FINISHED"); // R-REASON-13, R-RUN-4, R-SUB-5
      this.compareRunIds(event);
      this.phase = "finished";
      this.clearRunItems();
      return;
    }
    if (FAMILY_OF_CHUNK.has(type)) this.fail("MALFORMED_EVENT"); // R-STREAM-7: never reached after expansion

    // Known roles (D-ROLE-CONFLICT bookkeeping for standalone events).
    if (type === "TOOL_CALL_RESULT") this.rememberRole(event.messageId as string, "tool");
    else if (type === "ACTIVITY_SNAPSHOT") this.rememberRole(event.messageId as string, "activity");
    else if (type === "MESSAGES_SNAPSHOT") {
      // Issue 12 finding 4: the roles of messages the history stops holding are forgotten. It keeps
      // the snapshot's messages, and reasoning/activity messages when the snapshot has none of that
      // role (R-STATE-3…7); the stream goes on with open messages (D-SNAPSHOT-OPEN).
      const restated = new Set((event.messages as Obj[]).map((m) => m.role));
      const openMessage = (id: string): boolean =>
        DISCIPLINE.some(
          (family, f) =>
            (family.open === "REASONING_MESSAGE_START" || family.open === "TEXT_MESSAGE_START") &&
            this.items[f]!.get(id)?.open === true,
        );
      for (const [id, role] of [...this.roles]) {
        const held = (role === "reasoning" || role === "activity") && !restated.has(role);
        if (!held && !openMessage(id)) this.roles.delete(id);
      }
      for (const m of event.messages as Obj[]) this.roles.set(m.id as string, m.role as string);
    }

    // Open-set families (R-REASON-9…14, R-TEXT-9, R-TOOL-6, R-RUN-12, R-SUB-2/5, D-SPAN-OWNER).
    DISCIPLINE.forEach((family, f) => {
      const isOpen = type === family.open;
      const isContinue = family.continues.includes(type);
      const isClose = family.closes.includes(type);
      if (!isOpen && !isContinue && !isClose) return;
      const items = this.items[f]!;
      const name = event[family.key] as string;
      const key = family.perOwner ? JSON.stringify([tag ?? null, name]) : name;
      const item = items.get(key);
      if (isOpen) {
        if (item?.open) this.fail("DUPLICATE_OPEN");
        if (item !== undefined && !family.reopenable) this.fail("DUPLICATE_OPEN");
        if (item !== undefined && family.attributed && tag !== undefined && tag !== item.owner)
          this.fail("ATTRIBUTION_MISMATCH"); // R-TEXT-6
        const role =
          type === "REASONING_MESSAGE_START"
            ? "reasoning"
            : type === "TEXT_MESSAGE_START"
              ? ((event.role as string | undefined) ?? "assistant")
              : undefined;
        if (role !== undefined) {
          const known = this.roles.get(name);
          if (known !== undefined && (known === "reasoning") !== (role === "reasoning")) this.fail("ID_ROLE_CONFLICT"); // D-ROLE-CONFLICT
        }
        if (
          family.key === "subagentRunId" &&
          event.parentSubagentRunId !== undefined &&
          !items.has(event.parentSubagentRunId as string)
        ) {
          this.fail("ORPHAN_CONTENT"); // the parent invocation must have been announced in this run
        }
        if (item !== undefined) item.open = true;
        else items.set(key, { owner: family.attributed ? tag : undefined, open: true });
        if (role !== undefined) this.rememberRole(name, role);
        return;
      }
      if (item === undefined || !item.open) {
        if (isClose && family.perOwner) {
          // A step open under another owner must be finished by that owner (R-SUB-2).
          for (const [otherKey, other] of items) {
            const [owner, otherName] = JSON.parse(otherKey) as [string | null, string];
            if (other.open && otherName === name && (owner ?? undefined) !== tag) this.fail("ATTRIBUTION_MISMATCH");
          }
        }
        this.fail(isClose ? "ORPHAN_END" : "ORPHAN_CONTENT");
      }
      if (family.attributed && !family.perOwner && tag !== undefined && tag !== item.owner)
        this.fail("ATTRIBUTION_MISMATCH");
      if (isClose) item.open = false;
    });
  }

  clearRunItems(): void {
    for (const items of this.items) items.clear();
  }

  /** D-RUN-ID: an end naming another runId/threadId (when it carries one) than the run's start. */
  compareRunIds(event: Obj): void {
    const differs = (field: string) =>
      typeof event[field] === "string" && typeof this.runIds[field] === "string" && event[field] !== this.runIds[field];
    if (differs("runId") || differs("threadId")) this.warn("RUN_ID_MISMATCH");
  }

  rememberRole(id: string, role: string): void {
    if (!this.roles.has(id)) this.roles.set(id, role);
  }

  // ----- stage 5 -----------------------------------------------------------------------------

  history(event: Obj): void {
    const type = event.type as string;
    switch (type) {
      case "RUN_STARTED": {
        this.removedWhileOpen.message.clear();
        this.removedWhileOpen.toolCall.clear();
        const input = event.input;
        if (!isObj(input) || !Array.isArray(input.messages)) return;
        const listed = new Set<string>();
        for (const m of input.messages as Obj[]) {
          // A message the echo lists twice (R-EVT-8): the first copy counts, the later is dropped with a warning.
          const key = `${m.role === "tool" ? "tool" : "other"}\u0000${m.id as string}`;
          if (listed.has(key)) {
            this.warn("DUPLICATE_MESSAGE_ID");
            continue;
          }
          listed.add(key);
          // Held by id and whether it is a tool message (D-HISTORY-IDS): a user message reusing a held
          // tool result's id is a message of its own (D-TOOL-RESULT-ID, as a TEXT_MESSAGE_START's is).
          if (this.messages.some((h) => h.id === m.id && (h.role === "tool") === (m.role === "tool"))) continue;
          const copy = structuredClone(m);
          this.messages.push(copy);
          this.recordIssuers(copy);
        }
        return;
      }
      case "RUN_ERROR": // D-RUN-ERROR: open items are abandoned, their content stays
        this.endOpenItems("abandoned");
        return;
      case "TEXT_MESSAGE_START":
      case "REASONING_MESSAGE_START": {
        const id = event.messageId as string;
        const reasoning = type === "REASONING_MESSAGE_START";
        let message = this.find(id);
        // D-TOOL-RESULT-ID the other way round: a text message reusing a tool message's id is a message of its own.
        if (message !== undefined && !reasoning && message.role === "tool") {
          this.warn("DUPLICATE_MESSAGE_ID");
          message = undefined;
        }
        if (message === undefined) {
          // Created at START (R-SCHEMA-10); a reasoning message never has a name.
          message = { id, role: reasoning ? "reasoning" : (event.role ?? "assistant"), content: "" };
          if (!reasoning && event.name !== undefined) message.name = event.name;
          if (event.subagentRunId !== undefined) message.subagentRunId = event.subagentRunId;
          this.messages.push(message);
        } else {
          // A reopen appends in place; established values stand (R-TEXT-5). It must stay in its family.
          const fits = reasoning ? message.role === "reasoning" : TEXT_ROLES.includes(message.role);
          if (!fits) this.fail("ID_ROLE_CONFLICT");
        }
        this.mergeMetadata(message, event);
        this.openInHistory.message.add(id);
        this.removedWhileOpen.message.delete(id);
        this.listOpen("message", id);
        return;
      }
      case "TEXT_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_CONTENT": {
        const id = event.messageId as string;
        const message = this.find(id);
        if (event.delta === "" && event.metadata === undefined) return; // a keep-alive: nothing to apply, nothing lost
        if (this.removedWhileOpen.message.has(id) || message === undefined)
          return this.warn(this.lostTarget(type, message)); // D-SNAPSHOT-OPEN/-ROLE
        // R-STREAM-4: appended in arrival order; an empty delta appends nothing (R-SCHEMA-3).
        if (event.delta !== "")
          message.content = `${typeof message.content === "string" ? message.content : ""}${event.delta as string}`;
        this.mergeMetadata(message, event);
        return;
      }
      case "TEXT_MESSAGE_END":
      case "REASONING_MESSAGE_END": {
        const id = event.messageId as string;
        const message = this.find(id);
        if (this.removedWhileOpen.message.delete(id) || message === undefined) {
          if (event.metadata !== undefined) this.warn(this.lostTarget(type, message)); // its metadata cannot land
          return;
        }
        this.openInHistory.message.delete(id);
        this.unlist("message", id);
        this.mergeMetadata(message, event);
        return;
      }
      case "TOOL_CALL_START": {
        const id = event.toolCallId as string;
        const existing = this.findToolCall(id);
        if (existing !== undefined) {
          this.mergeMetadata(existing, event); // reopen (R-TOOL-2): the established name and parent stand
        } else {
          const holder = this.toolCallHolder(event);
          const call: Obj = { id, type: "function", function: { name: event.toolCallName, arguments: "" } };
          this.mergeMetadata(call, event); // R-TOOL-5
          holder.toolCalls = [...((holder.toolCalls as Obj[] | undefined) ?? []), call];
        }
        this.openInHistory.toolCall.add(id);
        this.removedWhileOpen.toolCall.delete(id);
        this.listOpen("tool-call", id);
        return;
      }
      case "TOOL_CALL_ARGS": {
        const id = event.toolCallId as string;
        const call = this.findToolCall(id);
        if (event.delta === "" && event.metadata === undefined) return;
        if (this.removedWhileOpen.toolCall.has(id) || call === undefined) return this.warn("TARGET_REMOVED");
        const fn = call.function as Obj;
        fn.arguments = `${fn.arguments as string}${event.delta as string}`;
        this.mergeMetadata(call, event);
        return;
      }
      case "TOOL_CALL_END": {
        const id = event.toolCallId as string;
        const call = this.findToolCall(id);
        if (this.removedWhileOpen.toolCall.delete(id) || call === undefined) {
          if (event.metadata !== undefined) this.warn("TARGET_REMOVED");
          return;
        }
        this.openInHistory.toolCall.delete(id);
        this.unlist("tool-call", id);
        this.mergeMetadata(call, event);
        return;
      }
      case "TOOL_CALL_RESULT":
        return this.addToolResult(event);
      case "ACTIVITY_SNAPSHOT": {
        // By id, the message of another role first (D-TOOL-RESULT-ID: a tool result may share its id).
        const held = this.find(event.messageId as string);
        const at = held === undefined ? -1 : this.messages.indexOf(held);
        if (held !== undefined && held.role !== "activity") return this.warn("ACTIVITY_SKIPPED"); // R-ACT-5
        if (held !== undefined && event.replace === false) return this.mergeMetadata(held, event);
        const message: Obj = {
          id: event.messageId,
          role: "activity",
          activityType: event.activityType,
          content: event.content,
        };
        if (event.subagentRunId !== undefined) message.subagentRunId = event.subagentRunId;
        if (held?.metadata !== undefined) message.metadata = held.metadata; // metadata keeps merging
        this.mergeMetadata(message, event);
        if (held === undefined) this.messages.push(message);
        else this.messages[at] = message;
        return;
      }
      case "REASONING_ENCRYPTED_VALUE":
        return this.storeValue(event);
      case "MESSAGES_SNAPSHOT":
        return this.reconcile(event.messages as Obj[]);
      default:
        return; // the other event types leave the history as it is
    }
  }

  /** Why a fragment of a message stream is not applied: removed, or restated with a role its family does not hold (D-SNAPSHOT-ROLE). */
  lostTarget(type: string, held: Obj | undefined): string {
    if (held === undefined) return "TARGET_REMOVED";
    const reasoning = type.startsWith("REASONING_");
    const fits = reasoning ? held.role === "reasoning" : TEXT_ROLES.includes(held.role);
    return fits ? "TARGET_REMOVED" : "TARGET_REPLACED";
  }

  /** Lists an item as open (in its old place if it was listed before). */
  listOpen(kind: ModelIncompleteItem["kind"], id: string): void {
    const item: ModelIncompleteItem = { kind, id, reason: "open" };
    const at = this.incomplete.findIndex((i) => i.kind === kind && i.id === id);
    if (at < 0) this.incomplete.push(item);
    else this.incomplete[at] = item;
  }

  unlist(kind: ModelIncompleteItem["kind"], id: string): void {
    this.incomplete = this.incomplete.filter((i) => !(i.kind === kind && i.id === id));
  }

  /** RUN_ERROR (abandoned) or the end of the source (truncated): what is open stops being open. */
  endOpenItems(reason: "abandoned" | "truncated"): void {
    const open = this.openInHistory;
    this.incomplete = this.incomplete.map((i) =>
      i.reason === "open" && (i.kind === "message" ? open.message : open.toolCall).has(i.id) ? { ...i, reason } : i,
    );
    for (const set of [...Object.values(this.openInHistory), ...Object.values(this.removedWhileOpen)]) set.clear();
  }

  /** The message `id`; of two sharing it (D-TOOL-RESULT-ID), the one that is not a tool result. */
  find(id: string): Obj | undefined {
    return this.messages.find((m) => m.id === id && m.role !== "tool") ?? this.messages.find((m) => m.id === id);
  }

  findToolCall(id: string): Obj | undefined {
    for (const m of this.messages) {
      if (m.role !== "assistant" || !Array.isArray(m.toolCalls)) continue;
      const call = (m.toolCalls as Obj[]).find((c) => c.id === id);
      if (call !== undefined) return call;
    }
    return undefined;
  }

  /**
   * The assistant message a new tool call lands on (the @ag-ui/client reducer's choice, R-TOOL-1):
   * the one `parentMessageId` names (created if not held); without one, or when it names a
   * non-assistant message (warned), the assistant message whose id is the tool call id.
   */
  toolCallHolder(event: Obj): Obj {
    let holderId = str(event.parentMessageId) ?? (event.toolCallId as string);
    let held = this.find(holderId);
    // The event's warnings are given only if it does not fail the run (as in every stage).
    const warnings: string[] = [];
    if (held !== undefined && event.parentMessageId !== undefined && held.role !== "assistant") {
      warnings.push("TOOL_CALL_PARENT_CONFLICT");
      holderId = event.toolCallId as string;
      held = this.find(holderId);
    }
    if (held !== undefined && held.role === "tool") {
      // D-TOOL-RESULT-ID the other way round: the holder is an assistant message of its own.
      warnings.push("DUPLICATE_MESSAGE_ID");
      held = undefined;
    }
    if (held !== undefined && held.role !== "assistant") this.fail("ID_ROLE_CONFLICT");
    for (const w of warnings) this.warn(w);
    if (held !== undefined) return held;
    const created: Obj = { id: holderId, role: "assistant" };
    if (event.subagentRunId !== undefined) created.subagentRunId = event.subagentRunId;
    this.messages.push(created);
    return created;
  }

  /**
   * R-TOOL-3: a tool message of its own, right after the assistant message holding the call and the
   * tool messages already following it (appended when the call is not held). A held id is replaced
   * with a (lossy) warning, or conflicts when it is not a tool message.
   */
  addToolResult(event: Obj): void {
    const message: Obj = { id: event.messageId, role: "tool", toolCallId: event.toolCallId, content: event.content };
    if (event.subagentRunId !== undefined) message.subagentRunId = event.subagentRunId;
    this.mergeMetadata(message, event);
    const id = event.messageId as string;
    const other = this.messages.find((m) => m.id === id && m.role !== "tool");
    const at = this.messages.findIndex((m) => m.id === id && m.role === "tool");
    if (at >= 0) {
      this.warn("DUPLICATE_MESSAGE_ID");
      this.forgetIssuers(this.messages[at]!);
      this.messages[at] = message;
      return;
    }
    // D-TOOL-RESULT-ID: sharing an id with a message of another role is no failure.
    const minted =
      other !== undefined &&
      other.role === "assistant" &&
      ((other.toolCalls as Obj[] | undefined) ?? []).some((c) => c.id === id);
    if (other !== undefined && !minted) this.warn("DUPLICATE_MESSAGE_ID");
    const holderAt = this.messages.findIndex(
      (m) =>
        m.role === "assistant" &&
        Array.isArray(m.toolCalls) &&
        (m.toolCalls as Obj[]).some((c) => c.id === event.toolCallId),
    );
    if (holderAt < 0) {
      this.messages.push(message);
      return;
    }
    let insertAt = holderAt + 1;
    while (insertAt < this.messages.length && this.messages[insertAt]!.role === "tool") insertAt++;
    this.messages.splice(insertAt, 0, message);
  }

  /** R-META-4: shallow, key by key, last write wins. */
  mergeMetadata(target: Obj, event: Obj): void {
    if (!isObj(event.metadata)) return;
    target.metadata = { ...(target.metadata ?? {}), ...event.metadata };
  }

  /** R-REASON-15…18/22, D-REPEAT, D-FORWARD, D-UNKNOWN-ENTITY, D-ISSUER. */
  storeValue(event: Obj): void {
    const entityId = event.entityId as string;
    const target =
      event.subtype === "message"
        ? [this.find(entityId)].find((m) => m !== undefined && m.role !== "activity")
        : this.findToolCall(entityId);
    if (target === undefined) return this.warn("UNKNOWN_ENTITY");
    target.encryptedValue = event.encryptedValue;
    // A value on a tool message has its own record (D-HISTORY-IDS: it may share its id with another message).
    this.issuers.set(
      valueKey(target.role === "tool" ? "tool message" : (event.subtype as string), entityId),
      this.options.producer,
    );
  }

  /** R-STATE-4/5/6, R-REASON-20. */
  reconcile(snapshot: Obj[]): void {
    // By id, a tool message only with a tool message (D-TOOL-RESULT-ID).
    const key = (m: Obj): string => `${m.role === "tool" ? "tool" : "other"}\u0000${m.id as string}`;
    const byId = new Map(snapshot.map((m) => [key(m), m]));
    // A message listed twice (R-EVT-8): each copy replaced the one before it, which is dropped with a warning.
    for (let i = byId.size; i < snapshot.length; i++) this.warn("DUPLICATE_MESSAGE_ID");
    // The family that opened each open message (D-SNAPSHOT-ROLE).
    const openedAsReasoning = new Map(
      [...this.openInHistory.message].map((id) => [id, this.find(id)?.role === "reasoning"]),
    );
    const snapshotHasActivity = snapshot.some((m) => m.role === "activity");
    const snapshotHasReasoning = snapshot.some((m) => m.role === "reasoning");
    const kept: Obj[] = [];
    for (const held of this.messages) {
      const restated = byId.get(key(held));
      if (restated !== undefined) {
        this.forgetIssuers(held);
        const copy = structuredClone(restated);
        this.recordIssuers(copy);
        kept.push(copy);
      } else if (
        (held.role === "activity" && !snapshotHasActivity) ||
        (held.role === "reasoning" && !snapshotHasReasoning)
      ) {
        kept.push(held);
      } else {
        this.forgetIssuers(held);
      }
    }
    const heldIds = new Set(this.messages.map(key));
    const placed = new Set<string>();
    for (const m of snapshot) {
      if (heldIds.has(key(m)) || placed.has(key(m))) continue;
      placed.add(key(m));
      const copy = structuredClone(byId.get(key(m))!); // a repeated id: the later copy, where it first appears
      this.recordIssuers(copy);
      kept.push(copy);
    }
    this.messages.splice(0, this.messages.length, ...kept);
    // Only what is still held can be incomplete.
    this.incomplete = this.incomplete.filter(
      (i) => (i.kind === "message" ? this.find(i.id) : this.findToolCall(i.id)) !== undefined,
    );
    // D-SNAPSHOT-OPEN: open items the snapshot took away stop receiving fragments; D-SNAPSHOT-ROLE:
    // so do those it restated with a role of another family, complete as restated (not incomplete).
    for (const id of this.openInHistory.message) {
      const held = this.find(id);
      if (held === undefined) {
        this.openInHistory.message.delete(id);
        this.removedWhileOpen.message.add(id);
      } else if (
        this.lostTarget(openedAsReasoning.get(id) === true ? "REASONING_" : "TEXT_", held) === "TARGET_REPLACED"
      ) {
        this.openInHistory.message.delete(id);
        this.removedWhileOpen.message.add(id);
        this.unlist("message", id);
      }
    }
    for (const id of this.openInHistory.toolCall) {
      if (this.findToolCall(id) !== undefined) continue;
      this.openInHistory.toolCall.delete(id);
      this.removedWhileOpen.toolCall.add(id);
    }
  }

  recordIssuers(message: Obj): void {
    if (message.encryptedValue !== undefined) this.issuers.set(ownValueKey(message), this.options.producer);
    for (const call of (message.toolCalls as Obj[] | undefined) ?? []) {
      if (call.encryptedValue !== undefined)
        this.issuers.set(`tool-call\u0000${call.id as string}`, this.options.producer);
    }
  }

  forgetIssuers(message: Obj): void {
    this.issuers.delete(ownValueKey(message));
    for (const call of (message.toolCalls as Obj[] | undefined) ?? [])
      this.issuers.delete(`tool-call\u0000${call.id as string}`);
  }
}

/** The issuers key of a value: its kind ("message", "tool message" or "tool-call") and its id. */
const valueKey = (kind: string, id: string): string => `${kind}\u0000${id}`;
/** The key of the value a message itself carries: a tool message's is its own (D-HISTORY-IDS). */
const ownValueKey = (message: Obj): string =>
  valueKey(message.role === "tool" ? "tool message" : "message", message.id as string);

/** Runs the model over a whole stream: the source completes after the last event. */
export function runReferenceModel(events: readonly unknown[], options: ModelOptions): ModelResult {
  const model = new Interpreter(options);
  const result = (outcome: "completed" | "failed", error?: Reject): ModelResult => ({
    outcome,
    ...(error ? { errorCode: error.code, errorIndex: error.index } : {}),
    warningCodes: model.warnings,
    history: { messages: model.messages as unknown as Message[], incomplete: model.incomplete, issuers: model.issuers },
  });
  try {
    for (const event of events) {
      model.source(event);
      model.index++;
    }
    model.end();
  } catch (error) {
    if (error instanceof Reject) return result("failed", error);
    throw error;
  }
  return result("completed");
}

/**
 * D-ISSUER, R-INPUT-4, R-REASON-26: the messages to send to `producer`: activity messages removed,
 * values kept only where `producer` issued them; the ids of the values left out are listed.
 */
export function modelRunInput(history: ModelHistory, producer: string): { messages: Message[]; withheld: string[] } {
  const withheld: string[] = [];
  const keep = (kind: string, id: string, holder: Obj): Obj => {
    if (holder.encryptedValue === undefined || history.issuers.get(valueKey(kind, id)) === producer) return holder;
    withheld.push(id);
    const { encryptedValue: _dropped, ...rest } = holder;
    return rest;
  };
  const messages = (history.messages as unknown as Obj[])
    .filter((m) => m.role !== "activity")
    .map((m) => {
      const copy = keep(m.role === "tool" ? "tool message" : "message", m.id as string, structuredClone(m));
      if (Array.isArray(copy.toolCalls))
        copy.toolCalls = (copy.toolCalls as Obj[]).map((c) => keep("tool-call", c.id as string, c));
      return copy as unknown as Message;
    });
  return { messages, withheld };
}
