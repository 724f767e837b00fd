import { EDIT, inForce } from "./epoch";
import { PersistentList } from "./persistent-list";

/**
 * The one persistent structure a history version holds its parts in: the messages, the
 * `incomplete` items, the issuer records, the durations, and the stage's lookups (which ids are
 * open, which tool call each message holds, ...). An ordered list of items, each optionally named
 * by a string key, with lookup by key; every edit returns a new table and leaves this one exactly
 * as it was, so an older version — and every history it published — keeps its own lookups
 * (no index is shared between versions, issue 20).
 *
 * How: the items are a `PersistentList` (a 32-way trie, O(log32 n) per edit). The keys are a
 * versioned map (Baker's trick, as in persistent arrays): the newest version holds a `Map` from key
 * to slot, and each older version the one change that undoes its successor's. A lookup or an edit
 * on the newest version costs what a `Map` costs; an older version answers exactly what it answered
 * when it was made, by walking the changes made since (and an edit on it first re-roots the map at
 * it, reversing those changes). A removed item leaves a hole, squeezed out when holes outnumber
 * items (amortized O(1) per removal). A key names at most one slot: adding an item under a key held
 * already takes the key over (the last one wins, as ids do in a seed).
 *
 * Keys live in one of three spaces (`Space`): a table of several kinds of items (a message's record and a
 * tool call's, a span's) names each by its id in its kind's space. Why not one composite key
 * (`kind + id`): that built a fresh string per lookup, which the map then had to flatten and hash
 * (issue 23's profile: allocation and hashing on every START, END and value); an id from the event is
 * hashed once, and every lookup by it reuses that.
 *
 * The plain array a published history shows is built once per table, on first read (`toArray`), and
 * a table one slot away from a table whose array was built copies that array and patches the slot:
 * a streaming message is replaced once per delta, always in the same slot.
 *
 * In an edit epoch (epoch.ts) a table made in it is edited in place: its fields take the edit's
 * list and key maps instead of a new table taking them. The key maps stay versioned either way (an
 * older version reads its keys through the newer maps' undo records).
 */
export class Table<T> {
  // The plain array of the live items, once built (or given).
  private array: readonly T[] | undefined;
  // The edit epoch this table was made in (epoch.ts): while it is `EDIT.epoch`, edits change it in place.
  private readonly epoch = EDIT.epoch;

  private constructor(
    /** Items by slot; `undefined`: a hole (an item removed). Written only in place (see `epoch`), as are the next three. */
    private items: PersistentList<T | undefined>,
    /** Key → slot in space 0, in space 1 and in space 2 (none: no key there). */
    private keys: KeyMap | undefined,
    private keys1: KeyMap | undefined,
    private keys2: KeyMap | undefined,
    /** Live items (slots minus holes). */
    readonly size: number,
    // An array of an earlier table, equal to ours except maybe at `patchAt` (-1: nowhere); no holes then.
    private basis: readonly T[] | undefined,
    private patchAt: number,
    array: readonly T[] | undefined,
  ) {
    this.array = array;
  }

  private static readonly EMPTY = new Table<never>(
    PersistentList.empty(),
    undefined,
    undefined,
    undefined,
    0,
    undefined,
    -1,
    [],
  );

  static empty<T>(): Table<T> {
    return Table.EMPTY;
  }

  /**
   * A table of `items`, `keys[i]` naming item i (none: `undefined`) in space `spaces[i]` (none given:
   * 0); `items` is what `toArray` gives. O(n).
   */
  static from<T>(items: readonly T[], keys: readonly (string | undefined)[], spaces?: readonly Space[]): Table<T> {
    return Table.build(items.slice(), keys.slice(), spaces?.slice(), items);
  }

  /** A table of `items`, each named by `keyOf(item)` in space `spaceOf(item)` (none given: 0). */
  static keyed<T>(items: readonly T[], keyOf: (item: T) => string | undefined, spaceOf?: (item: T) => Space): Table<T> {
    return Table.build(items.slice(), items.map(keyOf), spaceOf && items.map(spaceOf), items);
  }

  /** Slots, holes included (what `toArray` costs, and the bound of a slot). */
  get slots(): number {
    return this.items.size;
  }

  /** The item at `slot` (undefined: none, or a hole). */
  at(slot: number): T | undefined {
    return this.items.get(slot);
  }

  /** The slot `key` names in `space`, or undefined. */
  slotOf(key: string, space: Space = 0): number | undefined {
    return (space === 0 ? this.keys : space === 1 ? this.keys1 : this.keys2)?.get(key);
  }

  get(key: string, space: Space = 0): T | undefined {
    const slot = this.slotOf(key, space);
    return slot === undefined ? undefined : this.items.get(slot);
  }

  has(key: string, space: Space = 0): boolean {
    return this.slotOf(key, space) !== undefined;
  }

  /** This table with `item` at `slot` (same key). */
  setAt(slot: number, item: T): Table<T> {
    return this.edited(this.items.set(slot, item), this.keys, this.keys1, this.keys2, this.size, slot);
  }

  /** This table with `item` appended, named by `key` in `space` if given (taken from the slot holding it, if any). */
  push(item: T, key?: string, space: Space = 0): Table<T> {
    return this.appended(item, key, space, key === undefined ? undefined : this.slotOf(key, space));
  }

  /** This table with `item` appended under `key`, which names nothing in `space` yet (a lookup fewer than `push`). */
  pushNew(item: T, key: string, space: Space = 0): Table<T> {
    return this.appended(item, key, space, undefined);
  }

  /** This table with `item` under `key` in `space`: in place if `key` names a slot, else appended. */
  put(key: string, item: T, space: Space = 0): Table<T> {
    const slot = this.slotOf(key, space);
    return slot === undefined ? this.appended(item, key, space, undefined) : this.setAt(slot, item);
  }

  /** This table without the item `key` names in `space` (a hole where it was). */
  remove(key: string, space: Space = 0): Table<T> {
    const slot = this.slotOf(key, space);
    if (slot === undefined) return this;
    if (this.size === 1) return Table.EMPTY;
    const keys = space === 0 ? KeyMap.with(this.keys, key, undefined, slot) : this.keys;
    const keys1 = space === 1 ? KeyMap.with(this.keys1, key, undefined, slot) : this.keys1;
    const keys2 = space === 2 ? KeyMap.with(this.keys2, key, undefined, slot) : this.keys2;
    const items = this.items.set(slot, undefined);
    const holes = items.size - this.size + 1;
    if (holes > this.size && holes >= MIN_HOLES) {
      const [named, spaces] = KeyMap.bySlot([keys, keys1, keys2], items.size);
      return Table.build(items.toArray(), named, spaces, undefined);
    }
    return this.become(items, keys, keys1, keys2, this.size - 1, undefined, -1);
  }

  /** This table with `key` naming nothing in `space` (its item stays, unnamed). */
  unkey(key: string, space: Space = 0): Table<T> {
    const slot = this.slotOf(key, space);
    if (slot === undefined) return this;
    const keys = space === 0 ? KeyMap.with(this.keys, key, undefined, slot) : this.keys;
    const keys1 = space === 1 ? KeyMap.with(this.keys1, key, undefined, slot) : this.keys1;
    const keys2 = space === 2 ? KeyMap.with(this.keys2, key, undefined, slot) : this.keys2;
    if (!inForce(this.epoch))
      return new Table(this.items, keys, keys1, keys2, this.size, this.basis, this.patchAt, this.array);
    this.keys = keys;
    this.keys1 = keys1;
    this.keys2 = keys2;
    return this;
  }

  /** This table with `item` inserted before `slot`, named by `key` (in space 0) if given (O(n)). */
  insert(slot: number, item: T, key?: string): Table<T> {
    if (slot >= this.items.size) return this.push(item, key);
    const items = this.items.toArray();
    const [keys, spaces] = KeyMap.bySlot([this.keys, this.keys1, this.keys2], items.length);
    // The inserted item takes its key over, as an appended one does.
    if (key !== undefined) {
      const held = this.slotOf(key);
      if (held !== undefined) keys[held] = undefined;
    }
    items.splice(slot, 0, item);
    keys.splice(slot, 0, key);
    spaces.splice(slot, 0, 0);
    return Table.build(items, keys, spaces, undefined);
  }

  /** This table with every item replaced by `update(item)`, keys kept (O(n)). */
  map(update: (item: T) => T): Table<T> {
    const items = this.items.toArray().map((item) => (item === undefined ? item : update(item)));
    const [keys, spaces] = KeyMap.bySlot([this.keys, this.keys1, this.keys2], items.length);
    return Table.build(items, keys, spaces, undefined);
  }

  /** The last live item, or undefined. */
  last(): T | undefined {
    for (let slot = this.items.size - 1; slot >= 0; slot--) {
      const item = this.items.get(slot);
      if (item !== undefined) return item;
    }
    return undefined;
  }

  /** Whether the plain array is built (reading it costs nothing more). */
  get built(): boolean {
    return this.array !== undefined;
  }

  /** The live items in order, as a plain array: built once per table (O(slots), or a flat copy of a basis). */
  toArray(): readonly T[] {
    let array = this.array;
    if (array === undefined) {
      const basis = this.basis;
      if (basis === undefined) {
        const items = this.items.toArray();
        if (this.size < items.length) squeeze(items, items);
        array = items as T[];
      } else if (this.patchAt < 0) array = basis;
      else {
        const copy = basis.slice();
        copy[this.patchAt] = this.items.get(this.patchAt)!;
        array = copy;
      }
      this.array = array;
      this.basis = undefined;
    }
    return array;
  }

  /** A fresh table: holes squeezed out, a key held twice in a space naming its later slot. */
  private static build<T>(
    items: (T | undefined)[],
    keys: (string | undefined)[],
    spaces: Space[] | undefined,
    array: readonly T[] | undefined,
  ): Table<T> {
    const size = squeeze(items, keys, spaces);
    const maps = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()] as const;
    for (let slot = 0; slot < size; slot++) {
      const key = keys[slot];
      if (key !== undefined) maps[spaces?.[slot] ?? 0].set(key, slot);
    }
    const [map, map1, map2] = maps.map((m) => (m.size === 0 ? undefined : new KeyMap(m)));
    return new Table<T>(PersistentList.from(items), map, map1, map2, size, undefined, -1, array);
  }

  /** This table with `item` appended, named by `key` in `space` if given; `was`: the slot `key` named before. */
  private appended(item: T, key: string | undefined, space: Space, was: number | undefined): Table<T> {
    const slot = this.items.size;
    let { keys, keys1, keys2 } = this;
    if (key !== undefined) {
      if (space === 0) keys = KeyMap.with(keys, key, slot, was);
      else if (space === 1) keys1 = KeyMap.with(keys1, key, slot, was);
      else keys2 = KeyMap.with(keys2, key, slot, was);
    }
    return this.edited(this.items.push(item), keys, keys1, keys2, this.size + 1, slot);
  }

  private edited(
    items: PersistentList<T | undefined>,
    keys: KeyMap | undefined,
    keys1: KeyMap | undefined,
    keys2: KeyMap | undefined,
    size: number,
    slot: number,
  ): Table<T> {
    // A built array (or our basis, when its patch is this same slot) stays one slot away; not with holes.
    let basis: readonly T[] | undefined;
    if (size === items.size) {
      basis = this.array ?? (this.patchAt < 0 || this.patchAt === slot ? this.basis : undefined);
    }
    return this.become(items, keys, keys1, keys2, size, basis, basis === undefined ? -1 : slot);
  }

  /** A table of these parts and no built array: this one, in place, when made in the epoch in force; else a new one. */
  private become(
    items: PersistentList<T | undefined>,
    keys: KeyMap | undefined,
    keys1: KeyMap | undefined,
    keys2: KeyMap | undefined,
    size: number,
    basis: readonly T[] | undefined,
    patchAt: number,
  ): Table<T> {
    if (!inForce(this.epoch)) return new Table(items, keys, keys1, keys2, size, basis, patchAt, undefined);
    this.items = items;
    this.keys = keys;
    this.keys1 = keys1;
    this.keys2 = keys2;
    (this as { size: number }).size = size;
    this.basis = basis;
    this.patchAt = patchAt;
    this.array = undefined;
    return this;
  }
}

/**
 * Where a key lives in a table of several kinds of items: 0, the first kind (a message, and every key
 * of a table of one kind), 1, the second (a tool call, a span), 2, a third (a tool message's value,
 * issuers.ts). Keys of different spaces never meet.
 */
export type Space = 0 | 1 | 2;

/** The space of an item of `kind` (`"message"`, `"tool-call"`, `"span"`): messages 0, the others 1. */
export const spaceOf = (kind: string): Space => (kind === "message" ? 0 : 1);

/**
 * One version of a key → slot map. The newest holds the `Map`; an older one holds, instead, the
 * one key whose slot differs in `next` (a newer version) and its slot here (undefined: absent).
 */
class KeyMap {
  constructor(
    private map: Map<string, number> | undefined,
    private key?: string,
    private slot?: number,
    private next?: KeyMap,
  ) {}

  get(key: string): number | undefined {
    if (this.map !== undefined) return this.map.get(key);
    if (this.key === key) return this.slot;
    let version = this.next!;
    while (version.map === undefined) {
      if (version.key === key) return version.slot;
      version = version.next!;
    }
    return version.map.get(key);
  }

  /**
   * A version of `keys` with `key` naming `slot` (undefined: nothing); `keys` becomes its undo.
   * `was`: the slot `key` names in `keys` (undefined: none), which the caller has looked up.
   */
  static with(keys: KeyMap | undefined, key: string, slot: number | undefined, was: number | undefined): KeyMap {
    if (keys === undefined) {
      const map = new Map<string, number>();
      if (slot !== undefined) map.set(key, slot);
      return new KeyMap(map);
    }
    // Re-rooted here, the map answers for this version, as `get` did when it gave `was`.
    keys.reroot();
    const map = keys.map!;
    if (slot === undefined) map.delete(key);
    else map.set(key, slot);
    const newest = new KeyMap(map);
    keys.undoes(newest, key, was);
    return newest;
  }

  /** The key naming each of `slots` slots, and its space (for a rebuild: O(keys)); `bySpace[i]`: space i's keys. */
  static bySlot(bySpace: readonly (KeyMap | undefined)[], slots: number): [(string | undefined)[], Space[]] {
    const named = new Array<string | undefined>(slots).fill(undefined);
    const spaces = new Array<Space>(slots).fill(0);
    bySpace.forEach((keys, space) => {
      keys?.reroot();
      for (const [key, slot] of keys?.map ?? []) {
        named[slot] = key;
        spaces[slot] = space as Space;
      }
    });
    return [named, spaces];
  }

  /** This version becomes the undo of `newer`'s change: `key` names `slot` here. */
  private undoes(newer: KeyMap, key: string, slot: number | undefined): void {
    this.map = undefined;
    this.key = key;
    this.slot = slot;
    this.next = newer;
  }

  /** Makes this version the one holding the map, reversing the changes between it and the newest. */
  private reroot(): void {
    if (this.map !== undefined) return;
    const path: KeyMap[] = [this];
    let version = this.next!;
    while (version.map === undefined) {
      path.push(version);
      version = version.next!;
    }
    const map = version.map;
    // From the newest end back to this one: each step moves the map one version older.
    for (let i = path.length - 1; i >= 0; i--) {
      const older = path[i]!;
      const newer = older.next!;
      const key = older.key!;
      const was = map.get(key);
      if (older.slot === undefined) map.delete(key);
      else map.set(key, older.slot);
      newer.undoes(older, key, was);
      older.map = map;
      older.next = undefined;
    }
  }
}

/** Holes below this many are never squeezed (a small table keeps its few). */
const MIN_HOLES = 8;

/**
 * Squeezes the holes (`undefined` items) out of `items`, and the same slots out of `keys` and
 * `spaces`, in place; the live count.
 */
function squeeze(items: unknown[], keys: unknown[], spaces?: unknown[]): number {
  let kept = 0;
  for (let i = 0; i < items.length; i++) {
    if (items[i] === undefined) continue;
    keys[kept] = keys[i];
    if (spaces !== undefined) spaces[kept] = spaces[i];
    items[kept++] = items[i];
  }
  items.length = kept;
  keys.length = kept;
  if (spaces !== undefined) spaces.length = kept;
  return kept;
}
