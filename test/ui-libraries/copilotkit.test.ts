/**
 * agui-reasoning inside CopilotKit v2, in headless Chromium (examples/copilotkit, docs/ui-libraries.md):
 * `<CopilotKitProvider selfManagedAgents>` and `<CopilotChat>` from `@copilotkit/react-core/v2`,
 * given a 1.0 `HttpAgent` with `reasoningMiddleware` installed (through `bridgeAgent`), against the demo
 * agent. Four turns typed into CopilotKit's own composer: the reasoning turn with a tool call and two
 * encrypted values, the follow-up (whose request must carry both values back), the page reopened (the
 * thread it saved restored, and the next request carrying both values again), and a stream cut
 * mid-reasoning.
 *
 * Not part of `npm test` (the example's dependencies are installed in its folder): `.ci/run` runs it
 * after `npm ci` in examples/copilotkit (`npm run test:ui-libraries`). Screenshot:
 * .tmp/ui-libraries/copilotkit.png.
 */
import { ISSUED } from "../../examples/demo-agent";
import { returnedValues } from "../../src/testing";
import { startExample } from "../../examples/copilotkit/serve";
import { ALL_BACK_IDENTICAL, useChatPage, valuesIn } from "./chat-page";

/** CopilotKit's reasoning message while it streams: its header says "Thinking…" and is expanded. */
const STREAMING_REASONING = `
  for (const header of document.querySelectorAll('[data-message-id] > button[aria-expanded="true"]')) {
    if ((header.textContent ?? "").startsWith("Thinking")) return header.parentElement.querySelector("p")?.textContent ?? "";
  }
  return "";
`;

describe("CopilotKit v2 (CopilotKitProvider selfManagedAgents, CopilotChat) with reasoningMiddleware, in headless Chromium", () => {
  const open = useChatPage(startExample, {
    input: "textarea",
    sendButton: '[data-testid="copilot-send-button"]',
    streamingReasoning: STREAMING_REASONING,
  });

  it('turn 1: the reasoning streams open ("Thinking…"), then collapses ("Thought for …"); the tool call shows its arguments and result', async () => {
    const { page, send, streamingSeen } = open();
    await send("Train fares from Lyon to Marseille on Saturday, for four?");
    await page.getByText("The 10:40 TGV is €76 for all four").waitFor();

    expect((await streamingSeen()).some((text) => text.startsWith("Fares change daily"))).toBe(true);
    const header = page.locator('[data-message-id="reasoning-2"] > button');
    expect(await header.getAttribute("aria-expanded")).toBe("false");
    expect(await header.innerText()).toMatch(/^Thought for /);

    const toolCall = page.locator('[data-tool-call-id="call-fares"]');
    expect(await toolCall.locator(".tool-head").innerText()).toBe("→ lookup_fares");
    expect(JSON.parse(await toolCall.locator(".tool-args").innerText())).toEqual({
      from: "Lyon",
      to: "Marseille",
      date: "Saturday",
      railcard: "family",
    });
    expect(await toolCall.locator(".tool-result").innerText()).toContain("€76");
  }, 30_000);

  it("R-REASON-17 turn 2: the request the agent receives carries both encrypted values back byte-identical (CopilotKit keeps them; no D-KEEPER needed)", async () => {
    const { page, send } = open();
    const request = await send("And if we book a week ahead?");
    await page.getByText("With my earlier reasoning restored").waitFor();

    expect(returnedValues(request, ISSUED)).toEqual(ALL_BACK_IDENTICAL);
    // Saved when the run ended, as a restored thread would continue from it: both values, each recorded
    // as issued by this agent (D-ISSUER).
    expect(valuesIn(await open().savedHistory())).toEqual(
      ISSUED.map((v) => ({ value: v.encryptedValue, issuer: open().example.server.url })),
    );
    // The values travel in the request only: never on the page.
    const html = await page.content();
    for (const v of ISSUED) expect(html).not.toContain(v.encryptedValue.slice(0, 40));
    expect(open().consoleErrors).toEqual([]);
    await open().screenshot("copilotkit");
  }, 30_000);

  it("R-REASON-17 turn 3, after a reload: the saved thread shows again, and the next request carries both values back byte-identical", async () => {
    const { page, send, reload } = open();
    await reload();
    // The reopened page: the page gives the agent the saved messages (`setMessages(messagesOf(history))`) and the middleware the saved history (`initialHistory`).
    await page.getByText("With my earlier reasoning restored").waitFor();
    expect(await page.locator('[data-tool-call-id="call-fares"] .tool-head').innerText()).toBe("→ lookup_fares");

    const request = await send("And in first class?");
    await page.getByText("With my earlier reasoning restored").nth(1).waitFor();
    expect(returnedValues(request, ISSUED)).toEqual(ALL_BACK_IDENTICAL);
    expect(open().consoleErrors).toEqual([]);
  }, 30_000);

  it("D-TRUNC turn 4: a stream that just stops mid-reasoning shows as an error, not as a finished turn", async () => {
    const { page, send, consoleErrors } = open();
    await send("cut the connection, please");

    // The HTTP response ended cleanly; only the middleware knows the run never finished. CopilotKit
    // reports the failed run to the provider's onError, which the page shows.
    const error = page.locator(".run-error");
    await error.waitFor();
    expect(await error.innerText()).toMatch(/^Run failed: RUN_TRUNCATED \(D-TRUNC\) at event #\d+ <end of stream>/);
    // The chat is not left running.
    await page.locator('[data-copilot-running="false"]').waitFor();
    // The one console error is CopilotKit logging that failure; no value or reasoning text in it (D-REDACT).
    expect(consoleErrors).toHaveLength(1);
    expect(consoleErrors[0]).toMatch(/ReasoningProtocolError: RUN_TRUNCATED/);
    expect(consoleErrors[0]).not.toContain("Looking at the timetable");
  }, 30_000);
});
