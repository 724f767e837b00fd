/**
 * An immutable list with structural sharing: a 32-way trie (Clojure's persistent vector without the
 * tail buffer). `set` and `push` copy one root-to-leaf path of at most ⌈log32 n⌉ nodes of 32 slots,
 * so an edit costs the same for a 10-message and a 10,000-message conversation (two levels up to
 * 1,024 items, three up to 32,768). `toArray`, `insert` and `from` are O(n); they serve snapshots,
 * out-of-order tool results and publication, not the per-delta path.
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** A leaf holds items; a branch holds child nodes. Nodes are never mutated once shared. */
type Node = readonly unknown[];

export class PersistentList<T> {
  private constructor(
    /** Number of items. */
    readonly size: number,
    /** Bit shift of the root's level: 0 when the root is a leaf. */
    private readonly shift: number,
    private readonly root: Node,
  ) {}

  private static readonly EMPTY = new PersistentList<never>(0, 0, []);

  static empty<T>(): PersistentList<T> {
    return PersistentList.EMPTY;
  }

  /** Builds a list from an array, bottom-up (O(n)). The array is not retained. */
  static from<T>(items: readonly T[]): PersistentList<T> {
    if (items.length === 0) return PersistentList.EMPTY;
    let nodes: unknown[][] = chunk(items);
    let shift = 0;
    while (nodes.length > 1) {
      nodes = chunk(nodes);
      shift += BITS;
    }
    return new PersistentList<T>(items.length, shift, nodes[0]!);
  }

  get(index: number): T | undefined {
    if (index < 0 || index >= this.size) return undefined;
    let node: Node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Node;
    return node[index & MASK] as T;
  }

  /** A list with `item` at `index` (0 ≤ index < size). */
  set(index: number, item: T): PersistentList<T> {
    if (index < 0 || index >= this.size) throw new RangeError(`index ${index} outside 0..${this.size - 1}`);
    return new PersistentList<T>(this.size, this.shift, setIn(this.root, this.shift, index, item));
  }

  /** A list with `item` appended. */
  push(item: T): PersistentList<T> {
    const index = this.size;
    if (index === WIDTH << this.shift) {
      // The trie is full: grow one level, the old root becomes the first child.
      const root = [this.root, pathTo(this.shift, item)];
      return new PersistentList<T>(index + 1, this.shift + BITS, root);
    }
    return new PersistentList<T>(index + 1, this.shift, pushIn(this.root, this.shift, index, item));
  }

  /** A list with `item` inserted before position `index` (O(n)). */
  insert(index: number, item: T): PersistentList<T> {
    if (index >= this.size) return this.push(item);
    const items = this.toArray();
    items.splice(index, 0, item);
    return PersistentList.from(items);
  }

  /** A fresh array of the items, in order (O(n)). */
  toArray(): T[] {
    const out: T[] = [];
    collect(this.root, this.shift, out);
    return out;
  }
}

function chunk(items: readonly unknown[]): unknown[][] {
  const nodes: unknown[][] = [];
  for (let i = 0; i < items.length; i += WIDTH) nodes.push(items.slice(i, i + WIDTH));
  return nodes;
}

function setIn<T>(node: Node, level: number, index: number, item: T): Node {
  const copy = node.slice();
  if (level === 0) copy[index & MASK] = item;
  else {
    const slot = (index >>> level) & MASK;
    copy[slot] = setIn(node[slot] as Node, level - BITS, index, item);
  }
  return copy;
}

function pushIn<T>(node: Node, level: number, index: number, item: T): Node {
  const copy = node.slice();
  if (level === 0) copy.push(item);
  else {
    const slot = (index >>> level) & MASK;
    const child = node[slot] as Node | undefined;
    copy[slot] = child === undefined ? pathTo(level - BITS, item) : pushIn(child, level - BITS, index, item);
  }
  return copy;
}

/** A fresh chain of nodes from `level` down to a leaf holding `item`. */
function pathTo<T>(level: number, item: T): Node {
  return level === 0 ? [item] : [pathTo(level - BITS, item)];
}

function collect<T>(node: Node, level: number, out: T[]): void {
  if (level === 0) {
    for (let i = 0; i < node.length; i++) out.push(node[i] as T);
    return;
  }
  for (let i = 0; i < node.length; i++) collect(node[i] as Node, level - BITS, out);
}
