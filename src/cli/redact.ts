/**
 * Encrypted values are a capability for the producer that issued them (R-REASON-26), so reports
 * show their byte length instead, unless the user asks for them (`--show-values`).
 */
export function redactedValue(value: string): string {
  return `[redacted: ${Buffer.byteLength(value, "utf8")} bytes]`;
}

/** An object or array being walked by `redactValues`, and where its result goes. */
interface Frame {
  readonly node: Record<string, unknown> | unknown[];
  /** Its keys (indices for arrays), and the next one to visit. */
  readonly keys: readonly string[];
  next: number;
  /** The copy made on the first changed child; `undefined` while nothing changed. */
  copy: Record<string, unknown> | unknown[] | undefined;
  /** The frame holding this node, and the key it is held under (`undefined` for the root). */
  readonly parent: Frame | undefined;
  readonly key: string;
}

/**
 * A copy of `node` with every `encryptedValue` string replaced by `redactedValue` — on events,
 * messages and tool calls alike. Objects without one are returned as they are, and only the path
 * down to a replaced value is copied. Iterative: a recorded event may be nested far deeper than the
 * call stack (hostile input), and printing it must not overflow here.
 */
export function redactValues<T>(node: T): T {
  if (!isContainer(node)) return node;
  let frame: Frame | undefined = frameOf(node, undefined, "");
  let done: unknown = node;
  while (frame !== undefined) {
    if (frame.next < frame.keys.length) {
      const key = frame.keys[frame.next++]!;
      const value = (frame.node as Record<string, unknown>)[key];
      if (key === "encryptedValue" && typeof value === "string" && !Array.isArray(frame.node)) set(frame, key, redactedValue(value));
      else if (isContainer(value)) frame = frameOf(value, frame, key);
      continue;
    }
    // Every child visited: hand the result (the copy, or the node itself) to the parent.
    done = frame.copy ?? frame.node;
    const { parent, key }: Frame = frame;
    if (parent !== undefined && done !== frame.node) set(parent, key, done);
    frame = parent;
  }
  return done as T;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

function frameOf(node: Record<string, unknown> | unknown[], parent: Frame | undefined, key: string): Frame {
  return { node, keys: Object.keys(node), next: 0, copy: undefined, parent, key };
}

/** Writes a changed child into the frame's copy, copying the node first (copy on write). */
function set(frame: Frame, key: string, value: unknown): void {
  frame.copy ??= Array.isArray(frame.node) ? [...frame.node] : { ...frame.node };
  (frame.copy as Record<string, unknown>)[key] = value;
}
