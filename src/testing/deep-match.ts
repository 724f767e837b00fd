/**
 * An asymmetric matcher as jest and vitest define one: an object whose `asymmetricMatch` decides
 * whether an actual value matches. The kit's `protocolErrorWith` / `warningWith` are such objects, and
 * `deepMatch` honours any (jest's `expect.any(…)`, vitest's `expect.objectContaining(…)`, …).
 */
export interface AsymmetricMatcher {
  asymmetricMatch(actual: unknown): boolean;
  toString(): string;
  toAsymmetricMatcher(): string;
}

function isAsymmetric(value: unknown): value is AsymmetricMatcher {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === "function"
  );
}

/**
 * Deep equality as jest's and vitest's `toEqual` read it: an `undefined` property counts as absent, an
 * asymmetric matcher in `expected` decides for itself, errors compare by name, message and own fields,
 * maps and sets by their entries in order, other objects key by key whatever their class. Nothing
 * from a test framework or Node: the kit's marble helpers run anywhere.
 */
export function deepMatch(actual: unknown, expected: unknown): boolean {
  if (isAsymmetric(expected)) return expected.asymmetricMatch(actual);
  if (Object.is(actual, expected)) return true;
  if (typeof actual !== "object" || typeof expected !== "object" || actual === null || expected === null) return false;
  if (Array.isArray(actual) !== Array.isArray(expected)) return false;
  if (Array.isArray(actual)) {
    const list = expected as readonly unknown[];
    return actual.length === list.length && actual.every((item, i) => deepMatch(item, list[i]));
  }
  for (const kind of [Error, Date, Map, Set]) if (actual instanceof kind !== expected instanceof kind) return false;
  if (actual instanceof Error) {
    const other = expected as Error;
    if (actual.name !== other.name || actual.message !== other.message) return false;
  }
  if (actual instanceof Date) return actual.getTime() === (expected as Date).getTime();
  if (actual instanceof Map || actual instanceof Set) return deepMatch([...actual], [...(expected as Set<unknown>)]);
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(e)])) if (!deepMatch(a[key], e[key])) return false;
  return true;
}

/** A readable rendering of a frame list for a failure message (matchers as the call that made them). */
export function show(value: unknown): string {
  const matchers: string[] = [];
  const json = JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (isAsymmetric(v)) return `\u0000${matchers.push(v.toString()) - 1}\u0000`;
      if (v instanceof Error) return { ...Object.fromEntries(Object.entries(v)), name: v.name, message: v.message };
      if (v instanceof Map || v instanceof Set) return [...(v as Iterable<unknown>)];
      return v === undefined ? "<undefined>" : v;
    },
    2,
  );
  return json.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i: string) => matchers[Number(i)]!);
}

/**
 * Throws when `actual` does not `deepMatch` `expected`: an error shaped as Node's `AssertionError`
 * (`name`, `code: "ERR_ASSERTION"`, `actual`, `expected`), which jest, vitest and `node:test` report
 * with a diff.
 */
export function assertDeepMatch(actual: unknown, expected: unknown): void {
  if (deepMatch(actual, expected)) return;
  const error = new Error(
    `agui-reasoning/testing: values differ\n\nexpected:\n${show(expected)}\n\nreceived:\n${show(actual)}`,
  );
  throw Object.assign(error, {
    name: "AssertionError",
    code: "ERR_ASSERTION",
    actual,
    expected,
    operator: "deepMatch",
  });
}
