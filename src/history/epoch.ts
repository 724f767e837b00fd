/**
 * Transient editing of a conversation between publications (D-PACE, issue 23). A paced history is
 * published once per window, and nothing outside the stage sees the versions made in between, so
 * making each of them immutable (a new conversation, new tables, copied list tails per event) is
 * work nobody reads. An *edit epoch* numbers the objects made since the conversation last handed a
 * version out: while that number is `EDIT.epoch`, an edit of such an object (a `Conversation`, a
 * `Table`, a `PersistentList`) changes it in place instead of copying it. Handing a version out
 * (its history read, its state exported or kept) seals it: the conversation takes a fresh epoch, so
 * nothing made before is ever changed again (conversation.ts, `seal`).
 *
 * `EDIT.epoch` is 0 (edits copy, as in a persistent structure) except while a step, a finish or a
 * delta lane edits a conversation whose stage threads it linearly (`Conversation.editInPlace`); each
 * of them sets it for the edit and puts back what was there. Epoch numbers are never reused.
 */
export const EDIT = { epoch: 0 };

/** Whether an object made in `epoch` is edited in place now: it was made in the edit epoch in force. */
export function inForce(epoch: number): boolean {
  return epoch !== 0 && epoch === EDIT.epoch;
}

let last = 0;

/** A number no object has been made in yet. */
export function freshEpoch(): number {
  return ++last;
}
