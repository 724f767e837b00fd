import { PersistentList } from "./persistent-list";

/**
 * Records a history publishes beside its messages — the issuer records (D-ISSUER) and the reasoning
 * durations (D-DURATION) — in one version of the conversation: a persistent list, so that adding or
 * changing a record costs O(1) amortized (never a copy of the whole list: issue 13 measured the array
 * copy per value at 58 % of a 12,000-run conversation), plus the plain array a published history
 * shows, built once, on first read, and then shared by every version that holds these same records
 * (each delta's version does, until the next record changes).
 */
export class PublishedList<T> {
  // The plain array, once built (or given).
  private array: readonly T[] | undefined;

  private constructor(
    readonly list: PersistentList<T>,
    array: readonly T[] | undefined,
  ) {
    this.array = array;
  }

  /** Records already held as a plain array (a seed, a snapshot's rebuild): that array is what is published. */
  static of<T>(array: readonly T[]): PublishedList<T> {
    return new PublishedList<T>(PersistentList.from(array), array);
  }

  get size(): number {
    return this.list.size;
  }

  at(position: number): T | undefined {
    return this.list.get(position);
  }

  /** These records plus `record` at the end. */
  push(record: T): PublishedList<T> {
    return new PublishedList<T>(this.list.push(record), undefined);
  }

  /** These records with `record` at `position`. */
  set(position: number, record: T): PublishedList<T> {
    return new PublishedList<T>(this.list.set(position, record), undefined);
  }

  /** Whether the plain array exists already (reading it costs nothing more). */
  get built(): boolean {
    return this.array !== undefined;
  }

  /** The plain array (built now if it was not: O(records), once per set of records). */
  toArray(): readonly T[] {
    return (this.array ??= this.list.toArray());
  }
}
