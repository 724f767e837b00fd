import type { Message, ToolCall } from "@ag-ui/core";
import { passThrough, type AguiEvent, type StepResult } from "../core/types";
import { IncompleteList, indexIncomplete, type IncompleteSlots } from "./incomplete";
import { PublishedList } from "./published-list";
import { indexDurations, type DurationIndex, type DurationRecords } from "./durations";
import { PersistentList } from "./persistent-list";
import type { IncompleteItem, ReasoningDuration, ReasoningHistory, ValueIssuer } from "./types";

/** The history stage's state. Only `history` is public; the rest is the stage's private business. */
export interface HistoryState {
  /** The derived conversation: immutable, and a new object whenever anything in it changed. */
  readonly history: ReasoningHistory;
}

/**
 * Lookups the reducer needs to stay O(1) per delta. Private and mutable: like every stage's private
 * state it is threaded linearly (a caller never steps an older state again), so successive
 * `Conversation`s share one index. All keys are opaque ids, hence `Map`/`Set` (an id may be `"__proto__"`).
 */
export interface ConversationIndex {
  /**
   * The identity of the producer this history records values for (D-ISSUER, `undefined`: none
   * configured). Held here, once, so that what records an issuer asks the conversation rather than
   * being handed it; comparing identities is `producer-identity.ts`'s business (D-IDENTITY).
   */
  readonly producer: string | undefined;
  /**
   * Message id → position in `messages`. Ids are unique per thread (R-EVT-8); a seed repeating one keeps the last.
   * A tool message whose id a held message of another role has (D-TOOL-RESULT-ID) is not here but in
   * `sharedToolMessage`: lookups by id keep resolving to the other message.
   */
  readonly position: Map<string, number>;
  /** Message id → position of a tool message sharing its id with a held non-tool message (D-TOOL-RESULT-ID). */
  readonly sharedToolMessage: Map<string, number>;
  /** Tool call id → id of the assistant message holding it (R-TOOL-1). */
  readonly toolCallHolder: Map<string, string>;
  /** Messages / tool calls opened in this pipeline and not closed yet. */
  readonly openMessages: Set<string>;
  readonly openToolCalls: Set<string>;
  /** Open items a MESSAGES_SNAPSHOT removed: their later fragments are not applied (D-SNAPSHOT-OPEN). */
  readonly removedMessages: Set<string>;
  readonly removedToolCalls: Set<string>;
  /** Entity id → position of its record in `records`, one map per subtype (D-ISSUER). */
  readonly messageIssuer: Map<string, number>;
  readonly toolCallIssuer: Map<string, number>;
  /** Duration record slots and the spans open now (D-DURATION, durations.ts). */
  readonly durations: DurationIndex;
  /** Id → slot of its item in `incomplete`, per kind (incomplete.ts). */
  readonly incompleteSlot: IncompleteSlots;
  /** One reusable "the event passes on" result for this stage instance (see `Conversation.passing`). */
  readonly pass: (state: Conversation, event: AguiEvent) => StepResult<Conversation, AguiEvent>;
}

/**
 * One version of the conversation. Immutable: every edit returns a new `Conversation` sharing all
 * unchanged messages (a `PersistentList`, so an edit costs O(log32 n), never a copy of the list).
 *
 * Publication is lazy: `history` builds the plain `ReasoningHistory` on first read and keeps it.
 * When the previous version was published and this one differs from it in at most one slot, the
 * array is that one copied with the slot patched (a flat copy), else it is collected from the list;
 * a stage nobody reads the history of never pays for it. Published objects are immutable by
 * contract, not frozen: V8 copies and reads frozen arrays an order of magnitude slower.
 */
export class Conversation implements HistoryState {
  private constructor(
    readonly messages: PersistentList<Message>,
    readonly incomplete: IncompleteList,
    /** Who issued each stored value (D-ISSUER), see `PublishedList`. */
    readonly records: PublishedList<ValueIssuer>,
    /** When each reasoning message and span started and ended (D-DURATION). */
    readonly durations: DurationRecords,
    readonly index: ConversationIndex,
    // A published messages array of an earlier version, equal to ours except maybe at `patchAt`.
    private basis: readonly Message[] | undefined,
    // The one slot where `messages` differs from `basis` (-1: none).
    private patchAt: number,
    // The history built from this version, once read.
    private published: ReasoningHistory | undefined,
  ) {}

  // The messages array of a `LazyHistory` of this version, once read.
  private built: readonly Message[] | undefined = undefined;

  /** A fresh first version with new indexes; every start shares `published` (same initial history object). */
  static start(
    messages: PersistentList<Message>,
    published: ReasoningHistory,
    producer: string | undefined,
  ): Conversation {
    const index: ConversationIndex = {
      producer,
      position: new Map(),
      sharedToolMessage: new Map(),
      toolCallHolder: new Map(),
      openMessages: new Set(),
      openToolCalls: new Set(),
      removedMessages: new Set(),
      removedToolCalls: new Set(),
      messageIssuer: new Map(),
      toolCallIssuer: new Map(),
      incompleteSlot: { message: new Map(), "tool-call": new Map() },
      durations: { slot: { message: new Map(), span: new Map() }, openSpans: new Map() },
      pass: passThrough(),
    };
    indexMessages(published.messages, index);
    indexIssuers(published.issuers, index);
    indexDurations(published.durations, index.durations);
    const incomplete = indexIncomplete(published.incomplete, index.incompleteSlot);
    const durations = PublishedList.of(published.durations);
    return new Conversation(
      messages,
      incomplete,
      PublishedList.of(published.issuers),
      durations,
      index,
      undefined,
      -1,
      published,
    );
  }

  get history(): ReasoningHistory {
    let history = this.published;
    if (history === undefined) {
      if (
        this.messages.size <= EAGER_MESSAGES &&
        this.incomplete.ready &&
        (this.records.built || this.records.size <= EAGER_MESSAGES) &&
        (this.durations.built || this.durations.size <= EAGER_MESSAGES)
      ) {
        history = {
          messages: this.materialize(),
          incomplete: this.incomplete.toArray(),
          issuers: this.records.toArray(),
          durations: this.durations.toArray(),
        };
        this.basis = undefined;
      } else {
        history = new LazyHistory(this);
      }
      this.published = history;
    }
    return history;
  }

  /**
   * The plain messages array of this version, built now (for a `LazyHistory` being read). Internal:
   * called once per version, by the history this version published.
   */
  buildMessages(): readonly Message[] {
    let messages = this.built;
    if (messages === undefined) {
      messages = this.materialize();
      this.built = messages;
      this.basis = undefined;
    }
    return messages;
  }

  /**
   * `result(this, [event])` for the per-delta path, without allocating: the result object is reused
   * by every step of this stage instance (valid until its next step, as `StepResult` allows).
   */
  passing(event: AguiEvent): StepResult<Conversation, AguiEvent> {
    return this.index.pass(this, event);
  }

  /** The message at `position`. */
  at(position: number): Message | undefined {
    return this.messages.get(position);
  }

  /** This conversation with `message` (same id as before) at `position`. */
  replaceAt(position: number, message: Message): Conversation {
    return this.edited(this.messages.set(position, message), position);
  }

  /** This conversation with `message` appended (and indexed). */
  append(message: Message): Conversation {
    const position = this.messages.size;
    (this.sharesId(message) ? this.index.sharedToolMessage : this.index.position).set(message.id, position);
    indexToolCalls(message, this.index.toolCallHolder);
    return this.edited(this.messages.push(message), position);
  }

  /** This conversation with `message` inserted before `position`: O(n − position) index updates, O(n) list rebuild. */
  insertAt(position: number, message: Message): Conversation {
    if (position >= this.messages.size) return this.append(message);
    const { index } = this;
    if (this.sharesId(message)) index.sharedToolMessage.set(message.id, position);
    const messages = this.messages.insert(position, message);
    for (let i = position; i < messages.size; i++) {
      const moved = messages.get(i)!;
      (moved.role === "tool" && index.sharedToolMessage.has(moved.id) ? index.sharedToolMessage : index.position).set(
        moved.id,
        i,
      );
    }
    indexToolCalls(message, index.toolCallHolder);
    return new Conversation(messages, this.incomplete, this.records, this.durations, index, undefined, -1, undefined);
  }

  /** Position of the tool message `id` (a shared one first, D-TOOL-RESULT-ID), or undefined. */
  toolMessageAt(id: string): number | undefined {
    const shared = this.index.sharedToolMessage.get(id);
    if (shared !== undefined) return shared;
    const position = this.index.position.get(id);
    return position !== undefined && this.at(position)!.role === "tool" ? position : undefined;
  }

  /**
   * A message of another role takes the id of the held tool message at `position` (D-TOOL-RESULT-ID, the
   * tool message came first): the tool message stays where it is, indexed as the shared one, so that
   * lookups by the id resolve to the message about to be appended. O(1).
   */
  yieldIdOfToolMessage(id: string, position: number): void {
    this.index.position.delete(id);
    this.index.sharedToolMessage.set(id, position);
  }

  /** Whether `message` is a tool message whose id a held message of another role already has (D-TOOL-RESULT-ID). */
  private sharesId(message: Message): boolean {
    if (message.role !== "tool") return false;
    const held = this.index.position.get(message.id);
    return held !== undefined && this.at(held)!.role !== "tool";
  }

  /** This conversation with every message replaced by `messages` (a fresh array it takes over): reindexes. */
  withMessages(messages: Message[]): Conversation {
    this.index.position.clear();
    this.index.sharedToolMessage.clear();
    this.index.toolCallHolder.clear();
    indexMessages(messages, this.index);
    return new Conversation(
      PersistentList.from(messages),
      this.incomplete,
      this.records,
      this.durations,
      this.index,
      messages,
      -1,
      undefined,
    );
  }

  withIncomplete(incomplete: IncompleteList): Conversation {
    if (incomplete === this.incomplete) return this;
    return new Conversation(
      this.messages,
      incomplete,
      this.records,
      this.durations,
      this.index,
      this.currentBasis(),
      this.currentPatch(),
      undefined,
    );
  }

  /** This conversation with new issuer records; the caller keeps `index.*Issuer` in step. */
  withIssuers(records: PublishedList<ValueIssuer>): Conversation {
    if (records === this.records) return this;
    return new Conversation(
      this.messages,
      this.incomplete,
      records,
      this.durations,
      this.index,
      this.currentBasis(),
      this.currentPatch(),
      undefined,
    );
  }

  /** This conversation with new duration records; the caller keeps `index.durations` in step. */
  withDurations(durations: DurationRecords): Conversation {
    if (durations === this.durations) return this;
    return new Conversation(
      this.messages,
      this.incomplete,
      this.records,
      durations,
      this.index,
      this.currentBasis(),
      this.currentPatch(),
      undefined,
    );
  }

  private edited(messages: PersistentList<Message>, position: number): Conversation {
    // The published array (or our basis, when its patch is this same slot) stays one slot away.
    const reusable = this.published !== undefined || this.patchAt < 0 || this.patchAt === position;
    const basis = reusable ? this.currentBasis() : undefined;
    return new Conversation(
      messages,
      this.incomplete,
      this.records,
      this.durations,
      this.index,
      basis,
      position,
      undefined,
    );
  }

  private currentBasis(): readonly Message[] | undefined {
    const published = this.published;
    if (published === undefined) return this.basis;
    // A lazy history nobody read has no array to start from (reading it here would build one per edit).
    return published instanceof LazyHistory ? this.built : published.messages;
  }

  private currentPatch(): number {
    return this.published !== undefined ? -1 : this.patchAt;
  }

  private materialize(): readonly Message[] {
    const basis = this.basis;
    if (basis === undefined) return this.messages.toArray();
    if (this.patchAt < 0) return basis;
    const array = basis.slice();
    array[this.patchAt] = this.messages.get(this.patchAt)!;
    return array;
  }
}

/**
 * Up to this many messages a published history gets its messages array at once (a flat copy of the
 * last one with one slot patched: cheaper than an accessor). Above it, the array is built when read.
 */
const EAGER_MESSAGES = 128;

/** The getters every `LazyHistory` shares as its own accessors (one function each, so few hidden classes). */
function lazyMessages(this: LazyHistory): readonly Message[] {
  return this.messagesNow();
}
function lazyIssuers(this: LazyHistory): readonly ValueIssuer[] {
  return this.issuersNow();
}
function lazyIncomplete(this: LazyHistory): readonly IncompleteItem[] {
  return this.incompleteNow();
}
function lazyDurations(this: LazyHistory): readonly ReasoningDuration[] {
  return this.durationsNow();
}

/**
 * Gives `target` the own, enumerable, configurable accessor `name` with `getter` (configurable only
 * because V8 defines a configurable accessor markedly faster; nothing redefines it).
 * Why `__defineGetter__` where the engine has it (ECMA-262 Annex B; every JavaScript runtime this
 * package supports): it defines exactly that property without reading a descriptor object, and one
 * is defined per published history of a long conversation, i.e. per delta. In V8 it took 120–130 ns
 * against 170–250 ns for `Object.defineProperty` (docs/performance.md, "T5"). Elsewhere,
 * `Object.defineProperty` does the same.
 */
const defineLazy: (target: object, name: string, getter: () => unknown) => void =
  typeof (Object.prototype as { __defineGetter__?: unknown }).__defineGetter__ === "function"
    ? (target, name, getter) =>
        (target as { __defineGetter__(name: string, getter: () => unknown): void }).__defineGetter__(name, getter)
    : (target, name, getter) =>
        Object.defineProperty(target, name, { get: getter, enumerable: true, configurable: true });

/**
 * A published history of a long conversation whose `messages` array is built on first read.
 *
 * Why: `history$` publishes a history per delta, and a plain array per history costs a copy of the
 * whole conversation per delta (O(messages), about 1.6 µs for 1,000 messages). This object instead
 * costs the same for any size. `messages` is an *own, enumerable* accessor, so equality (`toEqual`),
 * spreads, `JSON.stringify` and `structuredClone` see it exactly as a data property; the version it
 * comes from stays reachable only through the private field. Immutable like every history.
 *
 * `issuers` is the same kind of accessor while the version's issuer records have no plain array yet
 * (a value was stored since the array was last read: building it is O(values), which per value would
 * be quadratic, issue 13), and a plain data property once they have one.
 */
class LazyHistory implements ReasoningHistory {
  // Declared only: the constructor defines them in the order of a plain history (messages first).
  declare readonly messages: readonly Message[];
  declare readonly incomplete: readonly IncompleteItem[];
  declare readonly issuers: readonly ValueIssuer[];
  declare readonly durations: readonly ReasoningDuration[];
  // The version this history shows (which keeps the built array).
  readonly #version: Conversation;

  constructor(version: Conversation) {
    defineLazy(this, "messages", lazyMessages);
    // A long incomplete list is built when read too (a hostile stream opens thousands of items).
    const incomplete = version.incomplete;
    if (incomplete.ready) (this as { incomplete: readonly IncompleteItem[] }).incomplete = incomplete.toArray();
    else defineLazy(this, "incomplete", lazyIncomplete);
    if (version.records.built) (this as { issuers: readonly ValueIssuer[] }).issuers = version.records.toArray();
    else defineLazy(this, "issuers", lazyIssuers);
    // Durations change only at a reasoning START or END: a short list is built at once (and shared by
    // the versions until the next one), not given an accessor per delta; a long one is built when read.
    if (version.durations.built || version.durations.size <= EAGER_MESSAGES)
      (this as { durations: readonly ReasoningDuration[] }).durations = version.durations.toArray();
    else defineLazy(this, "durations", lazyDurations);
    this.#version = version;
  }

  messagesNow(): readonly Message[] {
    return this.#version.buildMessages();
  }

  incompleteNow(): readonly IncompleteItem[] {
    return this.#version.incomplete.toArray();
  }

  issuersNow(): readonly ValueIssuer[] {
    return this.#version.records.toArray();
  }

  durationsNow(): readonly ReasoningDuration[] {
    return this.#version.durations.toArray();
  }
}

/** The tool calls of an assistant message (none for any other role). */
export function toolCallsOf(message: Message): readonly ToolCall[] | undefined {
  if (message.role !== "assistant") return undefined;
  const calls = message.toolCalls;
  return Array.isArray(calls) ? calls : undefined;
}

/**
 * Indexes a whole list: messages of every role but tool first (the last of an id wins), then tool
 * messages, which go to `sharedToolMessage` when a message of another role has their id (D-TOOL-RESULT-ID).
 */
function indexMessages(messages: readonly Message[], index: ConversationIndex): void {
  let tools = false;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "tool") tools = true;
    else index.position.set(message.id, i);
    indexToolCalls(message, index.toolCallHolder);
  }
  if (!tools) return;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== "tool") continue;
    const held = index.position.get(message.id);
    (held !== undefined && messages[held]!.role !== "tool" ? index.sharedToolMessage : index.position).set(
      message.id,
      i,
    );
  }
}

function indexToolCalls(message: Message, holders: Map<string, string>): void {
  const calls = toolCallsOf(message);
  if (calls === undefined) return;
  for (const call of calls) if (typeof call?.id === "string") holders.set(call.id, message.id);
}

/** Rebuilds the issuer maps from the records. */
export function indexIssuers(issuers: readonly ValueIssuer[], index: ConversationIndex): void {
  index.messageIssuer.clear();
  index.toolCallIssuer.clear();
  for (let i = 0; i < issuers.length; i++) {
    const record = issuers[i]!;
    (record.subtype === "message" ? index.messageIssuer : index.toolCallIssuer).set(record.entityId, i);
  }
}
