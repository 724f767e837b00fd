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
 * The plain array a published history shows is built once per table, on first read (`toArray`), and
 * a table one slot away from a table whose array was built copies that array and patches the slot:
 * a streaming message is replaced once per delta, always in the same slot.
 */
export class Table<T> {
  // The plain array of the live items, once built (or given).
  private array: readonly T[] | undefined;

  private constructor(
    /** Items by slot; `undefined`: a hole (an item removed). */
    private readonly items: PersistentList<T | undefined>,
    /** Key → slot (none: no key). */
    private readonly keys: KeyMap | undefined,
    /** Live items (slots minus holes). */
    readonly size: number,
    // An array of an earlier table, equal to ours except maybe at `patchAt` (-1: nowhere); no holes then.
    private basis: readonly T[] | undefined,
    private patchAt: number,
    array: readonly T[] | undefined,
  ) {
    this.array = array;
  }

  private static readonly EMPTY = new Table<never>(PersistentList.empty(), undefined, 0, undefined, -1, []);

  static empty<T>(): Table<T> {
    return Table.EMPTY;
  }

  /** A table of `items`, `keys[i]` naming item i (none: `undefined`); `items` is what `toArray` gives. O(n). */
  static from<T>(items: readonly T[], keys: readonly (string | undefined)[]): Table<T> {
    return Table.build(items.slice(), keys.slice(), items);
  }

  /** A table of `items`, each named by `keyOf(item)`. */
  static keyed<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Table<T> {
    return Table.build(items.slice(), items.map(keyOf), items);
  }

  /** Slots, holes included (what `toArray` costs, and the bound of a slot). */
  get slots(): number {
    return this.items.size;
  }

  /** The item at `slot` (undefined: none, or a hole). */
  at(slot: number): T | undefined {
    return this.items.get(slot);
  }

  /** The slot `key` names, or undefined. */
  slotOf(key: string): number | undefined {
    return this.keys?.get(key);
  }

  get(key: string): T | undefined {
    const slot = this.slotOf(key);
    return slot === undefined ? undefined : this.items.get(slot);
  }

  has(key: string): boolean {
    return this.slotOf(key) !== undefined;
  }

  /** This table with `item` at `slot` (same key). */
  setAt(slot: number, item: T): Table<T> {
    return this.edited(this.items.set(slot, item), this.keys, this.size, slot);
  }

  /** This table with `item` appended, named by `key` if given (taken from the slot holding it, if any). */
  push(item: T, key?: string): Table<T> {
    const slot = this.items.size;
    const keys = key === undefined ? this.keys : KeyMap.with(this.keys, key, slot);
    return this.edited(this.items.push(item), keys, this.size + 1, slot);
  }

  /** This table with `item` under `key`: in place if `key` names a slot, else appended. */
  put(key: string, item: T): Table<T> {
    const slot = this.slotOf(key);
    return slot === undefined ? this.push(item, key) : this.setAt(slot, item);
  }

  /** This table without the item `key` names (a hole where it was). */
  remove(key: string): Table<T> {
    const slot = this.slotOf(key);
    if (slot === undefined) return this;
    if (this.size === 1) return Table.EMPTY;
    const keys = KeyMap.with(this.keys, key, undefined);
    const items = this.items.set(slot, undefined);
    const holes = items.size - this.size + 1;
    if (holes > this.size && holes >= MIN_HOLES)
      return Table.build(items.toArray(), KeyMap.bySlot(keys, items.size), undefined);
    return new Table(items, keys, this.size - 1, undefined, -1, undefined);
  }

  /** This table with `key` naming nothing (its item stays, unnamed). */
  unkey(key: string): Table<T> {
    if (this.slotOf(key) === undefined) return this;
    const keys = KeyMap.with(this.keys, key, undefined);
    return new Table(this.items, keys, this.size, this.basis, this.patchAt, this.array);
  }

  /** This table with `item` inserted before `slot`, named by `key` if given (O(n)). */
  insert(slot: number, item: T, key?: string): Table<T> {
    if (slot >= this.items.size) return this.push(item, key);
    const items = this.items.toArray();
    const keys = KeyMap.bySlot(this.keys, items.length);
    // The inserted item takes its key over, as an appended one does.
    if (key !== undefined && keys.includes(key)) keys[keys.indexOf(key)] = undefined;
    items.splice(slot, 0, item);
    keys.splice(slot, 0, key);
    return Table.build(items, keys, undefined);
  }

  /** This table with every item replaced by `update(item)`, keys kept (O(n)). */
  map(update: (item: T) => T): Table<T> {
    const items = this.items.toArray().map((item) => (item === undefined ? item : update(item)));
    return Table.build(items, KeyMap.bySlot(this.keys, items.length), undefined);
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

  /** A fresh table: holes squeezed out, a key held twice naming its later slot. */
  private static build<T>(
    items: (T | undefined)[],
    keys: (string | undefined)[],
    array: readonly T[] | undefined,
  ): Table<T> {
    const size = squeeze(items, keys);
    const map = new Map<string, number>();
    for (let slot = 0; slot < size; slot++) {
      const key = keys[slot];
      if (key !== undefined) map.set(key, slot);
    }
    return new Table<T>(
      PersistentList.from(items),
      map.size === 0 ? undefined : new KeyMap(map),
      size,
      undefined,
      -1,
      array,
    );
  }

  private edited(items: PersistentList<T | undefined>, keys: KeyMap | undefined, size: number, slot: number): Table<T> {
    // A built array (or our basis, when its patch is this same slot) stays one slot away; not with holes.
    let basis: readonly T[] | undefined;
    if (size === items.size) {
      basis = this.array ?? (this.patchAt < 0 || this.patchAt === slot ? this.basis : undefined);
    }
    return new Table(items, keys, size, basis, basis === undefined ? -1 : slot, undefined);
  }
}

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

  /** A version of `keys` with `key` naming `slot` (undefined: nothing); `keys` becomes its undo. */
  static with(keys: KeyMap | undefined, key: string, slot: number | undefined): KeyMap {
    if (keys === undefined) {
      const map = new Map<string, number>();
      if (slot !== undefined) map.set(key, slot);
      return new KeyMap(map);
    }
    keys.reroot();
    const map = keys.map!;
    const was = map.get(key);
    if (slot === undefined) map.delete(key);
    else map.set(key, slot);
    const newest = new KeyMap(map);
    keys.undoes(newest, key, was);
    return newest;
  }

  /** The key naming each of `slots` slots (for a rebuild: O(keys)). */
  static bySlot(keys: KeyMap | undefined, slots: number): (string | undefined)[] {
    const named = new Array<string | undefined>(slots).fill(undefined);
    keys?.reroot();
    for (const [key, slot] of keys?.map ?? []) named[slot] = key;
    return named;
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

/** Squeezes the holes (`undefined` items) out of `items`, and the same slots out of `keys`, in place; the live count. */
function squeeze(items: unknown[], keys: unknown[]): number {
  let kept = 0;
  for (let i = 0; i < items.length; i++) {
    if (items[i] === undefined) continue;
    keys[kept] = keys[i];
    items[kept++] = items[i];
  }
  items.length = kept;
  keys.length = kept;
  return kept;
}

/**
 * The key of an item of `kind` (`"message"`, `"tool-call"`, `"span"`) with id `id`: a message's is
 * its id itself (no string is built per lookup), the others' `\0kind\0id`, and so is a message id
 * that starts with `\0` (keys of different items never meet).
 */
export const keyOf = (kind: string, id: string): string =>
  kind === "message" && id.charCodeAt(0) !== 0 ? id : `\u0000${kind}\u0000${id}`;
