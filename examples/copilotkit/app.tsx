/**
 * agui-reasoning inside CopilotKit v2 (docs/ui-libraries.md): a minimal chat against the demo agent.
 *
 * - The agent: `@ag-ui/client` 1.0's `HttpAgent`, with `reasoningMiddleware` installed by `agent.use`.
 *   Every run CopilotKit starts goes through the reasoning pipeline, and a truncated stream fails it.
 * - CopilotKit pins `@ag-ui/client` 0.0.5x, so the agent is handed over with `bridgeAgent`, which
 *   types the same object as that copy's `AbstractAgent` (`selfManagedAgents`: no CopilotKit runtime
 *   in between; the page talks to the agent directly).
 * - The UI: CopilotKit's own `<CopilotChat>`, which renders reasoning messages ("Thinking…", then
 *   "Thought for N seconds", collapsed) and, with a renderer, tool calls; the provider's `onError` shows
 *   a failed run, and the middleware's warnings are listed, one line per code.
 * - The thread: the middleware's history (every encrypted value, the issuer records) is saved in
 *   localStorage when a run ends; a reopened page continues from it (`initialHistory`) and shows it.
 */
import "@copilotkit/react-core/v2/styles.css";
import { HttpAgent } from "@ag-ui/client";
import { CopilotChat, CopilotKitProvider, defineToolCallRenderer } from "@copilotkit/react-core/v2";
import {
  bridgeAgent,
  messagesOf,
  parseHistory,
  reasoningMiddleware,
  serializeHistory,
  type ReasoningWarning,
} from "agui-reasoning";
import { useEffect, useState, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

/** The agent beside this page; also the producer identity of the values it issues (D-ISSUER). */
const AGENT_URL = new URL("/agent", location.href).href;

/**
 * The conversation as the middleware holds it (every encrypted value, the issuer records): saved when a
 * run ends, and continued from when the page is opened again (`initialHistory`).
 */
const SAVED_HISTORY_KEY = "agui-reasoning-example:history";
const saved = localStorage.getItem(SAVED_HISTORY_KEY);
const restored = saved === null ? undefined : parseHistory(saved);

const reasoning = reasoningMiddleware({
  producer: AGENT_URL,
  ...(restored === undefined ? {} : { initialHistory: restored }),
});
const agent = new HttpAgent({ url: AGENT_URL });
agent.use(reasoning);
agent.subscribe({
  onRunFinalized: () => {
    if (reasoning.history !== undefined) localStorage.setItem(SAVED_HISTORY_KEY, serializeHistory(reasoning.history));
  },
});

/** CopilotKit renders a tool call only through a renderer: one for every tool (`"*"`), arguments and result. */
const toolCalls = [
  defineToolCallRenderer({
    name: "*",
    render: ({ name, toolCallId, args, result }) => (
      <div className="tool-call" data-tool-call-id={toolCallId}>
        <div className="tool-head">→ {name}</div>
        <code className="tool-args">{JSON.stringify(args)}</code>
        {result === undefined ? null : <div className="tool-result">← {result}</div>}
      </div>
    ),
  }),
];

function App(): ReactNode {
  const [failure, setFailure] = useState<string | undefined>();
  // A reopened page shows the saved thread. CopilotKit shows the agent's messages, but <CopilotChat>
  // (without a `threadId`) clears them when it mounts; this effect runs after the chat's own.
  useEffect(() => {
    if (restored !== undefined) agent.setMessages(messagesOf(restored));
  }, []);
  return (
    <CopilotKitProvider
      selfManagedAgents={{ default: bridgeAgent(agent) }}
      renderToolCalls={toolCalls}
      // A ReasoningProtocolError (a truncated stream, a broken one) fails the run: its message names
      // the event index, type, ids and rule, never reasoning text or a value (D-REDACT).
      onError={({ error }) => setFailure(error.message)}
    >
      <main>
        <h1>agui-reasoning · CopilotKit</h1>
        <div className="chat">
          <CopilotChat />
        </div>
        {failure === undefined ? null : (
          <p className="run-error" role="alert">
            Run failed: {failure}
          </p>
        )}
        <Warnings />
      </main>
    </CopilotKitProvider>
  );
}

/** The middleware's warnings (`warnings$`), one line per code with a count, as they arrive. */
function Warnings(): ReactNode {
  const [lines, setLines] = useState<ReadonlyArray<{ code: string; count: number; example: string }>>([]);
  useEffect(() => {
    const subscription = reasoning.warnings$.subscribe((w: ReasoningWarning) =>
      setLines((current) => {
        const found = current.find((line) => line.code === w.code);
        if (found === undefined) return [...current, { code: w.code, count: 1, example: w.message }];
        return current.map((line) => (line === found ? { ...line, count: line.count + 1 } : line));
      }),
    );
    return () => subscription.unsubscribe();
  }, []);
  if (lines.length === 0) return null;
  return (
    <ul className="warnings">
      {lines.map((line) => (
        <li key={line.code} data-code={line.code}>
          {line.code} ×{line.count} — e.g. {line.example}
        </li>
      ))}
    </ul>
  );
}

const STYLE = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 760px; padding: 16px 20px; color: #1d2330; }
  h1 { font-size: 20px; margin: 0 0 10px; }
  .chat { height: 980px; border: 1px solid #e3e6ec; border-radius: 8px; overflow: hidden; }
  .tool-call { margin: 6px 0; padding: 4px 8px; border-left: 3px solid #7c95c9; background: #f5f7fc; }
  .tool-head { font: 600 13px ui-monospace, monospace; }
  .tool-args { display: block; font-size: 12px; color: #3b4a66; word-break: break-all; }
  .tool-result { font: 12px ui-monospace, monospace; color: #1c7c3a; }
  .run-error { color: #b3261e; font-size: 13px; }
  .warnings { font-size: 13px; color: #8a5a00; padding-left: 18px; }
`;

const style = document.createElement("style");
style.textContent = STYLE;
document.head.append(style);
createRoot(document.getElementById("root") ?? document.body).render(<App />);
