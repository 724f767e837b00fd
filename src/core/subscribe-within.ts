import { Observable, type Observer, type Subscribable, type Subscription } from "rxjs";

/**
 * Subscribes `observer` to `source` as a child of `parent`, linked *before* the source starts.
 *
 * `source.subscribe(observer)` hands back its subscription only when it returns: a synchronous
 * source (`from(array)`, a generator) emits everything inside that call, so a consumer that
 * unsubscribes during an emission could not stop it — the source would run on (forever, if it is
 * infinite). Here the subscriber the source emits to is added to `parent` first: unsubscribing
 * `parent` closes it at once, the source sees `closed` and stops, and its teardown runs once.
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
