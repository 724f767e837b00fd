import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Reading the AG-UI 1.0 conformance corpus, vendored byte for byte under test/fixtures/conformance
 * (the spec authors' own fixtures, MIT; provenance and checksums in its SOURCE.md, the format in
 * its README). Never edit those files: test/conformance/vendored.test.ts checks them.
 */
export const CORPUS_ROOT = resolve(__dirname, "../fixtures/conformance");
export const CORPUS_DIR = join(CORPUS_ROOT, "1.0/streams");

export interface FixtureExpect {
  readonly outcome?: "completed" | "failed";
  readonly errorContains?: string;
  readonly runError?: true | string;
  readonly eventTypes?: readonly string[];
  readonly eventTypesAbsent?: readonly string[];
  readonly eventPaths?: Readonly<Record<string, unknown>>;
  readonly eventAbsentPaths?: readonly string[];
  readonly warnings?: readonly string[];
  readonly noWarnings?: boolean;
  readonly messageCount?: number;
  readonly messages?: readonly unknown[];
  readonly state?: unknown;
  readonly request?: unknown;
  readonly requestAbsentPaths?: readonly string[];
}

export interface Fixture {
  readonly name: string;
  readonly area: string;
  readonly description: string;
  readonly client?: { readonly maxProtocolVersion?: string };
  readonly input?: { readonly messages?: readonly unknown[]; readonly tools?: readonly unknown[] };
  readonly stream: readonly unknown[];
  readonly expect: FixtureExpect;
  readonly expectOverrides?: Readonly<Record<string, FixtureExpect & { intentional: string }>>;
}

/** The fixture names the corpus pins in MANIFEST.txt (comments and blank lines skipped). */
export function manifest(): string[] {
  return readFileSync(join(CORPUS_DIR, "MANIFEST.txt"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.replace(/\.json$/, ""));
}

/** The fixture files actually present. */
export function fixtureFiles(): string[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.replace(/\.json$/, ""))
    .sort();
}

export function loadFixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(CORPUS_DIR, `${name}.json`), "utf8")) as Fixture;
}

/** `"2.delta.0.op"` → the value at that dotted path, and whether it exists. */
export function lookup(root: unknown, dotted: string): { found: boolean; value?: unknown } {
  let node: unknown = root;
  for (const key of dotted.split(".")) {
    if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, key)) {
      return { found: false };
    }
    node = (node as Record<string, unknown>)[key];
  }
  return { found: true, value: node };
}

/**
 * The corpus's subset match, as a projection for `toEqual`: objects keep only the keys `expected`
 * names (so a missing key shows up as missing), arrays keep their full length (the corpus requires
 * the same length), anything else is compared whole.
 */
export function project(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return actual;
    return actual.map((item, i) => (i < expected.length ? project(item, expected[i]) : item));
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return actual;
    const picked: Record<string, unknown> = {};
    for (const key of Object.keys(expected)) {
      if (Object.prototype.hasOwnProperty.call(actual, key)) {
        picked[key] = project((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key]);
      }
    }
    return picked;
  }
  return actual;
}
