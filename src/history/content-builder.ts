/**
 * Deltas appended to one message's content, held so that the garbage collector has little to do.
 *
 * Why: `content + delta` per delta makes the content a chain of one V8 cons cell per delta, and the
 * whole chain is live (it is the content). Every young-generation collection copies the cells made
 * since the last one and promotes them, so a long message cost more in the collector than in all the
 * stages together (profiles in docs/performance.md). Here the last `BLOCK` deltas are also kept in a
 * block; when it is full they are joined into one flat string appended to the content sealed so
 * far, and the cons cells made meanwhile become garbage. What stays live is one cons cell and one
 * flat string per `BLOCK` deltas; every character is copied once more, at the join.
 *
 * Each `append` returns the whole content so far, the same characters as `content + delta`.
 */
export class ContentBuilder {
  // The deltas since the last seal (`filled` of them), reused: it grows to `BLOCK` as deltas come
  // (a lane armed after every non-delta event often takes only a few; a 64-slot array each cost
  // more than the lane itself).
  private readonly block: string[] = [];
  private filled = 0;
  // The content up to the last seal.
  private sealed: string;
  // The whole content: `sealed` followed by the block's deltas.
  private current: string;

  constructor(content: string) {
    this.sealed = content;
    this.current = content;
  }

  /** UTF-16 code units of the content so far (the caller bounds it, D-LIMIT: past the engine's limit a join throws). */
  get length(): number {
    return this.current.length;
  }

  append(delta: string): string {
    const block = this.block;
    block[this.filled++] = delta;
    let content: string;
    if (this.filled === BLOCK) {
      content = this.sealed + block.join("");
      this.sealed = content;
      this.filled = 0;
    } else {
      content = this.current + delta;
    }
    this.current = content;
    return content;
  }
}

/** Deltas per sealed block: at 20 characters a delta, about 1 KiB per flat string. */
const BLOCK = 64;

// What `flatten` read last: stored, so that no compiler drops the read as unused.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- written only, on purpose
let lastRead = 0;

/**
 * Has the engine flatten a finished content or arguments string (`read()`) in place: reading a character of a
 * V8 cons string (one cell per delta, `content + delta`) replaces the chain by one flat string, and
 * the cells and the delta strings they held become garbage. Why at the item's END: its text is
 * final then, and the history keeps it for the rest of the conversation. A 20-delta message held
 * ≈ 2 KB as a chain whose deltas nothing else kept, ≈ 0.4 KB flattened; the collector then marks one
 * string where it marked forty objects per message, on every major collection (issue 13). The value
 * is unchanged; on an engine without cons strings this is one character read. Read loosely: a
 * seeded item (`initialMessages`) may lack the text or hold a getter that throws; then there is
 * nothing to flatten.
 */
export function flatten(read: () => unknown): void {
  try {
    const text = read();
    if (typeof text === "string" && text.length > 0 && text.length <= FLATTEN_MAX) lastRead = text.charCodeAt(0);
  } catch {
    // A seed's getter threw: the text stays as it is.
  }
}

/**
 * The longest text `flatten` flattens (UTF-16 code units). A longer flat string goes to V8's
 * large-object space (over 128 KiB), whose fresh pages made flattening a 2 MB message cost 6–9 ms
 * (≈ 300 MB/s, against ≈ 7 GB/s below the limit): a fifth of a 100,000-delta run (T2). What a long
 * text saves by being flat is small beside that: a lane-built one is already one cell per 64 deltas
 * (ContentBuilder).
 */
const FLATTEN_MAX = 64 * 1024;
