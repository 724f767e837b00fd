import { isPlainObject, setOwn } from "../core/json";

/**
 * A small immutable RFC 6902 applier for activity content (ACTIVITY_DELTA): it copies only what is
 * on each operation's path, and is atomic — the first operation that does not apply fails the whole
 * patch and the caller keeps its value (R-SNAP-3). Reasons name positions and kinds, never values.
 */

export type PatchOutcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

// Marks "does not apply" inside the recursive edit.
const FAIL: unique symbol = Symbol("does not apply");
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names FAIL as one of the values
type Edited = unknown | typeof FAIL;

/** `position`: where the operation at `i` stood in the event (enforcement may have removed some before it, D-EVENT-INDEX). */
export function applyJsonPatch(
  document: unknown,
  patch: readonly unknown[],
  position: (i: number) => number = (i) => i,
): PatchOutcome {
  let value = document;
  for (let i = 0; i < patch.length; i++) {
    const op = patch[i];
    const next = isPlainObject(op) ? applyOperation(value, op) : FAIL;
    if (next === FAIL) return { ok: false, reason: `operation ${position(i)}${describe(op)} does not apply` };
    value = next;
  }
  return { ok: true, value };
}

function applyOperation(document: unknown, op: Record<string, unknown>): Edited {
  const path = parsePointer(op.path);
  if (path === undefined) return FAIL;
  switch (op.op) {
    case "add":
      return Object.hasOwn(op, "value") ? edit(document, path, "add", op.value) : FAIL;
    case "remove":
      return path.length === 0 ? FAIL : edit(document, path, "remove", undefined);
    case "replace":
      return Object.hasOwn(op, "value") ? edit(document, path, "replace", op.value) : FAIL;
    case "move": {
      const from = parsePointer(op.from);
      if (from === undefined || from.length === 0 || isProperPrefix(from, path)) return FAIL;
      const moved = read(document, from);
      if (moved === FAIL) return FAIL;
      const removed = edit(document, from, "remove", undefined);
      return removed === FAIL ? FAIL : edit(removed, path, "add", moved);
    }
    case "copy": {
      const from = parsePointer(op.from);
      const copied = from === undefined ? FAIL : read(document, from);
      return copied === FAIL ? FAIL : edit(document, path, "add", copied);
    }
    case "test": {
      const found = read(document, path);
      return found !== FAIL && Object.hasOwn(op, "value") && jsonEqual(found, op.value) ? document : FAIL;
    }
    default:
      return FAIL;
  }
}

/**
 * A copy of `document` with the operation applied at `path`, sharing everything off the path.
 * Iterative: a pointer may be as deep as the document (hostile input nests thousands of levels), so
 * the walk keeps the containers on the path in an array instead of on the call stack.
 */
function edit(document: unknown, path: readonly string[], op: "add" | "remove" | "replace", value: unknown): Edited {
  if (path.length === 0) return value; // add/replace of the whole document
  const last = path.length - 1;
  // The containers from the document down to the target's parent (containers[k] holds path[k]).
  const containers: unknown[] = [];
  let node = document;
  for (let at = 0; at < last; at++) {
    containers.push(node);
    node = member(node, path[at]!);
    if (node === FAIL) return FAIL;
  }
  let edited = applyAt(node, path[last]!, op, value);
  // Each container up the path gets the edited child in place of the one read on the way down.
  for (let at = last - 1; at >= 0 && edited !== FAIL; at--)
    edited = applyAt(containers[at], path[at]!, "replace", edited);
  return edited;
}

/** A copy of the container `node` with the operation applied to its member `token`. */
function applyAt(node: unknown, token: string, op: "add" | "remove" | "replace", value: unknown): Edited {
  if (Array.isArray(node)) {
    const i =
      token === "-" && op === "add" ? node.length : arrayIndex(token, op === "add" ? node.length : node.length - 1);
    if (i < 0) return FAIL;
    const copy = node.slice();
    if (op === "add") copy.splice(i, 0, value);
    else if (op === "remove") copy.splice(i, 1);
    else copy[i] = value;
    return copy;
  }
  if (isPlainObject(node)) {
    if (!Object.hasOwn(node, token) && op !== "add") return FAIL;
    const copy = { ...node };
    if (op === "remove") delete copy[token];
    else setOwn(copy, token, value);
    return copy;
  }
  return FAIL;
}

/** The member `token` of `node`, or FAIL when it has none. */
function member(node: unknown, token: string): Edited {
  if (Array.isArray(node)) {
    const i = arrayIndex(token, node.length - 1);
    return i < 0 ? FAIL : node[i];
  }
  return isPlainObject(node) && Object.hasOwn(node, token) ? node[token] : FAIL;
}

/** The value at `path`, or FAIL. */
function read(node: unknown, path: readonly string[]): Edited {
  let current = node;
  for (const token of path) {
    current = member(current, token);
    if (current === FAIL) return FAIL;
  }
  return current;
}

/** RFC 6901: "" is the document, else "/"-separated tokens with ~1 → "/" and ~0 → "~". */
function parsePointer(pointer: unknown): string[] | undefined {
  if (typeof pointer !== "string") return undefined;
  if (pointer === "") return [];
  if (pointer[0] !== "/") return undefined;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** A canonical array index ≤ max, or -1. */
function arrayIndex(token: string, max: number): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return -1;
  const i = Number(token);
  return i <= max ? i : -1;
}

function isProperPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length < path.length && prefix.every((t, i) => t === path[i]);
}

/** Deep JSON equality, iterative for the same reason as `edit`. */
function jsonEqual(a: unknown, b: unknown): boolean {
  // Pairs still to compare, flattened: [a0, b0, a1, b1, …].
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
    } else if (isPlainObject(x) && isPlainObject(y)) {
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return false;
      for (const k of keys) {
        if (!Object.hasOwn(y, k)) return false;
        pending.push(x[k], y[k]);
      }
    } else return false;
  }
  return true;
}

function describe(op: unknown): string {
  if (!isPlainObject(op)) return "";
  const kind = op.op;
  return typeof kind === "string" && /^[a-z]{1,16}$/.test(kind) ? ` (${kind})` : "";
}
