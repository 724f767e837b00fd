import { PersistentList } from "./persistent-list";

/**
 * The one persistent structure a history version holds its parts in: the messages, the
 * `incomplete` items, the issuer records, the durations, and the stage's lookups (which ids are
 * open, which tool call each message holds, ...). An ordered list of items, each optionally named
 * by a string key, with lookup by key; every edit returns a new table and leaves this one exactly
 * as it was, so an older version — and every history it published — keeps its own lookups
 * (no index is shared between versions, issue 20).
 *
 * How: the items are a `PersistentList` (a 32-way trie, O(log32 n) per edit), and the keys a hash
 * array mapped trie (Bagwell's HAMT: 32-way branches holding only their present children) from key
 * to slot: an edit copies one root-to-leaf path of small nodes. A removed item leaves a hole,
 * squeezed out when holes outnumber items (amortized O(1) per removal). A key names at most one
 * slot: adding an item under a key held already takes the key over (the last one wins, as ids do in
 * a seed). The last lookup is remembered by the key trie's root (immutable, so the answer stays
 * right): a streaming item's deltas look up the same id again and again.
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
    private readonly keys: Node | undefined,
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
    const root = this.keys;
    if (root === undefined) return undefined;
    if (!(root instanceof Branch)) return lookup(root, key, hashOf(key), 0)?.slot;
    if (key === root.lastKey) return root.lastSlot;
    const slot = lookup(root, key, hashOf(key), 0)?.slot;
    root.lastKey = key;
    root.lastSlot = slot;
    return slot;
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
    const keys = key === undefined ? this.keys : insert(this.keys, { key, hash: hashOf(key), slot }, 0);
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
    const keys = remove(this.keys!, key, hashOf(key), 0);
    const items = this.items.set(slot, undefined);
    const holes = items.size - this.size + 1;
    if (holes > this.size && holes >= MIN_HOLES)
      return Table.build(items.toArray(), bySlot(keys, items.size), undefined);
    return new Table(items, keys, this.size - 1, undefined, -1, undefined);
  }

  /** This table with `key` naming nothing (its item stays, unnamed). */
  unkey(key: string): Table<T> {
    if (this.slotOf(key) === undefined) return this;
    const keys = remove(this.keys!, key, hashOf(key), 0);
    return new Table(this.items, keys, this.size, this.basis, this.patchAt, this.array);
  }

  /** This table with `item` inserted before `slot`, named by `key` if given (O(n)). */
  insert(slot: number, item: T, key?: string): Table<T> {
    if (slot >= this.items.size) return this.push(item, key);
    const items = this.items.toArray();
    const keys = bySlot(this.keys, items.length);
    items.splice(slot, 0, item);
    keys.splice(slot, 0, key);
    return Table.build(items, keys, undefined);
  }

  /** This table with every item replaced by `update(item)`, keys kept (O(n)). */
  map(update: (item: T) => T): Table<T> {
    const items = this.items.toArray().map((item) => (item === undefined ? item : update(item)));
    return Table.build(items, bySlot(this.keys, items.length), undefined);
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
    let root: Node | undefined;
    for (let slot = 0; slot < size; slot++) {
      const key = keys[slot];
      if (key !== undefined) root = insert(root, { key, hash: hashOf(key), slot }, 0);
    }
    return new Table<T>(PersistentList.from(items), root, size, undefined, -1, array);
  }

  private edited(items: PersistentList<T | undefined>, keys: Node | undefined, size: number, slot: number): Table<T> {
    // A built array (or our basis, when its patch is this same slot) stays one slot away; not with holes.
    let basis: readonly T[] | undefined;
    if (size === items.size) {
      basis = this.array ?? (this.patchAt < 0 || this.patchAt === slot ? this.basis : undefined);
    }
    return new Table(items, keys, size, basis, basis === undefined ? -1 : slot, undefined);
  }
}

/** A key, its hash, and the slot it names: a leaf of the key trie. */
interface Entry {
  readonly key: string;
  readonly hash: number;
  readonly slot: number;
}

/** Entries whose keys differ and whose hashes are equal (the trie cannot tell them apart). */
class Collision {
  constructor(
    readonly hash: number,
    readonly entries: readonly Entry[],
  ) {}
}

/** A branch: bit i of `bitmap` set when child i (5 bits of the hash at this level) is present, in `children` in order. */
class Branch {
  // The last lookup from this root and its answer: a cache of what never changes here.
  lastKey: string | undefined = undefined;
  lastSlot: number | undefined = undefined;

  constructor(
    readonly bitmap: number,
    readonly children: readonly Node[],
  ) {}
}

type Node = Entry | Collision | Branch;

/** Bits of the hash per level. */
const BITS = 5;

function lookup(node: Node, key: string, hash: number, shift: number): Entry | undefined {
  for (;;) {
    if (node instanceof Branch) {
      const bit = 1 << ((hash >>> shift) & 31);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.children[popcount(node.bitmap & (bit - 1))]!;
      shift += BITS;
    } else if (node instanceof Collision) return node.entries.find((e) => e.key === key);
    else return node.key === key ? node : undefined;
  }
}

/** `node` with `entry` (replacing the entry of its key, if any). */
function insert(node: Node | undefined, entry: Entry, shift: number): Node {
  if (node === undefined) return entry;
  if (node instanceof Branch) {
    const bit = 1 << ((entry.hash >>> shift) & 31);
    const at = popcount(node.bitmap & (bit - 1));
    if ((node.bitmap & bit) !== 0) {
      const children = node.children.slice();
      children[at] = insert(children[at], entry, shift + BITS);
      return new Branch(node.bitmap, children);
    }
    // Built at its size (a splice would leave the array room to grow: twice the bytes).
    const { children } = node;
    const grown = new Array<Node>(children.length + 1);
    for (let i = 0; i < at; i++) grown[i] = children[i]!;
    grown[at] = entry;
    for (let i = at; i < children.length; i++) grown[i + 1] = children[i]!;
    return new Branch(node.bitmap | bit, grown);
  }
  if (node.hash === entry.hash) {
    const entries = node instanceof Collision ? node.entries : [node];
    const kept = entries.filter((e) => e.key !== entry.key);
    return kept.length === 0 ? entry : new Collision(entry.hash, [...kept, entry]);
  }
  // Two leaves with different hashes: branches down to where their hashes part (a collision goes as a whole).
  return insert(insert(new Branch(0, []), node as Entry, shift), entry, shift);
}

/** `node` without the entry of `key` (undefined: nothing left). */
function remove(node: Node, key: string, hash: number, shift: number): Node | undefined {
  if (node instanceof Branch) {
    const bit = 1 << ((hash >>> shift) & 31);
    if ((node.bitmap & bit) === 0) return node;
    const at = popcount(node.bitmap & (bit - 1));
    const child = remove(node.children[at]!, key, hash, shift + BITS);
    if (child !== undefined) {
      // A lone leaf moves up (a lookup stops at the first leaf it meets).
      if (node.children.length === 1 && !(child instanceof Branch)) return child;
      const children = node.children.slice();
      children[at] = child;
      return new Branch(node.bitmap, children);
    }
    if (node.children.length === 1) return undefined;
    const children = node.children.filter((_, i) => i !== at);
    if (children.length === 1 && !(children[0] instanceof Branch)) return children[0];
    return new Branch(node.bitmap & ~bit, children);
  }
  if (node instanceof Collision) {
    const kept = node.entries.filter((e) => e.key !== key);
    return kept.length === 1 ? kept[0] : new Collision(node.hash, kept);
  }
  return node.key === key ? undefined : node;
}

/** The key naming each of `slots` slots (for a rebuild: O(keys)). */
function bySlot(root: Node | undefined, slots: number): (string | undefined)[] {
  const keys = new Array<string | undefined>(slots).fill(undefined);
  const visit = (node: Node): void => {
    if (node instanceof Branch) node.children.forEach(visit);
    else for (const e of node instanceof Collision ? node.entries : [node]) keys[e.slot] = e.key;
  };
  if (root !== undefined) visit(root);
  return keys;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
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

/** FNV-1a over the UTF-16 code units: keys are ids, short strings. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The key of an item of `kind` (`"message"`, `"tool-call"`, `"span"`) with id `id`. */
export const keyOf = (kind: string, id: string): string => `${kind}\u0000${id}`;
