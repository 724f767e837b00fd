/** Helpers of the `agui-reasoning check` tests: the command in-process, and recordings on disk. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCheck, type CliIo } from "../../src/cli/check";

/** Runs `runCheck` in-process with captured streams. */
export async function check(args: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t), isTTY: false },
    stdin: (async function* () {
      if (stdin) yield Buffer.from(stdin);
    })(),
  };
  const code = await runCheck(args, io);
  return { code, stdout, stderr };
}

export const jsonl = (events: readonly unknown[]): string => `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;

/** A temporary directory for the suite: `file(name, text)` writes into it; removed after all tests. */
export function useTempFiles(prefix: string): (name: string, text: string) => string {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
}
