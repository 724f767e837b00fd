/**
 * An immutable list with structural sharing: Clojure's persistent vector, a 32-way trie plus a
 * *tail*, the last 1–32 items kept in their own leaf outside the trie. `set` in the trie and `push`
 * copy one root-to-leaf path of at most ⌈log32 n⌉ nodes of 32 slots, so an edit costs the same for a
 * 10-message and a 10,000-message conversation. The tail makes the commonest edits cheaper still:
 * the message that is streaming is nearly always one of the last; a `push` appends to the tail in
 * place while no other version has grown it (each version reads only its own items), and copies it
 * otherwise. `toArray` and `from` are O(n); they serve snapshots, out-of-order tool results and
 * publication, not the per-delta path.
 *
 * One more slot is kept outside both, the *overlay*: the item last `set`, written into the tail or
 * the trie only when another slot is set or an item is pushed. Why: a streaming message is replaced
 * once per delta, always in the same slot, and each replacement copied the tail (up to 32 slots)
 * only to be copied again at the next delta (issue 13); now a run of sets at one slot copies nothing.
 * The item the overlay hides stays reachable until the overlay is written: one item at most.
 *
 * In an edit epoch (epoch.ts) a list is edited in place: the first edit copies it once into the
 * epoch, with its overlay written and a tail of its own, and every later one writes that tail (or
 * path-copies the trie) and pushes onto it in place.
 */
import { EDIT, inForce } from "./epoch";

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** A leaf holds items; a branch holds child nodes. Nodes are never mutated once shared. */
type Node = readonly unknown[];

const EMPTY_NODE: Node = [];

export class PersistentList<T> {
  // The edit epoch this list was made in (epoch.ts): while it is `EDIT.epoch`, the list owns its tail
  // and has no overlay, and edits change it in place. Fields are written only then.
  private readonly epoch = EDIT.epoch;

  private constructor(
    /** Number of items. */
    readonly size: number,
    /** Bit shift of the root's level (≥ BITS: the root is a branch whose children at level BITS are leaves). */
    private shift: number,
    /** The trie: items 0 … tailOffset − 1. */
    private root: Node,
    /**
     * Items tailOffset … size − 1 (1 to 32 of them, none when the list is empty). The array may be
     * longer: a later version pushed onto it in place (`push`); this version reads only its own.
     */
    private tail: Node,
    /** The slot whose item is `overlayItem`, not what the trie or tail holds there; -1: none. */
    private readonly overlayAt: number = -1,
    private readonly overlayItem?: unknown,
  ) {}

  private static readonly EMPTY = new PersistentList<never>(0, BITS, EMPTY_NODE, EMPTY_NODE);

  static empty<T>(): PersistentList<T> {
    return PersistentList.EMPTY;
  }

  /** Builds a list from an array, bottom-up (O(n)). The array is not retained. */
  static from<T>(items: readonly T[]): PersistentList<T> {
    const size = items.length;
    if (size === 0) return PersistentList.EMPTY;
    const offset = tailOffset(size);
    let nodes: Node[] = chunk(items, offset);
    let shift = BITS;
    while (nodes.length > WIDTH) {
      nodes = chunk(nodes, nodes.length);
      shift += BITS;
    }
    return new PersistentList<T>(size, shift, nodes, items.slice(offset));
  }

  get(index: number): T | undefined {
    if (index < 0 || index >= this.size) return undefined;
    if (index === this.overlayAt) return this.overlayItem as T;
    return this.leafFor(index)[index & MASK] as T;
  }

  /** A list with `item` at `index` (0 ≤ index < size). */
  set(index: number, item: T): PersistentList<T> {
    if (index < 0 || index >= this.size) throw new RangeError(`index ${index} outside 0..${this.size - 1}`);
    if (EDIT.epoch !== 0) {
      const list = this.owned();
      if (index >= tailOffset(list.size)) (list.tail as unknown[])[index & MASK] = item;
      else list.root = setIn(list.root, list.shift, index, item);
      return list;
    }
    // The overlay moves to `index`; the item it held there is written in first, unless `item` replaces it.
    if (this.overlayAt === index || this.overlayAt < 0) {
      return new PersistentList<T>(this.size, this.shift, this.root, this.tail, index, item);
    }
    return new PersistentList<T>(this.size, this.shift, this.writtenRoot(), this.writtenTail(), index, item);
  }

  /** A list with `item` appended. */
  push(item: T): PersistentList<T> {
    if (EDIT.epoch !== 0) return this.owned().pushed(item);
    const count = this.size - tailOffset(this.size);
    let tail = this.writtenTail();
    // A fresh copy (that took the overlay) takes the item. So does our tail when no version pushed
    // onto it since ours: every version sharing the array reads only its own `size` items, so none
    // sees it; one that pushes later finds the array longer than its items and copies them. The
    // shared empty node is never grown. A full tail moves into the trie as it is.
    if (count < WIDTH && tail === this.tail && (tail.length !== count || tail === EMPTY_NODE))
      tail = tail.slice(0, count);
    return new PersistentList<T>(this.size, this.shift, this.writtenRoot(), tail).pushed(item);
  }

  /** This list in the current edit epoch: itself, or once per epoch a copy with the overlay written and a tail of its own. */
  private owned(): PersistentList<T> {
    if (inForce(this.epoch)) return this;
    // Room for a few pushes: growing the array would copy it again.
    const count = this.size - tailOffset(this.size);
    const tail = new Array<unknown>(Math.min(WIDTH, count + ROOM));
    for (let i = 0; i < count; i++) tail[i] = this.tail[i];
    if (this.overlayAt >= tailOffset(this.size)) tail[this.overlayAt & MASK] = this.overlayItem;
    return new PersistentList<T>(this.size, this.shift, this.writtenRoot(), tail);
  }

  /** `push` on a list that is ours to change (of the current edit epoch, or just made): in place. */
  private pushed(item: T): this {
    const size = this.size;
    const count = size - tailOffset(size);
    if (count < WIDTH) (this.tail as unknown[])[count] = item;
    else {
      // The tail is full: it moves into the trie (growing a level when the trie is full) and `item` starts a new one.
      if (size >>> BITS > 1 << this.shift) {
        this.root = [this.root, pathTo(this.shift, this.tail)];
        this.shift += BITS;
      } else this.root = pushLeaf(this.root, this.shift, size - 1, this.tail);
      const tail = new Array<unknown>(ROOM);
      tail[0] = item;
      this.tail = tail;
    }
    (this as { size: number }).size = size + 1;
    return this;
  }

  /**
   * The trie with the overlay's item written where it belongs, when it belongs in the trie (else the
   * trie itself). Two methods, not one returning both: no object per edit.
   */
  private writtenRoot(): Node {
    const at = this.overlayAt;
    return at < 0 || at >= tailOffset(this.size) ? this.root : setIn(this.root, this.shift, at, this.overlayItem);
  }

  /** The tail with the overlay's item written, when it belongs in the tail: a fresh array, which `push` may still grow. */
  private writtenTail(): Node {
    const at = this.overlayAt;
    const offset = tailOffset(this.size);
    if (at < offset) return this.tail;
    const tail = this.tail.slice(0, this.size - offset);
    tail[at & MASK] = this.overlayItem;
    return tail;
  }

  /** A fresh array of the items, in order (O(n)). */
  toArray(): T[] {
    const out: T[] = [];
    collect(this.root, this.shift, out);
    const tail = this.tail;
    for (let i = 0, count = this.size - tailOffset(this.size); i < count; i++) out.push(tail[i] as T);
    if (this.overlayAt >= 0) out[this.overlayAt] = this.overlayItem as T;
    return out;
  }

  /** The leaf holding `index` (0 ≤ index < size). */
  private leafFor(index: number): Node {
    if (index >= tailOffset(this.size)) return this.tail;
    let node: Node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Node;
    return node;
  }
}

/** Free slots an edit epoch's tail is made with (slots past the list's items are never read). */
const ROOM = 4;

/** Index of the first item in the tail: the trie holds whole leaves only. */
function tailOffset(size: number): number {
  return size < WIDTH ? 0 : ((size - 1) >>> BITS) << BITS;
}

/** The first `count` items in nodes of 32. */
function chunk(items: readonly unknown[], count: number): Node[] {
  const nodes: Node[] = [];
  for (let i = 0; i < count; i += WIDTH) nodes.push(items.slice(i, Math.min(i + WIDTH, count)));
  return nodes;
}

function setIn(node: Node, level: number, index: number, item: unknown): Node {
  const copy = node.slice();
  if (level === 0) copy[index & MASK] = item;
  else {
    const slot = (index >>> level) & MASK;
    copy[slot] = setIn(node[slot] as Node, level - BITS, index, item);
  }
  return copy;
}

/** `node` (a branch at `level`) with `leaf` added as the leaf holding item `last`. */
function pushLeaf(node: Node, level: number, last: number, leaf: Node): Node {
  const copy = node.slice();
  const slot = (last >>> level) & MASK;
  if (level === BITS) copy[slot] = leaf;
  else {
    const child = node[slot] as Node | undefined;
    copy[slot] = child === undefined ? pathTo(level - BITS, leaf) : pushLeaf(child, level - BITS, last, leaf);
  }
  return copy;
}

/** A fresh chain of branches from `level` down to `leaf` (level 0 is the leaf itself). */
function pathTo(level: number, leaf: Node): Node {
  return level === 0 ? leaf : [pathTo(level - BITS, leaf)];
}

function collect(node: Node, level: number, out: unknown[]): void {
  if (level === 0) {
    for (let i = 0; i < node.length; i++) out.push(node[i]);
    return;
  }
  for (let i = 0; i < node.length; i++) collect(node[i] as Node, level - BITS, out);
}
