/**
 * D-IDENTITY: how producer identities compare, and what VALUE_WITHHELD says when they differ.
 */
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import { HttpAgent } from "@ag-ui/client";
import type { Message, RunAgentInput } from "@ag-ui/core";
import { reasoningPipeline, toRunInputMessages, type ReasoningHistory, type ReasoningWarning } from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { identityKey, sameProducer, shownIdentity } from "../../src/history/producer-identity";
import { ev } from "../../src/testing/builders";
import { runInput } from "../support/http-run";
import { useAgentServers } from "../support/sse-server";
import { resumable } from "../../src/resilience";

const serve = useAgentServers();

describe("D-IDENTITY identities compare by their WHATWG URL serialization without the fragment", () => {
  it.each([
    ["HTTP://127.0.0.1:7101/agent", "http://127.0.0.1:7101/agent"],
    ["http://127.0.0.1:80/agent", "http://127.0.0.1/agent"],
    ["https://Agent.Example.COM:443", "https://agent.example.com/"],
    ["http://x.example/agent#run-2", "http://x.example/agent"],
    ["http://x.example/caf\u00e9 menu", "http://x.example/caf%C3%A9%20menu"],
    ["http://x.example/a/./b/../c", "http://x.example/a/c"],
  ])("D-IDENTITY %s and %s are one producer", (a, b) => {
    expect(identityKey(a)).toBe(identityKey(b));
    expect(sameProducer(a, b)).toBe(true);
  });

  it.each([
    ["http://localhost:7101/agent", "http://127.0.0.1:7101/agent"],
    ["http://127.0.0.1:7101/agent", "http://127.0.0.1:7102/agent"],
    ["http://x.example/agent?v=1", "http://x.example/agent?v=2"],
    ["http://x.example/agent", "https://x.example/agent"],
    ["agent-1", "Agent-1"],
    ["agent-1", "agent-1 "],
    ["agent-1", "url:agent-1"],
  ])("D-IDENTITY %s and %s are different producers", (a, b) => {
    expect(sameProducer(a, b)).toBe(false);
  });

  it("D-IDENTITY no recorded issuer is nobody's", () => {
    expect(sameProducer(undefined, "agent-1")).toBe(false);
  });

  it("D-IDENTITY an identity is shown without userinfo, query and fragment", () => {
    expect(shownIdentity("https://user:pw@agent.example:8443/run?token=s3cret#frag")).toBe(
      "https://agent.example:8443/run",
    );
    expect(shownIdentity("agent-1")).toBe('"agent-1"');
  });
});

const held: ReasoningHistory = {
  messages: [
    { id: "r1", role: "reasoning", content: "x", encryptedValue: "v-r1" },
    { id: "r2", role: "reasoning", content: "y", encryptedValue: "v-r2" },
    {
      id: "a1",
      role: "assistant",
      toolCalls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" }, encryptedValue: "v-c1" }],
    },
  ],
  durations: [],
  incomplete: [],
  issuers: [
    { subtype: "message", entityId: "r1", issuer: "http://user:pw@localhost:7101/agent?token=s3cret#frag" },
    { subtype: "message", entityId: "r2", issuer: undefined },
    { subtype: "tool-call", entityId: "c1", issuer: "http://user:pw@localhost:7101/agent?token=s3cret#frag" },
  ],
};

describe("D-IDENTITY the run input", () => {
  it("D-IDENTITY finding 5: values recorded under another spelling of the producer's URL go back to it", () => {
    const warnings: ReasoningWarning[] = [];
    const sent = toRunInputMessages(held, {
      producer: "HTTP://user:pw@LOCALHOST:7101/agent?token=s3cret",
      onWarning: (w) => warnings.push(w),
    });
    expect(sent.map((m) => (m as { encryptedValue?: string }).encryptedValue)).toEqual(["v-r1", undefined, undefined]);
    expect((sent[2] as { toolCalls: Array<{ encryptedValue?: string }> }).toolCalls[0]!.encryptedValue).toBe("v-c1");
    expect(warnings.map((w) => w.ids)).toEqual([["r2"]]);
  });

  it("D-IDENTITY finding 5: VALUE_WITHHELD names both identities (no userinfo, query, fragment), how many values, on which ids", () => {
    const warnings: ReasoningWarning[] = [];
    toRunInputMessages(held, { producer: "http://127.0.0.1:7101/agent?key=k#f", onWarning: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(1);
    const [w] = warnings;
    expect(w).toMatchObject({ code: "VALUE_WITHHELD", lossy: true, ids: ["r1", "r2", "c1"] });
    expect(w!.message).toBe(
      "3 encrypted values left out of the run input for producer http://127.0.0.1:7101/agent, which did not issue them (R-REASON-26): " +
        '2 values issued by http://localhost:7101/agent (on message "r1", tool call "c1"); 1 value with no recorded issuer (on message "r2"); ' +
        "a producer that changed its identity loses its values: give it a stable one (D-IDENTITY)",
    );
    for (const secret of ["user", "pw", "s3cret", "key=k", "frag", "v-r1", "v-c1"])
      expect(JSON.stringify(w)).not.toContain(secret);
  });
});

describe("D-IDENTITY the middleware", () => {
  it("D-IDENTITY a service restarted under another spelling of its URL gets its values back over a real HttpAgent", async () => {
    const server = await serve([{ events: [ev.runStarted(), ev.runFinished()] }]);
    const history: ReasoningHistory = { ...held, issuers: held.issuers.map((r) => ({ ...r, issuer: server.url })) };
    const respelled = server.url.replace("http://127.0.0.1", "HTTP://127.0.0.1") + "#restarted";
    const warnings: ReasoningWarning[] = [];
    const middleware = reasoningMiddleware({
      producer: respelled,
      initialHistory: history,
      onWarning: (w) => warnings.push(w),
    });
    const agent = new HttpAgent({ url: respelled }).use(middleware);
    agent.setMessages(history.messages.map((m) => ({ ...m, encryptedValue: undefined }) as Message));
    await agent.runAgent();
    const raw = (await server.request(0)).text;
    for (const value of ["v-r1", "v-r2", "v-c1"]) expect(raw).toContain(value);
    expect(warnings).toEqual([]);
  });

  it("D-IDENTITY D-WARN VALUE_WITHHELD for another host reaches onWarning and warnings$, naming both identities", async () => {
    const history: ReasoningHistory = {
      ...held,
      issuers: held.issuers.map((r) => ({ ...r, issuer: "http://127.0.0.1:7101/agent" })),
    };
    const custom: ReasoningWarning[] = [];
    const heard: ReasoningWarning[] = [];
    const middleware = reasoningMiddleware({
      producer: "http://localhost:7101/agent",
      initialHistory: history,
      onWarning: (w) => custom.push(w),
    });
    middleware.warnings$.subscribe((w) => heard.push(w));
    let received: RunAgentInput | undefined;
    const next = {
      run: (i: RunAgentInput) => {
        received = i;
        return from([ev.runStarted(), ev.runFinished()]);
      },
    };
    await lastValueFrom(
      (middleware(runInput({ messages: [...history.messages] }), next) as Observable<unknown>).pipe(toArray()),
    );
    expect(JSON.stringify(received!.messages)).not.toContain("v-");
    expect(custom).toEqual(heard);
    expect(heard.map((w) => w.code)).toEqual(["VALUE_WITHHELD"]);
    expect(heard[0]!.message).toContain("for producer http://localhost:7101/agent");
    expect(heard[0]!.message).toContain("3 values issued by http://127.0.0.1:7101/agent");
  });
});

describe("D-IDENTITY resume", () => {
  const stream = [ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", "a")];

  async function exported(producer: string) {
    const pipeline = reasoningPipeline(from(stream), { producer, onWarning: () => {} });
    await lastValueFrom(pipeline.events$.pipe(toArray())).catch(() => undefined);
    return pipeline.exportState();
  }

  it("D-IDENTITY a snapshot resumes under another spelling of its producer's URL", async () => {
    const snapshot = await exported("http://agent.example/run");
    expect(() =>
      reasoningPipeline(from([]), { producer: "HTTP://AGENT.EXAMPLE:80/run#2", resumeFrom: resumable(snapshot) }),
    ).not.toThrow();
  });

  it("D-IDENTITY a snapshot of another producer is refused, naming both identities", async () => {
    const snapshot = await exported("http://agent.example/run?key=k");
    expect(() =>
      reasoningPipeline(from([]), { producer: "http://other.example/run", resumeFrom: resumable(snapshot) }),
    ).toThrow("http://agent.example/run in the snapshot, http://other.example/run here");
  });
});
