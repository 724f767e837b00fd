import { isPlainObject } from "./read-event";

/**
 * A small immutable RFC 6902 applier for activity content (ACTIVITY_DELTA). It copies only the
 * objects and arrays on each operation's path (the rest is shared) and is atomic: the first
 * operation that does not apply fails the whole patch, and the caller keeps its prior value
 * (R-SNAP-3). State patches (STATE_DELTA) are not the history's concern.
 *
 * Failure reasons name the operation's position and kind only, never a value (D-REDACT).
 */

export type PatchOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

// Marks "does not apply" inside the recursive edit.
const FAIL: unique symbol = Symbol("does not apply");
type Edited = unknown | typeof FAIL;

export function applyJsonPatch(document: unknown, patch: readonly unknown[]): PatchOutcome {
  let value = document;
  for (let i = 0; i < patch.length; i++) {
    const op = patch[i];
    const next = isPlainObject(op) ? applyOperation(value, op) : FAIL;
    if (next === FAIL) return { ok: false, reason: `operation ${i}${describe(op)} does not apply` };
    value = next;
  }
  return { ok: true, value };
}

function applyOperation(document: unknown, op: Record<string, unknown>): Edited {
  const path = parsePointer(op.path);
  if (path === undefined) return FAIL;
  switch (op.op) {
    case "add":
      return Object.hasOwn(op, "value") ? edit(document, path, 0, "add", op.value) : FAIL;
    case "remove":
      return path.length === 0 ? FAIL : edit(document, path, 0, "remove", undefined);
    case "replace":
      return Object.hasOwn(op, "value") ? edit(document, path, 0, "replace", op.value) : FAIL;
    case "move": {
      const from = parsePointer(op.from);
      if (from === undefined || from.length === 0 || isProperPrefix(from, path)) return FAIL;
      const moved = read(document, from);
      if (moved === FAIL) return FAIL;
      const removed = edit(document, from, 0, "remove", undefined);
      return removed === FAIL ? FAIL : edit(removed, path, 0, "add", moved);
    }
    case "copy": {
      const from = parsePointer(op.from);
      const copied = from === undefined ? FAIL : read(document, from);
      return copied === FAIL ? FAIL : edit(document, path, 0, "add", copied);
    }
    case "test": {
      const found = read(document, path);
      return found !== FAIL && Object.hasOwn(op, "value") && jsonEqual(found, op.value) ? document : FAIL;
    }
    default:
      return FAIL;
  }
}

/** A copy of `node` with the operation applied at `path[at…]`, sharing everything off the path. */
function edit(node: unknown, path: readonly string[], at: number, op: "add" | "remove" | "replace", value: unknown): Edited {
  if (at === path.length) return value; // add/replace of the whole document
  const token = path[at]!;
  const last = at === path.length - 1;
  if (Array.isArray(node)) {
    const i = token === "-" && last && op === "add" ? node.length : arrayIndex(token, last && op === "add" ? node.length : node.length - 1);
    if (i < 0) return FAIL;
    const copy = node.slice();
    if (!last) {
      const child = edit(node[i], path, at + 1, op, value);
      if (child === FAIL) return FAIL;
      copy[i] = child;
    } else if (op === "add") copy.splice(i, 0, value);
    else if (op === "remove") copy.splice(i, 1);
    else copy[i] = value;
    return copy;
  }
  if (isPlainObject(node)) {
    const has = Object.hasOwn(node, token);
    if (!has && !(last && op === "add")) return FAIL;
    const copy = { ...node };
    if (!last) {
      const child = edit(node[token], path, at + 1, op, value);
      if (child === FAIL) return FAIL;
      define(copy, token, child);
    } else if (op === "remove") delete copy[token];
    else define(copy, token, value);
    return copy;
  }
  return FAIL;
}

function read(node: unknown, path: readonly string[]): Edited {
  let current = node;
  for (const token of path) {
    if (Array.isArray(current)) {
      const i = arrayIndex(token, current.length - 1);
      if (i < 0) return FAIL;
      current = current[i];
    } else if (isPlainObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return FAIL;
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

/** Sets an own data property (safe for keys like "__proto__"). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function describe(op: unknown): string {
  if (!isPlainObject(op)) return "";
  const kind = op.op;
  return typeof kind === "string" && /^[a-z]{1,16}$/.test(kind) ? ` (${kind})` : "";
}
