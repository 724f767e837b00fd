import { Observable, type Observer, type Subscribable, type Subscription } from "rxjs";

/**
 * Subscribes `observer` to `source` as a child of `parent`, linked *before* the source starts: a
 * synchronous source emits everything inside `subscribe()`, before its subscription is handed back,
 * so a consumer unsubscribing during an emission could not stop it. Here unsubscribing `parent`
 * closes the subscriber at once, the source sees `closed` and stops, and its teardown runs once.
 */
export function subscribeWithin<T>(
  parent: Subscription,
  source: Subscribable<T>,
  observer: Partial<Observer<T>>,
): Subscription {
  return new Observable<T>((subscriber) => {
    parent.add(subscriber);
    return source.subscribe(subscriber);
  }).subscribe(observer);
}
