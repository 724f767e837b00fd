// @ts-check
// ESLint for agui-reasoning: typescript-eslint's strict type-checked rules and eslint-plugin-rxjs-x's strict set
// over src/, test/, marbles/, bench/ and examples/. A rule switched off or narrowed here says why; a rule broken on
// one line says why on that line (`// eslint-disable-next-line rule -- reason`).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import rxjsX from "eslint-plugin-rxjs-x";
import globals from "globals";
import tseslint from "typescript-eslint";

const TESTS = ["test/**/*.ts", "marbles/**/*.ts"];

export default defineConfig(
  {
    ignores: [
      "dist/",
      "coverage/",
      ".tmp/",
      "bench/profiles/",
      "node_modules/",
      ".stryker-tmp/",
      "reports/",
      "examples/*/dist/",
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, tseslint.configs.strictTypeChecked, rxjsX.configs.strict],
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // tsconfig.json covers every linted folder; tsdown.config.ts is the one file outside it.
        projectService: { allowDefaultProject: ["tsdown.config.ts"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Every switch over a union (route kinds, statuses) names each member or has a default, and a switch over an
      // open set (`event.type` is a string: producers send types this package does not know) has a default that
      // says what the others do.
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: true },
      ],
      // A subscription nobody holds cannot be ended. Not in rxjs-x's strict set; switched on (narrowed for tests below).
      "rxjs-x/no-ignored-subscription": "error",

      // Off: with `noUncheckedIndexedAccess`, `xs[i]!` is how the code states an index it has just bounds-checked
      // or a table slot that exists by construction (~290 sites, many on the per-event path). Rewriting them as
      // branches would add dead code, not safety.
      "@typescript-eslint/no-non-null-assertion": "off",
      // Off: the stages are the protocol's boundary and take hostile input. Their guards (`typeof event !== "object"`,
      // `call?.id`) test values whose static type says they cannot be wrong, because at run time they can; this rule
      // would ask to delete exactly those guards.
      "@typescript-eslint/no-unnecessary-condition": "off",
      // Off: stages read `event.type` from unvalidated input (a string) and compare it with @ag-ui/core's string enum
      // `EventType`, whose values are the wire names. Comparing a string to the enum is the point, not an accident.
      "@typescript-eslint/no-unsafe-enum-comparison": "off",
      // Off: `async` on a function that implements a Promise-returning interface (HistoryStore, test doubles) turns a
      // synchronous throw into a rejection; that is why those functions are async without awaiting.
      "@typescript-eslint/require-await": "off",
      // Off: deleting a key from a fresh copy is how a field is removed (JSON Patch `remove`, stripped fields);
      // the copies are plain records, never class instances.
      "@typescript-eslint/no-dynamic-delete": "off",
      // Off: `history$` and `warnings$` never error by contract (they complete, also when `events$` fails), and each
      // `events$` subscription in src/ handles its error. The rule cannot tell the side channels apart, so it would
      // ask for a dead error handler on each of them.
      "rxjs-x/no-ignored-error": "off",
      // Off: stage signatures spell out what they take and give (`Stage<ExpandState, AguiEvent, AguiEvent>`) even
      // where that equals the type parameters' defaults, so the stage contract reads without opening core/types.ts.
      "@typescript-eslint/no-unnecessary-type-arguments": "off",
      // Off: a stage's state is typed by its public interface (e.g. `HistoryState`) and is, by construction, the
      // stage's own class instance (`Conversation`); the downcast is the stage's owner reading its own state.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",

      // Narrowed: numbers and booleans in messages are fine; objects, undefined and unknowns are not.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      // Narrowed: `() => subject.next(x)` and `return this.warn(...)` from a void function are clear as they are.
      "@typescript-eslint/no-confusing-void-expression": [
        "error",
        { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true },
      ],
      // Narrowed: a leading underscore marks a parameter kept for the signature or a key taken out by destructuring.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: TESTS,
    rules: {
      // Off in tests: their material is deliberately hostile input (`as never`, JSON round trips, mutated snapshots
      // typed `any`) and jest's asymmetric matchers (`expect.objectContaining(...)`, typed `any` by @types/jest).
      // Typing each of those would hide what the test feeds in.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-explicit-any": "off",
      // Off in tests: a test shows whatever a failed run produced, `[object Object]` included.
      "@typescript-eslint/no-base-to-string": "off",
      // Off in tests: a test subscribes to a finite source it made (an array, a recording, a local server run that
      // ends), and the subscription ends with it; the test asserts on what was delivered after the fact.
      "rxjs-x/no-ignored-subscription": "off",
      // Off in tests: `lastValueFrom(x.pipe(toArray()))` always has a value; a default would never be used.
      "rxjs-x/no-ignored-default-value": "off",
    },
  },
  {
    files: ["bench/**/*.ts"],
    rules: {
      // Off in the bench: each cell subscribes to a finite recorded stream and measures it to completion.
      "rxjs-x/no-ignored-subscription": "off",
    },
  },
  {
    files: ["**/*.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
);
