import type { Message, ToolCall } from "@ag-ui/core";
import { NONE, passThrough, result, type AguiEvent, type ReasoningWarning, type StepResult } from "../core/types";
import { EDIT, freshEpoch, inForce } from "./epoch";
import { spaceOf, Table, type Space } from "./table";
import type { IncompleteItem, ReasoningDuration, ReasoningHistory, ValueIssuer } from "./types";

/** The history stage's state. Only `history` is public; the rest is the stage's private business. */
export interface HistoryState {
  /** The derived conversation: immutable, and a new object whenever anything in it changed. */
  readonly history: ReasoningHistory;
}

/** A span opened and not closed yet; its duration record is made when its first reasoning message starts. */
export interface OpenSpan {
  readonly id: string;
  readonly startedAt: number;
  readonly startObserved: boolean;
  readonly title?: string;
}

/** Ids (a table whose items are their own keys). */
export type IdSet = Table<string>;

/**
 * What a version holds beside its messages, each part a `Table`: immutable, so an older version
 * keeps exactly its own lookups. All keys are opaque ids (in their kind's `Space` where two kinds share a table).
 */
export interface Parts {
  /** The `incomplete` items (D-TRUNC, D-RUN-ERROR), keyed by id in their kind's space; see incomplete.ts. */
  readonly incomplete: Table<IncompleteItem>;
  /** The issuer records (D-ISSUER), keyed by entity id in their subtype's space; see issuers.ts. */
  readonly issuers: Table<ValueIssuer>;
  /** The reasoning durations (D-DURATION), keyed by id in their kind's space; see durations.ts. */
  readonly durations: Table<ReasoningDuration>;
  /** Spans open now, in opening order (a message starting belongs to the last one), by id. */
  readonly openSpans: Table<OpenSpan>;
  /**
   * Id → position of a tool message sharing its id with a held message of another role
   * (D-TOOL-RESULT-ID): the messages table keys the other one, so lookups by id resolve to it.
   */
  readonly sharedToolMessage: Table<number>;
  /** Tool call id → id of the assistant message holding it (R-TOOL-1). */
  readonly toolCallHolder: Table<string>;
  /** Messages / tool calls opened in this pipeline and not closed yet. */
  readonly openMessages: IdSet;
  readonly openToolCalls: IdSet;
  /** Open items a MESSAGES_SNAPSHOT removed: their later fragments are not applied (D-SNAPSHOT-OPEN). */
  readonly removedMessages: IdSet;
  readonly removedToolCalls: IdSet;
}

/** What one stage instance's versions share. */
interface Constants {
  /**
   * The edit epoch (epoch.ts) its steps edit in: 0, every edit makes a new version (the stage's
   * contract); else the versions are threaded linearly (`editInPlace`) and those made since the last
   * `seal` are edited in place.
   */
  epoch: number;
  /**
   * The identity of the producer this history records values for (D-ISSUER, `undefined`: none
   * configured); comparing identities is `producer-identity.ts`'s business (D-IDENTITY).
   */
  readonly producer: string | undefined;
  /** One reusable "the event passes on" result for this stage instance (see `Conversation.passing`). */
  readonly pass: (state: Conversation, event: AguiEvent) => StepResult<Conversation, AguiEvent>;
}

/**
 * One version of the conversation. Immutable: every edit returns a new `Conversation` sharing all
 * that did not change (its parts are `Table`s: an edit costs O(log32 n), never a copy), and an older
 * version stays exactly as it was — its history, its lookups, what `exportState` reads of it.
 *
 * Except between publications of a paced history (D-PACE, `editInPlace`): its steps thread the
 * versions linearly, so the version made since the last publication, and the tables and lists made
 * with it, are edited in place (epoch.ts); reading its history or handing it out seals it first.
 *
 * Publication is lazy: `history` builds the plain `ReasoningHistory` on first read and keeps it (the
 * tables build each array once, a flat copy of the last one when one slot changed); a stage nobody
 * reads the history of never pays for it. Published objects are immutable by contract, not frozen:
 * V8 copies and reads frozen arrays an order of magnitude slower.
 */
export class Conversation implements HistoryState {
  // The edit epoch this version was made in: while it is `EDIT.epoch`, edits change it in place.
  private readonly epoch = EDIT.epoch;

  private constructor(
    /**
     * The messages, keyed by id (a tool message sharing its id with another role's is not keyed:
     * `sharedToolMessage`). Written (as `parts`' fields) only in place: see `epoch`.
     */
    readonly messages: Table<Message>,
    readonly parts: Parts,
    private readonly constants: Constants,
    // The history built from this version, once read.
    private published: ReasoningHistory | undefined,
  ) {}

  /** A first version of `published` (a seed, a resumed state), its tables built from it (O(n)). */
  static start(published: ReasoningHistory, producer: string | undefined): Conversation {
    const { messages, ...lookups } = indexMessages(published.messages);
    const parts: Parts = {
      incomplete: kindTable(published.incomplete),
      issuers: issuerTable(published.issuers),
      durations: kindTable(published.durations),
      // Nothing open, nothing removed.
      openSpans: Table.empty(),
      openMessages: Table.empty(),
      openToolCalls: Table.empty(),
      removedMessages: Table.empty(),
      removedToolCalls: Table.empty(),
      ...lookups,
    };
    return new Conversation(messages, parts, { epoch: 0, producer, pass: passThrough() }, published);
  }

  /**
   * The versions stepped from this one are threaded linearly from now on (their caller never steps
   * one twice, and seals what it keeps or hands out): edits between seals are made in place.
   */
  editInPlace(): void {
    this.constants.epoch = freshEpoch();
  }

  /**
   * This version is handed out (published, exported, kept): neither it nor anything made with it
   * changes again; the next edit makes a new version.
   */
  seal(): void {
    if (this.constants.epoch === 0 || this.epoch !== this.constants.epoch) return;
    this.constants.epoch = freshEpoch();
    // An edit running now (none does: nothing reads the history inside one) copies from here on.
    if (EDIT.epoch === this.epoch) EDIT.epoch = 0;
  }

  /**
   * Puts this conversation's edit epoch in force (epoch.ts) for an edit of it; returns what
   * `edited` puts back. An edit inside an edit of this conversation (a hostile getter feeding the
   * source) first seals it: the outer edit goes on with its version as it was, as with versions.
   */
  editing(): number {
    const was = EDIT.epoch;
    if (was !== 0 && was === this.constants.epoch) this.seal();
    EDIT.epoch = this.constants.epoch;
    return was;
  }

  /** After an edit: `was` back in force, unless this conversation sealed it meanwhile (then edits copy). */
  edited(was: number): void {
    EDIT.epoch = was === 0 || was === this.constants.epoch ? was : 0;
  }

  get producer(): string | undefined {
    return this.constants.producer;
  }

  get history(): ReasoningHistory {
    // What is shown never changes: an in-place edit would show in a history built from this version,
    // and a reader comparing versions by identity would miss it.
    this.seal();
    let history = this.published;
    if (history === undefined) {
      const { incomplete, issuers, durations } = this.parts;
      history =
        this.messages.slots <= EAGER && ready(incomplete) && ready(issuers) && ready(durations)
          ? {
              messages: this.messages.toArray(),
              incomplete: incomplete.toArray(),
              issuers: issuers.toArray(),
              durations: durations.toArray(),
            }
          : new LazyHistory(this);
      this.published = history;
    }
    return history;
  }

  /**
   * `result(this, [event], warnings)`: the event passes on. Without warnings (nearly every step:
   * every delta, and most STARTs, ENDs and values) no object is allocated: the result is reused by
   * every step of this stage instance (valid until its next step, as `StepResult` allows).
   */
  passing(event: AguiEvent, warnings: readonly ReasoningWarning[] = NONE): StepResult<Conversation, AguiEvent> {
    return warnings.length === 0 ? this.constants.pass(this, event) : result(this, [event], warnings);
  }

  /** This conversation with `changes` to its parts (and `messages`, if given). */
  with(changes: Partial<Parts>, messages = this.messages): Conversation {
    const was = this.parts;
    // Only lookups changed: the history published is this one's (identity says "unchanged", history$).
    const same =
      messages === this.messages &&
      (changes.incomplete ?? was.incomplete) === was.incomplete &&
      (changes.issuers ?? was.issuers) === was.issuers &&
      (changes.durations ?? was.durations) === was.durations;
    const published = same ? this.published : undefined;
    if (inForce(this.epoch)) {
      // This version's own parts (`become`): changed in place too.
      Object.assign(was, changes);
      return this.become(messages, was, published);
    }
    return this.become(messages, partsWith(was, changes), published);
  }

  /**
   * A version of these parts: this one, in place, when made in the epoch in force; else a new one, which in an edit
   * epoch gets parts of its own (`with` changes them in place).
   */
  private become(messages: Table<Message>, parts: Parts, published: ReasoningHistory | undefined): Conversation {
    if (!inForce(this.epoch)) {
      const own = EDIT.epoch !== 0 && parts === this.parts ? partsWith(parts, NO_CHANGES) : parts;
      return new Conversation(messages, own, this.constants, published);
    }
    (this as { messages: Table<Message> }).messages = messages;
    (this as { parts: Parts }).parts = parts;
    this.published = published;
    return this;
  }

  /** The message at `position`. */
  at(position: number): Message | undefined {
    return this.messages.at(position);
  }

  /** Position of the message `id` (of another role than a tool message sharing the id, D-TOOL-RESULT-ID). */
  positionOf(id: string): number | undefined {
    return this.messages.slotOf(id);
  }

  /** This conversation with `message` (same id as before) at `position`. */
  replaceAt(position: number, message: Message): Conversation {
    return this.become(this.messages.setAt(position, message), this.parts, undefined);
  }

  /**
   * This conversation with `message` appended (and indexed). `unheld`: the caller found that no held
   * message has its id (`positionOf`), which spares looking the new id up again in a map of the
   * whole conversation.
   */
  append(message: Message, unheld = false): Conversation {
    return this.inserted(this.messages.slots, message, unheld);
  }

  /** This conversation with `message` inserted before `position`: O(n − position) when not at the end. */
  insertAt(position: number, message: Message, unheld = false): Conversation {
    return this.inserted(Math.min(position, this.messages.slots), message, unheld);
  }

  private inserted(position: number, message: Message, unheld: boolean): Conversation {
    const shares = !unheld && this.sharesId(message);
    const key = shares ? undefined : message.id;
    let { sharedToolMessage: shared } = this.parts;
    let messages: Table<Message>;
    if (position === this.messages.slots)
      messages = unheld ? this.messages.pushNew(message, key!) : this.messages.push(message, key);
    else {
      messages = this.messages.insert(position, message, key);
      if (shared.size > 0) shared = shared.map((at) => (at >= position ? at + 1 : at));
    }
    if (shares) shared = shared.put(message.id, position);
    const toolCallHolder = withToolCalls(this.parts.toolCallHolder, message);
    return this.with({ sharedToolMessage: shared, toolCallHolder }, messages);
  }

  /**
   * Position of the tool message `id` (a shared one first, D-TOOL-RESULT-ID), or undefined;
   * `position`: `positionOf(id)`, which the caller has looked up.
   */
  toolMessageAt(id: string, position: number | undefined): number | undefined {
    const shared = this.parts.sharedToolMessage.get(id);
    if (shared !== undefined) return shared;
    return position !== undefined && this.at(position)!.role === "tool" ? position : undefined;
  }

  /**
   * A message of another role takes the id of the held tool message at `position` (D-TOOL-RESULT-ID, the
   * tool message came first): the tool message stays where it is, indexed as the shared one, so that
   * lookups by the id resolve to the message about to be appended.
   */
  yieldIdOfToolMessage(id: string, position: number): Conversation {
    return this.become(
      this.messages.unkey(id),
      { ...this.parts, sharedToolMessage: this.parts.sharedToolMessage.put(id, position) },
      this.published,
    );
  }

  /** Whether `message` is a tool message whose id a held message of another role already has (D-TOOL-RESULT-ID). */
  private sharesId(message: Message): boolean {
    if (message.role !== "tool") return false;
    const held = this.positionOf(message.id);
    return held !== undefined && this.at(held)!.role !== "tool";
  }

  /** This conversation with every message replaced by `messages` (a fresh array it takes over): reindexes. */
  withMessages(messages: Message[]): Conversation {
    const { messages: table, ...lookups } = indexMessages(messages);
    return this.become(table, { ...this.parts, ...lookups }, undefined);
  }
}

/** `parts` with `changes`, a new object. A literal, not `{ ...parts, ...changes }`: a spread with overriding keys takes V8's slow path. */
function partsWith(was: Parts, changes: Partial<Parts>): Parts {
  return {
    incomplete: changes.incomplete ?? was.incomplete,
    issuers: changes.issuers ?? was.issuers,
    durations: changes.durations ?? was.durations,
    openSpans: changes.openSpans ?? was.openSpans,
    sharedToolMessage: changes.sharedToolMessage ?? was.sharedToolMessage,
    toolCallHolder: changes.toolCallHolder ?? was.toolCallHolder,
    openMessages: changes.openMessages ?? was.openMessages,
    openToolCalls: changes.openToolCalls ?? was.openToolCalls,
    removedMessages: changes.removedMessages ?? was.removedMessages,
    removedToolCalls: changes.removedToolCalls ?? was.removedToolCalls,
  };
}

const NO_CHANGES: Partial<Parts> = {};

/** A table of `incomplete` items or duration records, each keyed by its id in its kind's space. */
export function kindTable<T extends { readonly id: string; readonly kind: string }>(items: readonly T[]): Table<T> {
  return Table.keyed(
    items,
    (item) => item.id,
    (item) => spaceOf(item.kind),
  );
}

/** The space of a record in the issuers table: a message's 0, a tool call's 1, a tool message's 2. */
export const recordSpace = (subtype: ValueIssuer["subtype"], toolMessage?: boolean): Space =>
  toolMessage === true ? 2 : spaceOf(subtype);

/** A table of issuer records, each keyed by its entity id in its space (`recordSpace`). */
export function issuerTable(records: readonly ValueIssuer[]): Table<ValueIssuer> {
  return Table.keyed(
    records,
    (r) => r.entityId,
    (r) => recordSpace(r.subtype, r.toolMessage),
  );
}

/**
 * Up to this many slots a published history gets its arrays at once (a flat copy of the last one
 * with one slot patched: cheaper than an accessor). Above it, an array is built when read.
 */
const EAGER = 128;

/** Whether a table's array is built or cheap to build (publication may then take it at once). */
function ready(table: Table<unknown>): boolean {
  return table.built || table.slots <= EAGER;
}

/** The getter every `LazyHistory` shares as its own accessor `name` (one function per name, so few hidden classes). */
const lazy = (name: keyof ReasoningHistory) =>
  function (this: LazyHistory): readonly unknown[] {
    return this.arrayOf(name);
  };
const LAZY = {
  messages: lazy("messages"),
  incomplete: lazy("incomplete"),
  issuers: lazy("issuers"),
  durations: lazy("durations"),
};

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
 * `incomplete`, `issuers` and `durations` are the same kind of accessor while their table has no
 * plain array yet and a long one (building it is O(items), which per event would be quadratic,
 * issue 13), and plain data properties otherwise.
 */
class LazyHistory implements ReasoningHistory {
  // Declared only: the constructor defines them in the order of a plain history (messages first).
  declare readonly messages: readonly Message[];
  declare readonly incomplete: readonly IncompleteItem[];
  declare readonly issuers: readonly ValueIssuer[];
  declare readonly durations: readonly ReasoningDuration[];
  // The version this history shows (whose tables keep the built arrays).
  readonly #version: Conversation;

  constructor(version: Conversation) {
    defineLazy(this, "messages", LAZY.messages);
    // Unrolled: one hidden-class transition per property, in a plain history's order.
    const { incomplete, issuers, durations } = version.parts;
    const self = this as { -readonly [K in keyof ReasoningHistory]: ReasoningHistory[K] };
    if (ready(incomplete)) self.incomplete = incomplete.toArray();
    else defineLazy(this, "incomplete", LAZY.incomplete);
    if (ready(issuers)) self.issuers = issuers.toArray();
    else defineLazy(this, "issuers", LAZY.issuers);
    if (ready(durations)) self.durations = durations.toArray();
    else defineLazy(this, "durations", LAZY.durations);
    this.#version = version;
  }

  arrayOf(name: keyof ReasoningHistory): readonly unknown[] {
    const version = this.#version;
    return (name === "messages" ? version.messages : version.parts[name]).toArray();
  }
}

/** The tool calls of an assistant message (none for any other role). */
export function toolCallsOf(message: Message): readonly ToolCall[] | undefined {
  if (message.role !== "assistant") return undefined;
  const calls = message.toolCalls;
  return Array.isArray(calls) ? calls : undefined;
}

/**
 * The tables of a whole list: messages of every role but tool keyed by id (the last of an id wins),
 * tool messages too unless a message of another role has their id: then they are in `sharedToolMessage`
 * (D-TOOL-RESULT-ID). O(n).
 */
function indexMessages(
  messages: readonly Message[],
): Pick<Parts, "sharedToolMessage" | "toolCallHolder"> & { messages: Table<Message> } {
  const others = new Set<string>();
  for (const message of messages) if (message.role !== "tool") others.add(message.id);
  const keys: (string | undefined)[] = [];
  const sharedIds: string[] = [];
  const sharedAt: number[] = [];
  const callIds: string[] = [];
  const holders: string[] = [];
  messages.forEach((message, i) => {
    const shares = message.role === "tool" && others.has(message.id);
    keys.push(shares ? undefined : message.id);
    if (shares) {
      sharedIds.push(message.id);
      sharedAt.push(i);
    }
    for (const call of toolCallsOf(message) ?? []) {
      if (typeof call?.id !== "string") continue;
      callIds.push(call.id);
      holders.push(message.id);
    }
  });
  return {
    messages: Table.from(messages, keys),
    sharedToolMessage: Table.from(sharedAt, sharedIds),
    toolCallHolder: Table.from(holders, callIds),
  };
}

/** `holders` with the tool calls `message` holds. */
function withToolCalls(holders: Table<string>, message: Message): Table<string> {
  const calls = toolCallsOf(message);
  if (calls === undefined) return holders;
  for (const call of calls) if (typeof call?.id === "string") holders = holders.put(call.id, message.id);
  return holders;
}
