#!/usr/bin/env node
/**
 * The `agui-reasoning` command (package.json `bin`). Everything happens in `runCheck`; this file
 * only binds it to the process.
 */
import { runCheck } from "./check";

void runCheck(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
  (code) => {
    process.exitCode = code;
  },
);
