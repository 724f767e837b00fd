/**
 * Warning codes of `WARNING_CODES` that `agui-reasoning check` emits itself, not a pipeline stage: what
 * reading found (a recording cut inside an event, a broken connection) and the lint rules. Suites that
 * drive the stages (the catalogue's dead-entry check, the redaction scan) leave them to the CLI's own
 * tests, which emit each one and scan it: test/integration/cli-robustness.test.ts and cli-lint.test.ts.
 */
export const CHECK_WARNING_CODES: ReadonlySet<string> = new Set([
  "RECORDING_CUT",
  "CONNECTION_BROKEN",
  "MESSAGE_ID_REUSED",
  "SNAPSHOT_DROPS_REASONING",
  "REASONING_ROLE",
  "REASONING_WITHOUT_TIMESTAMP",
]);
