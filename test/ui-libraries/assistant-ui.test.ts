/**
 * agui-reasoning inside assistant-ui, in headless Chromium (examples/assistant-ui, docs/ui-libraries.md):
 * `@assistant-ui/react` with `@assistant-ui/react-ag-ui`'s `useAgUiRuntime`, given a 1.0 `HttpAgent`
 * with `reasoningMiddleware` installed (through `bridgeAgent`), against the demo agent. Three turns
 * typed into assistant-ui's own composer: the reasoning turn with a tool call and two encrypted
 * values, the follow-up (whose request must carry both values back), the page reopened (the thread it
 * saved restored, and the next request carrying both values again), and a stream cut mid-reasoning.
 *
 * Not part of `npm test` (the example's dependencies are installed in its folder): `.ci/run` runs it
 * after `npm ci` in examples/assistant-ui (`npm run test:ui-libraries`). Screenshot:
 * .tmp/ui-libraries/assistant-ui.png.
 */
import { ISSUED } from "../../examples/demo-agent";
import { returnedValues } from "../../src/testing";
import { startExample } from "../../examples/assistant-ui/serve";
import { ALL_BACK_IDENTICAL, useChatPage, valuesIn } from "./chat-page";

/** assistant-ui's reasoning part, as examples/assistant-ui/app.tsx renders it: open with "Thinking…" while it streams. */
const STREAMING_REASONING = `
  for (const panel of document.querySelectorAll("details.reasoning[open]")) {
    if ((panel.querySelector("summary")?.textContent ?? "").startsWith("Thinking"))
      return panel.querySelector(".reasoning-text")?.textContent ?? "";
  }
  return "";
`;

describe("assistant-ui (@assistant-ui/react-ag-ui useAgUiRuntime) with reasoningMiddleware, in headless Chromium", () => {
  const open = useChatPage(startExample, {
    input: "textarea.input",
    sendButton: "button.send",
    streamingReasoning: STREAMING_REASONING,
  });

  it("turn 1: the reasoning streams open, then collapses to a summary; the tool call shows its arguments and result", async () => {
    const { page, send, streamingSeen } = open();
    await send("Train fares from Lyon to Marseille on Saturday, for four?");
    await page.getByText("The 10:40 TGV is €76 for all four").waitFor();

    expect((await streamingSeen()).some((text) => text.startsWith("Fares change daily"))).toBe(true);
    const panel = page.locator("details.reasoning").first();
    expect(await panel.getAttribute("open")).toBeNull();
    expect(await panel.locator("summary").innerText()).toBe("Thought · 19 words");
    expect(await panel.locator(".reasoning-text").isVisible()).toBe(false);

    const toolCall = page.locator('[data-tool-call-id="call-fares"]');
    expect(await toolCall.locator(".tool-head").innerText()).toBe("→ lookup_fares");
    expect(await toolCall.locator(".tool-args").innerText()).toBe(
      '{"from":"Lyon","to":"Marseille","date":"Saturday","railcard":"family"}',
    );
    expect(await toolCall.locator(".tool-result").innerText()).toContain("€76");
  }, 30_000);

  it("R-REASON-17 D-KEEPER turn 2: the request the agent receives carries both encrypted values back byte-identical", async () => {
    const { page, send } = open();
    const request = await send("And if we book a week ahead?");
    await page.getByText("With my earlier reasoning restored").waitFor();

    // assistant-ui's own message list drops the tool call's value; the middleware restores it (D-KEEPER).
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
    await open().screenshot("assistant-ui");
  }, 30_000);

  it("R-REASON-17 D-KEEPER turn 3, after a reload: the saved thread shows again, and the next request carries both values back byte-identical", async () => {
    const { page, send, reload } = open();
    await reload();
    // The reopened page: assistant-ui loads its view through a history adapter (`fromAgUiMessages`, which drops the tool call's value); the middleware continues from the saved history (`initialHistory`) and restores it.
    await page.getByText("With my earlier reasoning restored").waitFor();
    expect(await page.locator('[data-tool-call-id="call-fares"] .tool-head').innerText()).toBe("→ lookup_fares");

    const request = await send("And in first class?");
    await page.getByText("With my earlier reasoning restored").nth(1).waitFor();
    expect(returnedValues(request, ISSUED)).toEqual(ALL_BACK_IDENTICAL);
    expect(open().consoleErrors).toEqual([]);
  }, 30_000);

  it("D-TRUNC turn 4: a stream that just stops mid-reasoning shows as an error on the message, not as a finished turn", async () => {
    const { page, send, consoleErrors } = open();
    await send("cut the connection, please");

    // The HTTP response ended cleanly; only the middleware knows the run never finished.
    const error = page.locator(".message.assistant").last().locator(".message-error");
    await error.waitFor();
    expect(await error.innerText()).toMatch(/^RUN_TRUNCATED \(D-TRUNC\) at event #\d+ <end of stream>/);
    expect(await page.locator(".run-error").innerText()).toMatch(/^Run failed: RUN_TRUNCATED/);
    // The composer works again: the thread is not left running.
    await page.locator("textarea.input").fill("still there?");
    expect(await page.locator("button.send").isEnabled()).toBe(true);
    // The one console error is assistant-ui logging that failure; no value or reasoning text in it (D-REDACT).
    expect(consoleErrors).toHaveLength(1);
    expect(consoleErrors[0]).toMatch(/ReasoningProtocolError: RUN_TRUNCATED/);
    expect(consoleErrors[0]).not.toContain("Looking at the timetable");
  }, 30_000);
});
