/**
 * Encrypted values are a capability for the producer that issued them (R-REASON-26), so reports
 * show their byte length instead, unless the user asks for them (`--show-values`).
 */
export function redactedValue(value: string): string {
  return `[redacted: ${Buffer.byteLength(value, "utf8")} bytes]`;
}

/**
 * A copy of `node` with every `encryptedValue` string replaced by `redactedValue` — on events,
 * messages and tool calls alike. Objects without one are returned as they are.
 */
export function redactValues<T>(node: T): T {
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    node.forEach((item, i) => {
      const r = redactValues(item);
      if (r !== item) (copy ??= [...node])[i] = r;
    });
    return (copy ?? node) as T;
  }
  if (typeof node !== "object" || node === null) return node;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(node)) {
    const r = key === "encryptedValue" && typeof value === "string" ? redactedValue(value) : redactValues(value);
    if (r !== value) (copy ??= { ...(node as Record<string, unknown>) })[key] = r;
  }
  return (copy ?? node) as T;
}
