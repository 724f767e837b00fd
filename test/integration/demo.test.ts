/**
 * `npm start` (examples/demo.ts) is part of the suite: it must run offline, succeed, and prove the
 * round trip of every encrypted value; and its agent must notice when a value does not come back.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { ISSUED, restoredValues } from "../../examples/demo-agent";
import type { RecordedRequest } from "../support/sse-server";

const ROOT = resolve(__dirname, "../..");

function request(messages: unknown[]): RecordedRequest {
  return { json: { messages } } as unknown as RecordedRequest;
}

describe("npm start (examples/demo.ts)", () => {
  it("R-REASON-17 the demo runs three turns over HTTP and every encrypted value reaches the server byte-identical", async () => {
    const result = await new Promise<{ code: number | null; stdout: string }>((done, fail) => {
      const child = spawn(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: "1" },
      });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.on("error", fail);
      child.on("close", (code) => done({ code, stdout }));
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("▸ thinking  Family of four");
    expect(result.stdout).toContain("THINKING_UPCAST");
    expect(result.stdout).toContain("→ lookup_fares(");
    expect(result.stdout).toContain("With my earlier reasoning restored");
    for (const v of ISSUED) {
      expect(result.stdout).toContain(
        `✓ ${v.subtype} ${v.entityId}: ${Buffer.byteLength(v.encryptedValue)} bytes, byte-identical`,
      );
      expect(result.stdout).not.toContain(v.encryptedValue);
    }
    expect(result.stdout).not.toContain("\x1b[");
  }, 60_000);

  it("R-REASON-17 the demo agent counts only values that come back unchanged, on the right target", () => {
    const [onMessage, onCall] = ISSUED;
    const exact = [
      { id: onMessage.entityId, role: "reasoning", content: "", encryptedValue: onMessage.encryptedValue },
      { id: "a", role: "assistant", toolCalls: [{ id: onCall.entityId, encryptedValue: onCall.encryptedValue }] },
    ];
    expect(restoredValues(request(exact))).toBe(2);
    const changed = [{ ...exact[0], encryptedValue: `${onMessage.encryptedValue} ` }, exact[1]];
    expect(restoredValues(request(changed))).toBe(1);
    const wrongTarget = [{ id: "a", role: "assistant", encryptedValue: onCall.encryptedValue }];
    expect(restoredValues(request(wrongTarget))).toBe(0);
  });
});
