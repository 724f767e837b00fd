import type { Subscriber, Unsubscribable } from "rxjs";

/**
 * The facade's multicast: a `Subject`'s delivery without its per-value cost (rxjs 7's CommonJS
 * `Subject.next` allocates a closure and an iterator per value, twice per event here). A value goes
 * to the subscribers present when `next` starts; after `error`/`complete` every subscriber, present
 * or late, gets that end and nothing else.
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
