import { EventType, type Message } from "@ag-ui/core";
import type { AguiEvent } from "../core/types";
import { CHUNK_FAMILIES, type ChunkFamily } from "../chunks/chunk-families";
import { closesNoStream, streamContinuedBy, type OpenStream } from "../chunks/lanes";
import { contentEvent } from "../chunks/synthesize";
import { passesAsContinuation } from "../discipline/verify-discipline";
import { appendableSlot, isSimpleMessage, messageFamilyOfContent, withContentAt } from "../history/apply-messages";
import { appendableCall, withArgumentsAt } from "../history/apply-tool-calls";
import type { Conversation } from "../history/conversation";
import { ContentBuilder } from "../history/content-builder";
import { fitsContentLength } from "../history/content-limit";
import type { ChainLane, LaneArming } from "../core/chain-runner";
import type { ExpandState } from "../chunks/lanes";
import type { VerifyState } from "../discipline/verify-state";
import { isInstant } from "../core/json";
/** Where the stages the lane reads sit in a chain in the facade's order (upcast, enforce, expand, verify, history). */
const EXPAND = 2;
const VERIFY = 3;
const HISTORY = 4;

/**
 * The delta lane of a chain in the facade's order: the facade's own, and a fused chain of the
 * package's operators ending with `deriveHistory` (src/pipeline/operators.ts). `emitsEvents`: the
 * history link passes the events on (the facade's `events$`); otherwise it emits nothing per event
 * (deriveHistory publishes its history after each source event, `ChainLink.publish`). `defers`
 * (a paced history, D-PACE): a taken delta only extends the lane's text, which the conversation gets
 * when the runner settles the lane (at the next publication, before the steps run): no conversation
 * version per delta.
 */
export function historyLane(maxContentLength: number, emitsEvents: boolean, defers: boolean): LaneArming {
  return (states, event) => DeltaLane.arm(states, event, maxContentLength, emitsEvents, defers);
}

/**
 * The delta lane: the fused pipeline's shortcut for the event that makes up nearly all of a stream,
 * the next delta of the item that is streaming — a reasoning or text message's content, or a tool
 * call's arguments, the parent agent's or a subagent's (issue 5).
 *
 * For a source event no kept lane takes, the runner asks `arm` (src/core/chain-runner.ts) whether
 * it is a delta a lane can take; `arm` asks each stage, through a predicate the stage owns, whether
 * a plain delta of that item, with that tag, would pass it unchanged and leave its state as it is: upcast and enforcement always let such a delta through unchanged (`deltaOf`
 * admits only events enforcement's fast path calls clean); expansion has no chunk stream open that
 * an explicit CONTENT/ARGS would end (`closesNoStream`), or, for a chunk, it continues the stream
 * assembling this very item (`streamContinuedBy`); verification has the item open in an active run,
 * owned by the tag if there is one (`passesAsContinuation`); the history holds it open with string
 * content or arguments (`appendableSlot`, `appendableCall`). While that holds, such a delta changes
 * nothing but that text, so it and the next ones are taken by `deltaOf` + `emitted` + `append`
 * without running the steps; the runner keeps one lane per item streaming (interleaved items, issue
 * 23), and any other event drops them all and takes the steps. `test/pipeline/delta-lane.test.ts`
 * checks that the facade gives the same events, histories, warnings and errors with and without it.
 *
 * A lane-shaped delta has the lane's type and tag (`subagentRunId`, or none), names the lane's item
 * (a chunk may leave the id out where its lane's stream is that item), and has no field but those,
 * `delta` (a string) and a safe-integer `timestamp`: no `metadata`, no `rawEvent`, nor a chunk's
 * opener fields (`role`, `name`, `toolCallName`, `parentMessageId`), which take the steps. A delta
 * that would take the text past `maxContentLength` takes the steps too: they fail the run (D-LIMIT).
 */
export class DeltaLane implements ChainLane {
  private constructor(
    /** The wire type taken: a message CONTENT type, TOOL_CALL_ARGS, or a CHUNK type. */
    private readonly type: string,
    private readonly idField: ChunkFamily["idField"],
    /** The item that is streaming. */
    private readonly id: string,
    /** A chunk may leave the id out: its lane's stream is the item (R-STREAM-12). */
    private readonly idOptional: boolean,
    /** The `subagentRunId` every delta of the lane carries; `undefined`: none. */
    private readonly tag: string | undefined,
    /** For a chunk lane, the stream expansion continues (its CONTENT/ARGS is synthesized from it); else undefined. */
    private readonly stream: OpenStream | undefined,
    /** The position in the history of the message (or of the tool call's holder). */
    private readonly position: number,
    /** The tool call's slot in its holder's `toolCalls`; -1 for a message. */
    private readonly slot: number,
    /** A message with the `{ id, role, content }` layout (its copies are literals, which keep it). */
    private readonly simple: boolean,
    /** The text so far, delta by delta (its cons cells are short-lived, see ContentBuilder). */
    private readonly text: ContentBuilder,
    /** The history's `maxContentLength`: a delta that would pass it takes the steps, which fail the run (D-LIMIT). */
    private readonly maxContentLength: number,
    /** The chain emits the event (or its expansion) after the history; otherwise nothing per delta. */
    private readonly emitsEvents: boolean,
    /** A taken delta only extends `text`; `settle` writes it into the conversation (D-PACE). */
    private readonly defers: boolean,
  ) {}

  // The text taken and not yet in the conversation (deferring lane only).
  private held: string | undefined = undefined;

  /**
   * The lane for `event` and the deltas of its item that follow, judged on the states (of a chain in
   * the facade's order) as they are now; or undefined.
   */
  static arm(
    states: readonly unknown[],
    event: unknown,
    maxContentLength: number,
    emitsEvents: boolean,
    defers: boolean,
  ): DeltaLane | undefined {
    const read = readDelta(event);
    if (read === undefined) return undefined;
    const { type, idField, tag, chunkFamily } = read;
    const namespace = idField === "toolCallId" ? "tool-call" : "message";
    const expand = states[EXPAND] as ExpandState;
    let stream: OpenStream | undefined;
    let id: string;
    let contentType: string;
    // The tag verification sees: a synthesized CONTENT/ARGS carries its stream's owner.
    let owner: string | undefined;
    if (chunkFamily !== undefined) {
      stream = streamContinuedBy(expand, namespace, read.id, tag);
      if (stream === undefined || stream.family !== chunkFamily) return undefined;
      id = stream.id;
      contentType = chunkFamily.contentType;
      owner = stream.owner;
    } else {
      if (read.id === undefined) return undefined;
      // An explicit CONTENT/ARGS passes expansion untouched when it ends no chunk stream (closeBefore).
      if (!closesNoStream(expand, namespace, read.id, tag)) return undefined;
      id = read.id;
      contentType = type;
      owner = tag;
    }
    if (!passesAsContinuation(states[VERIFY] as VerifyState, contentType, id, owner)) return undefined;
    // An id-less chunk continues its own lane's stream, which this one is only when the lane is the tag's.
    const idOptional = stream !== undefined && expand.lanes.get(tag) === stream;
    const conversation = states[HISTORY] as Conversation;
    // Where the history holds the item, and its text: what the history step appends to.
    let position: number;
    let slot = -1;
    let simple = false;
    let text: string;
    if (contentType === EventType.TOOL_CALL_ARGS) {
      const call = appendableCall(conversation, id);
      if (call === undefined) return undefined;
      ({ position, slot, args: text } = call);
    } else {
      const family = messageFamilyOfContent(contentType);
      position = family === undefined ? -1 : appendableSlot(conversation, family, id);
      if (position < 0) return undefined;
      const held = conversation.at(position)! as Message & { readonly content: string };
      simple = isSimpleMessage(held);
      text = held.content;
    }
    return new DeltaLane(
      type,
      idField,
      id,
      idOptional,
      tag,
      stream,
      position,
      slot,
      simple,
      new ContentBuilder(text),
      maxContentLength,
      emitsEvents,
      defers,
    );
  }

  /** The delta when `event` is a lane-shaped delta of this lane (see the class comment), else undefined. */
  deltaOf(event: unknown): string | undefined {
    if (typeof event !== "object" || event === null) return undefined;
    try {
      // Inside the try: `Array.isArray` throws on a revoked proxy.
      if (Array.isArray(event)) return undefined;
      const e = event as Record<string, unknown>;
      if (e.type !== this.type || e.subagentRunId !== this.tag) return undefined;
      const id = this.idField === "messageId" ? e.messageId : e.toolCallId;
      if (id !== this.id && !(id === undefined && this.idOptional)) return undefined;
      const delta = e.delta;
      if (typeof delta !== "string") return undefined;
      if (!this.fits(delta)) return undefined;
      // Read directly as well as listed: the stages read these fields whether enumerable or not.
      const timestamp = e.timestamp;
      if (timestamp !== undefined && !isInstant(timestamp)) return undefined;
      if (e.metadata !== undefined || e.rawEvent !== undefined) return undefined;
      if (this.stream !== undefined && hasOpenerField(e)) return undefined;
      // Every enumerable key, own or inherited, as enforcement's strip walk lists them.
      for (const key in e) {
        if (
          key !== "type" &&
          key !== this.idField &&
          key !== "delta" &&
          key !== "timestamp" &&
          (key !== "subagentRunId" || this.tag === undefined)
        ) {
          return undefined;
        }
      }
      return delta;
    } catch {
      // A throwing getter or proxy: the steps report it.
      return undefined;
    }
  }

  /** The chain's step for a lane-shaped delta: the history gets its text, and the chain emits what the steps would. */
  take(states: unknown[], event: unknown, delta: string, emit: (value: unknown) => void): void {
    if (!this.defers) states[HISTORY] = this.append(states[HISTORY] as Conversation, delta);
    else if (delta !== "") this.held = this.text.append(delta);
    if (this.emitsEvents) emit(this.emitted(event as AguiEvent));
  }

  get unsettled(): boolean {
    return this.held !== undefined;
  }

  /** The held text into the conversation: what `append` would have made of the same deltas. */
  settle(states: unknown[]): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    states[HISTORY] = this.withText(states[HISTORY] as Conversation, held);
  }

  /** Whether `other` streams the same item (message, or tool call of a holder) as this lane. */
  sameItem(other: ChainLane): boolean {
    const lane = other as DeltaLane;
    return this.position === lane.position && this.slot === lane.slot;
  }

  /** Whether `delta` keeps the item's text within `maxContentLength` (D-LIMIT). */
  fits(delta: string): boolean {
    return fitsContentLength(this.text.length, delta.length, this.maxContentLength);
  }

  /** What the pipeline emits for the lane-shaped `event`: itself, or the CONTENT/ARGS expansion synthesizes for a chunk. */
  emitted(event: AguiEvent): AguiEvent {
    return this.stream === undefined ? event : contentEvent(this.stream, event);
  }

  /** The history after `delta` (an empty delta appends nothing and leaves it as it is, R-SCHEMA-3). */
  append(conversation: Conversation, delta: string): Conversation {
    if (delta === "") return conversation;
    return this.withText(conversation, this.text.append(delta));
  }

  /**
   * The conversation with the lane's item holding `text` (what `append` would have made of the same
   * deltas). In the conversation's edit epoch, as a step's edits are (history-stage.ts): a lane edits
   * outside the steps, and a paced one's `settle` edits in place (src/history/epoch.ts).
   */
  withText(conversation: Conversation, text: string): Conversation {
    const was = conversation.editing();
    try {
      return this.slot < 0
        ? withContentAt(conversation, this.position, text, this.simple)
        : withArgumentsAt(conversation, this.position, this.slot, text);
    } finally {
      conversation.edited(was);
    }
  }
}

/** A chunk field only an opening chunk may carry (a continuation repeating one takes the steps, R-STREAM-14). */
function hasOpenerField(e: Record<string, unknown>): boolean {
  return (
    e.role !== undefined || e.name !== undefined || e.toolCallName !== undefined || e.parentMessageId !== undefined
  );
}

/** A delta's wire type → the field naming its item, and its chunk family for a `*_CHUNK`. */
type DeltaKind = Pick<ChunkFamily, "idField"> & { readonly chunkFamily: ChunkFamily | undefined };
const DELTA_TYPES: ReadonlyMap<string, DeltaKind> = new Map(
  CHUNK_FAMILIES.flatMap((family): [string, DeltaKind][] => [
    [family.contentType, { idField: family.idField, chunkFamily: undefined }],
    [family.chunkType, { idField: family.idField, chunkFamily: family }],
  ]),
);

/**
 * The event's `type`, the id of the item it names (absent: `undefined`) and its tag, when it is a
 * delta type and they have the types a delta's fields must have; undefined for anything else, and
 * for an event whose getters throw (the steps report it; a hostile source may change its mind
 * between reads, and that must not escape from the subscriber).
 */
function readDelta(
  event: unknown,
):
  | (DeltaKind & { readonly type: string; readonly id: string | undefined; readonly tag: string | undefined })
  | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  try {
    const e = event as Record<string, unknown>;
    const type = e.type;
    const kind = typeof type === "string" ? DELTA_TYPES.get(type) : undefined;
    if (kind === undefined) return undefined;
    const { idField, chunkFamily } = kind;
    const id = e[idField];
    const tag = e.subagentRunId;
    if ((id !== undefined && typeof id !== "string") || (tag !== undefined && typeof tag !== "string"))
      return undefined;
    return { type: type as string, chunkFamily, idField, id, tag };
  } catch {
    return undefined;
  }
}
