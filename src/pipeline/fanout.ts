import type { Subscriber, Unsubscribable } from "rxjs";

/**
 * The facade's multicast: what an RxJS `Subject` does for `events$`, `history$` and `warnings$`,
 * without its per-value cost. Why: `Subject.next` (rxjs 7's CommonJS build) allocates a closure
 * for `errorContext` and an iterator over its observers on every value, and the facade calls it
 * twice per event (the event and the new history).
 *
 * Same delivery as a Subject: a value goes to the subscribers present when `next` starts (a
 * subscriber added meanwhile waits for the next value; one that left is closed and ignores it);
 * after `error`/`complete` every subscriber, present or late, gets that end and nothing else.
 */
export class Fanout<T> {
  // Current subscribers, copied on every change so that `next` can walk a snapshot without copying.
  private subscribers: readonly Subscriber<T>[] = [];
  // How it ended, once it has.
  private end: { readonly error: unknown } | "complete" | undefined;

  get ended(): boolean {
    return this.end !== undefined;
  }

  /** Whether anyone is subscribed (D-WARN-SINK: the default warning sink gives way to a subscriber). */
  get observed(): boolean {
    return this.subscribers.length > 0;
  }

  subscribe(subscriber: Subscriber<T>): Unsubscribable {
    if (this.end !== undefined) {
      deliverEnd(subscriber, this.end);
      return { unsubscribe: () => {} };
    }
    this.subscribers = [...this.subscribers, subscriber];
    return { unsubscribe: () => this.remove(subscriber) };
  }

  next(value: T): void {
    if (this.end !== undefined) return;
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(value);
  }

  error(error: unknown): void {
    this.finish({ error });
  }

  complete(): void {
    this.finish("complete");
  }

  private finish(end: { readonly error: unknown } | "complete"): void {
    if (this.end !== undefined) return;
    this.end = end;
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (const subscriber of subscribers) deliverEnd(subscriber, end);
  }

  private remove(subscriber: Subscriber<T>): void {
    const at = this.subscribers.indexOf(subscriber);
    if (at >= 0) this.subscribers = this.subscribers.filter((_, i) => i !== at);
  }
}

function deliverEnd<T>(subscriber: Subscriber<T>, end: { readonly error: unknown } | "complete"): void {
  if (end === "complete") subscriber.complete();
  else subscriber.error(end.error);
}
