/**
 * agui-reasoning inside assistant-ui (docs/ui-libraries.md): a minimal chat against the demo agent.
 *
 * - The agent: `@ag-ui/client` 1.0's `HttpAgent`, with `reasoningMiddleware` installed by `agent.use`.
 *   Every run assistant-ui starts goes through the reasoning pipeline (upcast, chunk expansion,
 *   verification, the history with its encrypted values), and a truncated stream fails the run.
 * - assistant-ui (`useAgUiRuntime`) pins `@ag-ui/client` 0.0.5x, so the agent is handed over with
 *   `bridgeAgent`, which types the same object as that copy's `AbstractAgent`.
 * - The UI: assistant-ui's primitives. Reasoning streams open ("Thinking…") and collapses once the
 *   answer goes on; tool calls show their arguments and result; a failed run shows its error on the
 *   message; an answer can be regenerated, and a branch picker goes back to the earlier one; the
 *   middleware's warnings are listed, one line per code.
 * - The thread: the middleware's history (every encrypted value, the issuer records) and its departed
 *   messages (the values of a branch a regenerate replaced) are saved in localStorage when a run ends;
 *   assistant-ui's own message tree (every branch) is saved through its history adapter. A reopened page
 *   shows the tree, and the middleware loads both (`loadHistory`): a branch picked after the reload
 *   gets its values back too.
 */
import { HttpAgent } from "@ag-ui/client";
import {
  ActionBarPrimitive,
  AssistantRuntimeProvider,
  BranchPickerPrimitive,
  ExportedMessageRepository,
  ComposerPrimitive,
  ErrorPrimitive,
  MessagePrimitive,
  ThreadPrimitive,
} from "@assistant-ui/react";
import { fromAgUiMessages, useAgUiRuntime } from "@assistant-ui/react-ag-ui";
import {
  bridgeAgent,
  messagesOf,
  parseHistory,
  reasoningMiddleware,
  serializeHistory,
  type ReasoningHistory,
  type ReasoningWarning,
} from "agui-reasoning";
import { useEffect, useState, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

/** The agent beside this page; also the producer identity of the values it issues (D-ISSUER). */
const AGENT_URL = new URL("/agent", location.href).href;

/**
 * The conversation as the middleware holds it (every encrypted value, the issuer records), and the
 * messages with a value that left it (a branch a regenerate replaced): saved when a run ends, and loaded
 * by the middleware when the page is opened again (`loadHistory`).
 */
const SAVED_HISTORY_KEY = "agui-reasoning-example:history";
const SAVED_DEPARTED_KEY = "agui-reasoning-example:departed";
const savedText = (key: string): ReasoningHistory | undefined => {
  const text = localStorage.getItem(key);
  return text === null ? undefined : parseHistory(text);
};
const restored = savedText(SAVED_HISTORY_KEY);
const restoredDeparted = savedText(SAVED_DEPARTED_KEY);

// This page has one thread: whatever id the UI gives it, it continues the saved one.
let departed: ReasoningHistory | undefined;
const reasoning = reasoningMiddleware({
  producer: AGENT_URL,
  onHistory: (_, thread) => (departed = thread.departed),
  loadHistory: () => ({ history: restored, departed: restoredDeparted }),
});
const agent = new HttpAgent({
  url: AGENT_URL,
  ...(restored === undefined ? {} : { initialMessages: messagesOf(restored) }),
});
agent.use(reasoning);
agent.subscribe({
  onRunFinalized: () => {
    if (reasoning.history !== undefined) localStorage.setItem(SAVED_HISTORY_KEY, serializeHistory(reasoning.history));
    if (departed !== undefined) localStorage.setItem(SAVED_DEPARTED_KEY, serializeHistory(departed));
  },
});

/**
 * assistant-ui's message tree (every branch, as its history adapter hands each message over), kept in
 * localStorage: a reopened page shows the branch it showed last, and its branch picker still has the others.
 */
const SAVED_TREE_KEY = "agui-reasoning-example:tree";
type TreeItem = ExportedMessageRepository["messages"][number];
const tree = new Map<string, TreeItem>(
  (JSON.parse(localStorage.getItem(SAVED_TREE_KEY) ?? "[]") as TreeItem[]).map((item) => [
    item.message.id,
    // JSON keeps a date as its string.
    { ...item, message: { ...item.message, createdAt: new Date(item.message.createdAt) } },
  ]),
);
const keepInTree = (item: TreeItem): Promise<void> => {
  tree.delete(item.message.id); // the last written is the branch shown last: the head
  tree.set(item.message.id, item);
  localStorage.setItem(SAVED_TREE_KEY, JSON.stringify([...tree.values()]));
  return Promise.resolve();
};
const loadTree = (): Promise<ExportedMessageRepository> =>
  Promise.resolve(
    tree.size > 0
      ? { headId: [...tree.keys()].at(-1)!, messages: [...tree.values()] }
      : ExportedMessageRepository.fromArray(fromAgUiMessages(restored?.messages ?? [])),
  );

function App(): ReactNode {
  const [failure, setFailure] = useState<string | undefined>();
  const runtime = useAgUiRuntime({
    agent: bridgeAgent(agent),
    showThinking: true,
    // A ReasoningProtocolError (a truncated stream, a broken one) rejects the run: its message names
    // the event index, type, ids and rule, never reasoning text or a value (D-REDACT).
    onError: (error) => setFailure(error.message),
    // A reopened page shows the saved thread: assistant-ui loads its own view through a history adapter.
    adapters: { history: { load: loadTree, append: keepInTree, update: keepInTree } },
  });
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <main>
        <h1>agui-reasoning · assistant-ui</h1>
        <ThreadPrimitive.Root className="thread">
          <ThreadPrimitive.Viewport className="viewport">
            <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage }} />
          </ThreadPrimitive.Viewport>
          <ComposerPrimitive.Root className="composer">
            <ComposerPrimitive.Input className="input" placeholder="Ask about train fares…" />
            <ComposerPrimitive.Send className="send">Send</ComposerPrimitive.Send>
          </ComposerPrimitive.Root>
        </ThreadPrimitive.Root>
        {failure === undefined ? null : (
          <p className="run-error" role="alert">
            Run failed: {failure}
          </p>
        )}
        <Warnings />
      </main>
    </AssistantRuntimeProvider>
  );
}

function UserMessage(): ReactNode {
  return (
    <MessagePrimitive.Root className="message user">
      <MessagePrimitive.Parts>{({ part }) => (part.type === "text" ? part.text : null)}</MessagePrimitive.Parts>
    </MessagePrimitive.Root>
  );
}

function AssistantMessage(): ReactNode {
  return (
    <MessagePrimitive.Root className="message assistant">
      <MessagePrimitive.Parts>
        {({ part }) => {
          switch (part.type) {
            case "reasoning":
              return <Reasoning text={part.text} streaming={part.status.type === "running"} />;
            case "tool-call":
              return (
                <div className="tool-call" data-tool-call-id={part.toolCallId}>
                  <div className="tool-head">→ {part.toolName}</div>
                  <code className="tool-args">{part.argsText}</code>
                  {part.result === undefined ? null : (
                    <div className="tool-result">← {JSON.stringify(part.result)}</div>
                  )}
                </div>
              );
            case "text":
              return <p className="text">{part.text}</p>;
            default:
              return null;
          }
        }}
      </MessagePrimitive.Parts>
      <MessagePrimitive.Error>
        <ErrorPrimitive.Root className="message-error" role="alert">
          <ErrorPrimitive.Message />
        </ErrorPrimitive.Root>
      </MessagePrimitive.Error>
      {/* Regenerate starts a branch without this answer; the picker goes back to it, whose values the
          middleware gives back (D-KEEPER) although assistant-ui's copy of its tool calls has none. */}
      <div className="message-actions">
        <BranchPickerPrimitive.Root hideWhenSingleBranch className="branch-picker">
          <BranchPickerPrimitive.Previous className="branch-previous">‹</BranchPickerPrimitive.Previous>
          <span className="branch-number">
            <BranchPickerPrimitive.Number /> / <BranchPickerPrimitive.Count />
          </span>
          <BranchPickerPrimitive.Next className="branch-next">›</BranchPickerPrimitive.Next>
        </BranchPickerPrimitive.Root>
        <ActionBarPrimitive.Root hideWhenRunning autohide="never" className="action-bar">
          <ActionBarPrimitive.Reload className="regenerate">Regenerate</ActionBarPrimitive.Reload>
        </ActionBarPrimitive.Root>
      </div>
    </MessagePrimitive.Root>
  );
}

/** Open with "Thinking…" while it streams; afterwards a one-line summary that expands on click. */
function Reasoning({ text, streaming }: { text: string; streaming: boolean }): ReactNode {
  const [expanded, setExpanded] = useState(false);
  const words = text.split(/\s+/).filter(Boolean).length;
  return (
    <details
      className="reasoning"
      open={streaming || expanded}
      onToggle={(e) => !streaming && setExpanded(e.currentTarget.open)}
    >
      <summary>{streaming ? "Thinking…" : `Thought · ${words} words`}</summary>
      <p className="reasoning-text">{text}</p>
    </details>
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
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 760px; padding: 16px 20px; color: #1d2330; background: #f6f7f9; }
  h1 { font-size: 20px; margin: 0 0 10px; }
  .message { margin: 8px 0; padding: 6px 10px; border-radius: 8px; background: #fff; border: 1px solid #e3e6ec; }
  .message.user { background: #e9f0ff; border-color: #cbd8f5; }
  .text { margin: 4px 0; }
  details.reasoning { color: #5b6475; font-size: 13px; background: #f0f1f4; border-radius: 8px; padding: 4px 10px; margin: 4px 0; }
  details.reasoning summary { cursor: pointer; font-style: italic; }
  .reasoning-text { margin: 2px 0 4px; white-space: pre-wrap; }
  .tool-call { margin: 6px 0; padding: 4px 8px; border-left: 3px solid #7c95c9; background: #f5f7fc; }
  .tool-head { font: 600 13px ui-monospace, monospace; }
  .tool-args { display: block; font-size: 12px; color: #3b4a66; word-break: break-all; }
  .tool-result { font: 12px ui-monospace, monospace; color: #1c7c3a; }
  .message-actions { display: flex; gap: 8px; align-items: center; font-size: 12px; color: #5b6475; }
  .message-actions button { font: inherit; padding: 1px 8px; }
  .message-error, .run-error { color: #b3261e; font-size: 13px; }
  .composer { display: flex; gap: 8px; margin-top: 12px; }
  .input { flex: 1; font: inherit; padding: 6px 8px; border: 1px solid #cfd5df; border-radius: 6px; }
  .send { font: inherit; padding: 6px 14px; }
  .warnings { font-size: 13px; color: #8a5a00; padding-left: 18px; }
`;

const style = document.createElement("style");
style.textContent = STYLE;
document.head.append(style);
createRoot(document.getElementById("root") ?? document.body).render(<App />);
