import { PersistentList } from "./persistent-list";
import type { ValueIssuer } from "./types";

/**
 * The issuer records (D-ISSUER) of one version of the conversation: a persistent list, so that
 * recording the issuer of a new value costs O(1) amortized (never a copy of the whole list: issue
 * 13 measured the array copy per value at 58 % of a 12,000-run conversation), plus the
 * plain array a published history shows, built once, on first read, and then shared by every
 * version that holds these same records (each delta's version does, until the next value).
 */
export class IssuerRecords {
  // The plain array, once built (or given).
  private array: readonly ValueIssuer[] | undefined;

  private constructor(
    readonly list: PersistentList<ValueIssuer>,
    array: readonly ValueIssuer[] | undefined,
  ) {
    this.array = array;
  }

  /** Records already held as a plain array (a seed, a snapshot's rebuild): that array is what is published. */
  static of(array: readonly ValueIssuer[]): IssuerRecords {
    return new IssuerRecords(PersistentList.from(array), array);
  }

  get size(): number {
    return this.list.size;
  }

  at(position: number): ValueIssuer | undefined {
    return this.list.get(position);
  }

  /** These records plus `record` at the end. */
  push(record: ValueIssuer): IssuerRecords {
    return new IssuerRecords(this.list.push(record), undefined);
  }

  /** These records with `record` at `position`. */
  set(position: number, record: ValueIssuer): IssuerRecords {
    return new IssuerRecords(this.list.set(position, record), undefined);
  }

  /** Whether the plain array exists already (reading it costs nothing more). */
  get built(): boolean {
    return this.array !== undefined;
  }

  /** The plain array (built now if it was not: O(records), once per set of records). */
  toArray(): readonly ValueIssuer[] {
    return (this.array ??= this.list.toArray());
  }
}
