/**
 * Other producers' habits (LangGraph, CrewAI, the OpenAI Agents and Agno integrations, Microsoft Agent
 * Framework, Pydantic AI, Google ADK/GenAI adapters, Go emitters, AI SDK servers), each rebuilt as a
 * small stream of our own: nothing here is copied from those projects, and no recording of theirs is
 * read. Every row names the habit, where it was learned (a comment: repository and path; "unattributed"
 * where the code index showed the code without naming its repository), the rule or decision that
 * decides the verdict, and the verdict itself. Each row runs through the facade (`runPipeline`) and
 * through `agui-reasoning check --json --show-values` in-process (D-PATHS), and both must give the
 * verdict, the warning codes, and the encrypted values where the rules put them (R-REASON-17).
 *
 * A habit the spec leaves open completes (warning where a content loss or an oddity is reported); a
 * habit the spec makes fatal stays `failed`: the package must not get laxer because a producer is popular.
 */
import { lastValueFrom, from, toArray } from "rxjs";
import type { Message } from "@ag-ui/core";
import { runCheck } from "../../src/cli/check";
import { isReasoningProtocolError, type ReasoningErrorCode } from "../../src/core/errors";
import type { ReasoningWarningCode } from "../../src/core/warning-codes";
import type { IncompleteItem } from "../../src/history/types";
import { ev, msg } from "../../src/testing/builders";
import { runPipeline } from "../../src/testing/run-pipeline";

type Group = "stored" | "unknown" | "ids" | "fatal" | "snapshot" | "legacy" | "lifecycle";

interface Habit {
  readonly group: Group;
  /** What the producer does, in one line. */
  readonly habit: string;
  /** The rule and decision ids that decide the verdict. */
  readonly rule: string;
  readonly events: readonly unknown[];
  readonly outcome: "completed" | "failed";
  readonly code?: ReasoningErrorCode;
  /** Warning codes that must appear (others may). */
  readonly warnings?: readonly ReasoningWarningCode[];
  /** Every encrypted value in the final history, as `role id=value` / `tool-call id=value` (exactly these). */
  readonly values: readonly string[];
  /** The final history's messages as `role:id`, in order (when the row pins them); MINTED for a minted id. */
  readonly messages?: readonly unknown[];
  /** The final history's incomplete items as `kind:id:reason` (when the row pins them). */
  readonly incomplete?: readonly string[];
}

const RS = ev.runStarted();
const RF = ev.runFinished();
const sub = (subagentRunId: string) => ({ subagentRunId });
/** A reasoning message whose id the package minted (D-THINK-IDS): `think-n` in the kit, a UUID in `check`. */
const MINTED: unknown = expect.stringMatching(/^reasoning:.+/);

const HABITS: readonly Habit[] = [
  // ── Encrypted values land on the message or tool call they name, wherever in the run they arrive ──
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py
    // (handle_reasoning_event, _handle_single_event: span and message share one id; the Anthropic
    // signature or redacted_thinking data goes out before REASONING_MESSAGE_END); the same shape from
    // integrations/adk-middleware/python/tests/test_thought_to_thinking_integration.py (one id for span
    // and message, a base64 thought_signature naming that message)
    group: "stored",
    habit: "LangGraph (Python) / ADK middleware: span id = message id, value sent while the message is open",
    rule: "R-REASON-12/21/17",
    events: [
      RS,
      ev.reasoningStart("rs_1"),
      ev.reasoningMessageStart("rs_1"),
      ev.reasoningMessageContent("rs_1", "Let me think"),
      ev.encryptedValue("message", "rs_1", "sig-1"),
      ev.reasoningMessageEnd("rs_1"),
      ev.reasoningEnd("rs_1"),
      ev.textStart("run-1"),
      ev.textContent("run-1", "Answer"),
      ev.textEnd("run-1"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning rs_1=sig-1"],
    messages: ["reasoning:rs_1", "assistant:run-1"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/crew-ai/python/ag_ui_crewai/sdk.py (_ReasoningChannel.emit:
    // an encrypted-only payload, e.g. redacted_thinking, opens the turn's first message with no text)
    group: "stored",
    habit: "CrewAI: an encrypted-only block opens an empty reasoning message that holds only the value",
    rule: "R-REASON-17/21 R-SCHEMA-6",
    events: [
      RS,
      ev.reasoningStart("u-1"),
      ev.reasoningMessageStart("u-1"),
      ev.encryptedValue("message", "u-1", "redacted=="),
      ev.reasoningMessageEnd("u-1"),
      ev.reasoningEnd("u-1"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning u-1=redacted=="],
    messages: ["reasoning:u-1"],
  },
  {
    // microsoft/agent-framework python/packages/ag-ui/agent_framework_ag_ui/_run_common.py
    // (_emit_text_reasoning: every reasoning content carrying protected_data sends a value)
    group: "stored",
    habit: "Microsoft Agent Framework: a value with each protected chunk, several for one open message",
    rule: "D-REPEAT R-REASON-21",
    events: [
      RS,
      ev.reasoningStart("r1"),
      ev.reasoningMessageStart("r1"),
      ev.reasoningMessageContent("r1", "a"),
      ev.encryptedValue("message", "r1", "p1"),
      ev.reasoningMessageContent("r1", "b"),
      ev.encryptedValue("message", "r1", "p2"),
      ev.reasoningMessageEnd("r1"),
      ev.reasoningEnd("r1"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning r1=p2"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/openai-agents/python/src/ag_ui_openai_agents/engine/openai_to_agui.py
    // (_open_reasoning_part: first part reuses the phase id, later parts get "-1", "-2";
    // _emit_encrypted_value at output_item.done names the phase id, after the part closed)
    group: "stored",
    habit: "OpenAI Agents: parts `rs`, `rs-1` in one span; the value comes after the parts closed, naming `rs`",
    rule: "R-REASON-2/12/21",
    events: [
      RS,
      ev.reasoningStart("rs"),
      ev.reasoningMessageStart("rs"),
      ev.reasoningMessageContent("rs", "first"),
      ev.reasoningMessageEnd("rs"),
      ev.reasoningMessageStart("rs-1"),
      ev.reasoningMessageContent("rs-1", "second"),
      ev.reasoningMessageEnd("rs-1"),
      ev.encryptedValue("message", "rs", "enc"),
      ev.reasoningEnd("rs"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning rs=enc"],
    messages: ["reasoning:rs", "reasoning:rs-1"],
  },
  {
    // unattributed (an AI SDK-based AG-UI agent, `AISDKAgent`: reasoningLifecycleId for
    // REASONING_START/END, reasoningMessageId for the message, JSON-serialized signature after the
    // message END, `timestamp: Date.now()` on every event)
    group: "stored",
    habit: "AI SDK server: span id ≠ message id, JSON value after the message END, ms timestamps",
    rule: "R-REASON-16/21 R-EVT-3 D-CONTAIN",
    events: [
      ev.runStarted("r1", { timestamp: 1_765_000_000_000 }),
      ev.reasoningStart("life-1", { timestamp: 1_765_000_000_001 }),
      ev.reasoningMessageStart("m-1", { timestamp: 1_765_000_000_002 }),
      ev.reasoningMessageContent("m-1", "think", { timestamp: 1_765_000_000_003 }),
      ev.reasoningMessageEnd("m-1", { timestamp: 1_765_000_000_900 }),
      ev.encryptedValue("message", "m-1", '{"anthropic":{"signature":"s1"}}', { timestamp: 1_765_000_000_901 }),
      ev.reasoningEnd("life-1", { timestamp: 1_765_000_000_902 }),
      ev.runFinished("r1", { timestamp: 1_765_000_001_000 }),
    ],
    outcome: "completed",
    values: ['reasoning m-1={"anthropic":{"signature":"s1"}}'],
  },
  {
    // unattributed (a Google ADK → AG-UI TypeScript translator: `reasoningSignature` attaches a
    // thoughtSignature to `openReasoningId ?? lastReasoningId`, i.e. also after the reasoning closed)
    group: "stored",
    habit: "ADK (TypeScript): a thought signature for the last reasoning message, after its span ended",
    rule: "R-REASON-17/21",
    events: [
      RS,
      ev.reasoningStart("s"),
      ev.reasoningMessageStart("m"),
      ev.reasoningMessageContent("m", "t"),
      ev.reasoningMessageEnd("m"),
      ev.reasoningEnd("s"),
      ev.textStart("a"),
      ev.textContent("a", "x"),
      ev.textEnd("a"),
      ev.encryptedValue("message", "m", "thought-sig"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning m=thought-sig"],
  },
  {
    // unattributed (a Google GenAI → AG-UI adapter's test: reasoning message without a span, metadata
    // {google:{thought:true}}, value inside the open message, TOOL_CALL_START whose parentMessageId names
    // an assistant message never streamed, a `tool-call` value before TOOL_CALL_END)
    group: "stored",
    habit: "Google GenAI: spanless reasoning, tool-call value inside the open call, parent never streamed",
    rule: "R-REASON-15/21 R-TOOL-1 D-CONTAIN",
    events: [
      RS,
      ev.reasoningMessageStart("run:assistant:reasoning:0", { metadata: { google: { thought: true } } }),
      ev.reasoningMessageContent("run:assistant:reasoning:0", "I need a lookup."),
      ev.encryptedValue("message", "run:assistant:reasoning:0", "reasoning-signature"),
      ev.reasoningMessageEnd("run:assistant:reasoning:0"),
      ev.toolCallStart("call-1", "lookup", { parentMessageId: "run:assistant" }),
      ev.toolCallArgs("call-1", '{"q":"x"}'),
      ev.encryptedValue("tool-call", "call-1", "tool-signature"),
      ev.toolCallEnd("call-1"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning run:assistant:reasoning:0=reasoning-signature", "tool-call call-1=tool-signature"],
    messages: ["reasoning:run:assistant:reasoning:0", "assistant:run:assistant"],
  },
  {
    // unattributed (an agent-runtime → AG-UI translator: `REASONING_ENCRYPTED_VALUE` subtype
    // "message" naming the turn's assistant message, no reasoning message at all)
    group: "stored",
    habit: "A value on the assistant answer itself (no reasoning streamed)",
    rule: "R-SCHEMA-8 R-REASON-17",
    events: [
      RS,
      ev.textStart("a1"),
      ev.textContent("a1", "hi"),
      ev.textEnd("a1"),
      ev.encryptedValue("message", "a1", "turn-blob"),
      RF,
    ],
    outcome: "completed",
    values: ["assistant a1=turn-blob"],
  },

  // ── Values naming nothing known: warn and drop, never fail ──
  {
    // ag-ui-protocol/ag-ui integrations/openai-agents/python/src/ag_ui_openai_agents/engine/openai_to_agui.py
    // (a reasoning item with encrypted_content and no summary parts: REASONING_START, the value naming
    // the phase id, REASONING_END); pydantic/pydantic-ai
    // pydantic_ai_slim/pydantic_ai/ui/ag_ui/_thinking_0_13.py (handle_thinking_end, encrypted, no text)
    group: "unknown",
    habit: "OpenAI Agents / Pydantic AI: encrypted-only reasoning names the span id, no message exists",
    rule: "R-REASON-6/22 D-UNKNOWN-ENTITY",
    events: [
      RS,
      ev.reasoningStart("rs_9"),
      ev.encryptedValue("message", "rs_9", '{"signature":"x"}'),
      ev.reasoningEnd("rs_9"),
      RF,
    ],
    outcome: "completed",
    warnings: ["UNKNOWN_ENTITY"],
    values: [],
    messages: [],
  },
  {
    // unattributed (a Mastra-stream → AG-UI server: `reasoning-signature` chunks become a value whose
    // entityId is the provider chunk's own id, not the reasoningMessageId it streamed)
    group: "unknown",
    habit: "Mastra-based server: the value names the provider's reasoning id, not the streamed message id",
    rule: "R-REASON-22 D-UNKNOWN-ENTITY",
    events: [
      RS,
      ev.reasoningStart("m-uuid"),
      ev.reasoningMessageStart("m-uuid"),
      ev.reasoningMessageContent("m-uuid", "t"),
      ev.reasoningMessageEnd("m-uuid"),
      ev.reasoningEnd("m-uuid"),
      ev.encryptedValue("message", "provider-block-7", "sig"),
      RF,
    ],
    outcome: "completed",
    warnings: ["UNKNOWN_ENTITY"],
    values: [],
  },
  {
    // unattributed (the same server emits the signature chunk as it arrives, which can be before
    // `reasoning-start`); the forward reference is the decision's case
    group: "unknown",
    habit: "A value sent before the message it names opens",
    rule: "D-FORWARD R-REASON-22",
    events: [
      RS,
      ev.encryptedValue("message", "m", "early"),
      ev.reasoningMessageStart("m"),
      ev.reasoningMessageContent("m", "t"),
      ev.reasoningMessageEnd("m"),
      RF,
    ],
    outcome: "completed",
    warnings: ["UNKNOWN_ENTITY"],
    values: [],
  },

  // ── Ids: spans, messages, reuse ──
  {
    // microsoft/agent-framework python/packages/ag-ui/agent_framework_ag_ui/_run_common.py
    // (_emit_text_reasoning keys on the provider's content.id; _close_reasoning_block on other content,
    // so the same id opens span and message again when reasoning resumes)
    group: "ids",
    habit: "Microsoft Agent Framework: reasoning resumes under the same provider id after a tool call",
    rule: "R-TEXT-5 R-REASON-11/10 #6",
    events: [
      RS,
      ev.reasoningStart("rid"),
      ev.reasoningMessageStart("rid"),
      ev.reasoningMessageContent("rid", "a"),
      ev.reasoningMessageEnd("rid"),
      ev.reasoningEnd("rid"),
      ev.toolCallStart("c1", "f", { parentMessageId: "msg-1" }),
      ev.toolCallEnd("c1"),
      ev.toolCallResult("res-1", "c1", "ok", { role: "tool" }),
      ev.reasoningStart("rid"),
      ev.reasoningMessageStart("rid"),
      ev.reasoningMessageContent("rid", "b"),
      ev.reasoningMessageEnd("rid"),
      ev.reasoningEnd("rid"),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["reasoning:rid", "assistant:msg-1", "tool:res-1"],
  },
  {
    // unattributed (Go ADK → AG-UI translators: GenerateMessageID() for the phase and for the message;
    // closeReasoningMessage before text, the phase closed later)
    group: "ids",
    habit: "Go ADK translator: phase span open across the answer, message closed before it",
    rule: "D-CONTAIN R-REASON-12 R-STREAM-5",
    events: [
      RS,
      ev.reasoningStart("msg-p"),
      ev.reasoningMessageStart("msg-r"),
      ev.reasoningMessageContent("msg-r", "t"),
      ev.reasoningMessageEnd("msg-r"),
      ev.textStart("msg-t"),
      ev.textContent("msg-t", "x"),
      ev.textEnd("msg-t"),
      ev.reasoningEnd("msg-p"),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["reasoning:msg-r", "assistant:msg-t"],
  },
  {
    // unattributed (a LangGraph-based Python server, `message_frame_events`: one injected message id for
    // the reasoning message and the text message of one LLM call)
    group: "ids",
    habit: "One id for the reasoning message and the answer of the same call",
    rule: "D-ROLE-CONFLICT",
    events: [
      RS,
      ev.reasoningMessageStart("m"),
      ev.reasoningMessageContent("m", "think"),
      ev.reasoningMessageEnd("m"),
      ev.textStart("m", undefined),
      ev.textContent("m", "answer"),
      ev.textEnd("m"),
      RF,
    ],
    outcome: "failed",
    code: "ID_ROLE_CONFLICT",
    values: [],
  },
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py (handle_reasoning_event:
    // a REASONING_MESSAGE_START whenever the block's type differs from the recorded one, without an END)
    group: "ids",
    habit: "LangGraph (Python): a second REASONING_MESSAGE_START for the open id when the block type changes",
    rule: "R-REASON-11",
    events: [
      RS,
      ev.reasoningStart("rs_2"),
      ev.reasoningMessageStart("rs_2"),
      ev.reasoningMessageContent("rs_2", "a"),
      ev.reasoningMessageStart("rs_2"),
      ev.reasoningMessageContent("rs_2", "b"),
      ev.reasoningMessageEnd("rs_2"),
      ev.reasoningEnd("rs_2"),
      RF,
    ],
    outcome: "failed",
    code: "DUPLICATE_OPEN",
    values: [],
  },

  // ── Spec-fatal shapes stay fatal ──
  {
    // pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/ui/ag_ui/_thinking_0_13.py
    // (ReasoningMessageStartEvent(..., role='assistant')); Go emitters calling
    // NewReasoningMessageStartEvent(id, "assistant") (unattributed); the pre-1.0 Python SDK's
    // events.py declares ReasoningMessageRole = Literal["assistant"] (unattributed copy), so every
    // Python producer pinned to it sends this
    group: "fatal",
    habit: 'Pydantic AI (0.1.13 shape) / Go emitters: REASONING_MESSAGE_START with role "assistant"',
    rule: "R-SCHEMA-2 R-PROC-4",
    events: [
      RS,
      ev.reasoningStart("x"),
      ev.reasoningMessageStart("x", { role: "assistant" }),
      ev.reasoningMessageContent("x", "t"),
      ev.reasoningMessageEnd("x"),
      ev.reasoningEnd("x"),
      RF,
    ],
    outcome: "failed",
    code: "MALFORMED_EVENT",
    values: [],
  },
  {
    // unattributed (a pre-1.0 LangGraph TypeScript agent: REASONING_START and REASONING_MESSAGE_CONTENT
    // without messageId, REASONING_ENCRYPTED_VALUE carrying `data` instead of subtype/entityId/encryptedValue)
    group: "fatal",
    habit: "An old LangGraph (TypeScript) agent: REASONING_START without messageId",
    rule: "R-REASON-23 R-PROC-4",
    events: [RS, { type: "REASONING_START" }, RF],
    outcome: "failed",
    code: "MALFORMED_EVENT",
    values: [],
  },

  {
    // unattributed (Java emitters, e.g. package org.noear.solon.ai.ui.agui.event: a
    // ReasoningMessageStartEvent whose `role` field is left unset, so it is not on the wire)
    group: "fatal",
    habit: "Java emitters: REASONING_MESSAGE_START without a role",
    rule: "R-SCHEMA-2 #30",
    events: [
      RS,
      { type: "REASONING_MESSAGE_START", messageId: "j-1" },
      ev.reasoningMessageContent("j-1", "t"),
      ev.reasoningMessageEnd("j-1"),
      RF,
    ],
    outcome: "failed",
    code: "MALFORMED_EVENT",
    values: [],
  },
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/typescript/src/agent.ts (OnToolEnd, a tool returning a
    // Command whose update holds the ToolMessage: TOOL_CALL_START and TOOL_CALL_ARGS, then
    // TOOL_CALL_RESULT, and no TOOL_CALL_END on that branch)
    group: "fatal",
    habit: "LangGraph (TypeScript): a Command-returning tool's call is never ended before RUN_FINISHED",
    rule: "R-TOOL-6 R-STREAM-3",
    events: [
      RS,
      ev.toolCallStart("call_9", "update_state"),
      ev.toolCallArgs("call_9", "{}"),
      ev.toolCallResult("uuid-9", "call_9", "done", { role: "tool" }),
      RF,
    ],
    outcome: "failed",
    code: "OPEN_AT_RUN_FINISHED",
    values: [],
  },

  // ── MESSAGES_SNAPSHOT ──
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/utils.py (langchain_messages_to_agui:
    // reasoning blocks as ReasoningMessages with the provider id and encrypted_content, before the
    // assistant message) and agent.py (get_state_and_messages_snapshots at the end of the run);
    // microsoft/agent-framework python/packages/ag-ui/agent_framework_ag_ui/_run_common.py (the final
    // snapshot restates reasoning messages with encryptedValue)
    group: "snapshot",
    habit: "LangGraph / Agent Framework: the final snapshot restates the reasoning message with its value",
    rule: "R-REASON-20 R-STATE-4",
    events: [
      RS,
      ev.reasoningStart("rs_1"),
      ev.reasoningMessageStart("rs_1"),
      ev.reasoningMessageContent("rs_1", "sum"),
      ev.encryptedValue("message", "rs_1", "streamed"),
      ev.reasoningMessageEnd("rs_1"),
      ev.reasoningEnd("rs_1"),
      ev.textStart("ai-1"),
      ev.textContent("ai-1", "ok"),
      ev.textEnd("ai-1"),
      ev.stateSnapshot({ step: 2 }),
      ev.messagesSnapshot([
        msg.user("u-1", "q"),
        msg.reasoning("rs_1", "sum", { encryptedValue: "restated" }),
        msg.assistant("ai-1", "ok"),
      ]),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning rs_1=restated"],
    messages: ["reasoning:rs_1", "assistant:ai-1", "user:u-1"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/utils.py
    // (_reasoning_block_to_agui_message: `{assistant_id}-reasoning-{index}` when the block has no id,
    // while the stream used a fresh uuid)
    group: "snapshot",
    habit: "LangGraph (Python): the snapshot's reasoning id differs from the streamed one",
    rule: "R-STATE-6 R-REASON-20",
    events: [
      RS,
      ev.reasoningStart("uuid-1"),
      ev.reasoningMessageStart("uuid-1"),
      ev.reasoningMessageContent("uuid-1", "t"),
      ev.reasoningMessageEnd("uuid-1"),
      ev.reasoningEnd("uuid-1"),
      ev.textStart("ai-1"),
      ev.textContent("ai-1", "ans"),
      ev.textEnd("ai-1"),
      ev.messagesSnapshot([
        msg.reasoning("ai-1-reasoning-0", "t", { encryptedValue: "enc" }),
        msg.assistant("ai-1", "ans"),
      ]),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning ai-1-reasoning-0=enc"],
    messages: ["assistant:ai-1", "reasoning:ai-1-reasoning-0"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/openai-agents/python/src/ag_ui_openai_agents/engine/openai_to_agui.py
    // (build_messages_snapshot: prior input + completed messages, reasoning omitted; _record_tool_call
    // keys the holder by the call id; _record_result derives the result id)
    group: "snapshot",
    habit: "OpenAI Agents: the final snapshot omits reasoning; the call's holder message has the call's id",
    rule: "R-STATE-5 R-STATE-4 D-TOOL-RESULT-ID",
    events: [
      RS,
      ev.reasoningStart("rs_5"),
      ev.reasoningMessageStart("rs_5"),
      ev.reasoningMessageContent("rs_5", "plan"),
      ev.reasoningMessageEnd("rs_5"),
      ev.encryptedValue("message", "rs_5", "enc5"),
      ev.reasoningEnd("rs_5"),
      ev.toolCallStart("call_1", "search"),
      ev.toolCallArgs("call_1", "{}"),
      ev.toolCallEnd("call_1"),
      ev.toolCallResult("call_1-result", "call_1", "found"),
      ev.messagesSnapshot([
        msg.user("u-1", "q"),
        msg.assistant("call_1", undefined, { toolCalls: [msg.toolCall("call_1", "search", "{}")] }),
        msg.tool("call_1-result", "call_1", "found"),
      ]),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning rs_5=enc5"],
    messages: ["reasoning:rs_5", "assistant:call_1", "tool:call_1-result", "user:u-1"],
  },

  // ── Retired THINKING_* shapes ──
  {
    // pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/ui/ag_ui/_thinking_0_10.py (peers below 0.1.11:
    // THINKING_START without title, THINKING_TEXT_MESSAGE_* with no ids)
    group: "legacy",
    habit: "Pydantic AI (old peers): THINKING_* without ids or title",
    rule: "R-DEP-2/4 D-THINK-IDS",
    events: [
      RS,
      ev.thinkingStart(),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("hmm"),
      ev.thinkingTextMessageEnd(),
      ev.thinkingEnd(),
      ev.textStart("a"),
      ev.textContent("a", "x"),
      ev.textEnd("a"),
      RF,
    ],
    outcome: "completed",
    warnings: ["THINKING_UPCAST"],
    values: [],
    messages: [MINTED, "assistant:a"],
  },
  {
    // unattributed (a Python SSE emitter: THINKING_START, then THINKING_TEXT_MESSAGE_* with message_id
    // serialised as messageId)
    group: "legacy",
    habit: "A Python emitter: THINKING_TEXT_MESSAGE_* carrying messageId",
    rule: "D-THINK-IDS R-DEP-2",
    events: [
      RS,
      ev.thinkingStart(),
      ev.thinkingTextMessageStart({ messageId: "th-1" }),
      ev.thinkingTextMessageContent("x", { messageId: "th-1" }),
      ev.thinkingTextMessageEnd({ messageId: "th-1" }),
      ev.thinkingEnd(),
      RF,
    ],
    outcome: "completed",
    warnings: ["THINKING_UPCAST"],
    values: [],
    messages: ["reasoning:th-1"],
  },
  {
    // unattributed (a vendor's ADK → AG-UI translator, "ThinkingMessageEventUtil": thinking events with
    // a snake_case `thinking_id` field of their own)
    group: "legacy",
    habit: "An ADK translator: THINKING_TEXT_MESSAGE_* with an undescribed `thinking_id` field",
    rule: "R-PROC-2 D-THINK-IDS R-DEP-4",
    events: [
      RS,
      ev.thinkingStart(),
      ev.thinkingTextMessageStart({ thinking_id: "t-1" }),
      ev.thinkingTextMessageContent("x", { thinking_id: "t-1" }),
      ev.thinkingTextMessageEnd({ thinking_id: "t-1" }),
      ev.thinkingEnd(),
      RF,
    ],
    outcome: "completed",
    warnings: ["THINKING_UPCAST", "STRIPPED_PROPERTY"],
    values: [],
    messages: [MINTED],
  },

  // ── Lifecycle and interleaving ──
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py (handle_node_change:
    // STEP_FINISHED/STEP_STARTED on every node change, also while a reasoning message is open)
    group: "lifecycle",
    habit: "LangGraph (Python): a step switch while a reasoning message is open",
    rule: "R-RUN-12 R-STREAM-5",
    events: [
      RS,
      ev.stepStarted("model"),
      ev.reasoningStart("r"),
      ev.reasoningMessageStart("r"),
      ev.reasoningMessageContent("r", "a"),
      ev.stepFinished("model"),
      ev.stepStarted("tools"),
      ev.reasoningMessageContent("r", "b"),
      ev.reasoningMessageEnd("r"),
      ev.reasoningEnd("r"),
      ev.stepFinished("tools"),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["reasoning:r"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py (every in-window
    // event tagged with subagentRunId, steps tracked per lane and closed by close_lane_steps before the
    // subagent's terminal, tags kept on output that trails a finished subagent)
    group: "lifecycle",
    habit: "LangGraph (Python) subagents: same step name in parent and subagent, tags after the subagent finished",
    rule: "R-SUB-2/3/6 R-RUN-12",
    events: [
      RS,
      ev.stepStarted("model"),
      ev.subagentStarted("tools:A"),
      ev.stepStarted("model", sub("tools:A")),
      ev.reasoningStart("ra", sub("tools:A")),
      ev.reasoningMessageStart("ra", sub("tools:A")),
      ev.reasoningMessageContent("ra", "sub thinks", sub("tools:A")),
      ev.encryptedValue("message", "ra", "sub-sig", sub("tools:A")),
      ev.reasoningMessageEnd("ra", sub("tools:A")),
      ev.reasoningEnd("ra", sub("tools:A")),
      ev.stepFinished("model", sub("tools:A")),
      ev.subagentFinished("tools:A"),
      ev.textStart("trail", "assistant", sub("tools:A")),
      ev.textContent("trail", "late", sub("tools:A")),
      ev.textEnd("trail", sub("tools:A")),
      ev.stepFinished("model"),
      RF,
    ],
    outcome: "completed",
    values: ["reasoning ra=sub-sig"],
    messages: ["reasoning:ra", "assistant:trail"],
  },
  {
    // agno-agi/agno libs/agno/agno/os/interfaces/agui/utils.py (_create_events_from_chunk: reasoning only
    // as STEP "reasoning"; an empty TEXT_MESSAGE_START/END as the parent of tool calls; result with
    // role "tool" and a fresh uuid)
    group: "lifecycle",
    habit: "Agno (older): reasoning only as a step, an empty parent message for the tool call",
    rule: "R-EVT-12 R-TOOL-1/3",
    events: [
      RS,
      ev.stepStarted("reasoning"),
      ev.stepFinished("reasoning"),
      ev.textStart("p-1"),
      ev.textEnd("p-1"),
      ev.toolCallStart("tc-1", "weather", { parentMessageId: "p-1" }),
      ev.toolCallArgs("tc-1", '{"city":"Oslo"}'),
      ev.toolCallEnd("tc-1"),
      ev.toolCallResult("uuid-r", "tc-1", "sunny", { role: "tool" }),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["assistant:p-1", "tool:uuid-r"],
  },
  {
    // agno-agi/agno libs/agno/agno/os/interfaces/agui/handlers.py (on_unknown_event: RAW with
    // source "agno"; on_run_completed closes an orphaned reasoning session before RUN_FINISHED)
    group: "lifecycle",
    habit: "Agno: RAW events inside open reasoning, reasoning closed by the completion handler",
    rule: "R-PASS-1/2 R-REASON-13",
    events: [
      RS,
      ev.reasoningStart("ag-1"),
      ev.reasoningMessageStart("ag-1"),
      ev.reasoningMessageContent("ag-1", "step 1"),
      ev.raw({ event: "MemoryUpdateStarted" }, { source: "agno" }),
      ev.reasoningMessageContent("ag-1", " step 2"),
      ev.custom("ReasoningStepEvent", { n: 2 }),
      ev.reasoningMessageEnd("ag-1"),
      ev.reasoningEnd("ag-1"),
      ev.stateSnapshot({ s: 1 }),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["reasoning:ag-1"],
  },
  {
    // microsoft/agent-framework python/packages/ag-ui/agent_framework_ag_ui/_run_common.py
    // (_emit_tool_call: parentMessageId = the open text message; _emit_tool_result_common closes the text
    // message only after TOOL_CALL_RESULT and a STATE_SNAPSHOT)
    group: "lifecycle",
    habit: "Microsoft Agent Framework: the answer stays open across its tool call and the result",
    rule: "R-STREAM-5 R-TOOL-1/3",
    events: [
      RS,
      ev.textStart("msg-1"),
      ev.textContent("msg-1", "Checking"),
      ev.toolCallStart("c1", "get", { parentMessageId: "msg-1" }),
      ev.toolCallArgs("c1", "{}"),
      ev.toolCallEnd("c1"),
      ev.toolCallResult("r-1", "c1", "ok", { role: "tool" }),
      ev.stateSnapshot({ done: true }),
      ev.textEnd("msg-1"),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["assistant:msg-1", "tool:r-1"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/crew-ai/python/ag_ui_crewai/sdk.py (copilotkit_stream:
    // TEXT_MESSAGE_CHUNK with role "assistant" and the LiteLLM chunk id; TOOL_CALL_CHUNK restating id and
    // name on every chunk with parent_message_id = that id)
    group: "lifecycle",
    habit: "CrewAI: text chunks with a role, tool chunks restating id, name and parent on every chunk",
    rule: "R-STREAM-14/15 R-TOOL-1",
    events: [
      RS,
      ev.textChunk("chatcmpl-1", "Let me", { role: "assistant" }),
      ev.textChunk("chatcmpl-1", " check", { role: "assistant" }),
      ev.toolCallChunk("call_a", "search", '{"q":', { parentMessageId: "chatcmpl-1" }),
      ev.toolCallChunk("call_a", "search", '"x"}', { parentMessageId: "chatcmpl-1" }),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["assistant:chatcmpl-1"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/typescript/src/agent.ts (ManuallyEmitToolCall: the
    // call's parentMessageId is the call's own id; dispatchInterruptFinish: RUN_FINISHED with an
    // interrupt outcome and the run's token `usage`)
    group: "lifecycle",
    habit: "LangGraph (TypeScript): a manual tool call parented on its own id, an interrupt outcome with usage",
    rule: "R-TOOL-1 R-RUN-3",
    events: [
      RS,
      ev.toolCallStart("tc-m", "confirm", { parentMessageId: "tc-m" }),
      ev.toolCallArgs("tc-m", '{"ok":true}'),
      ev.toolCallEnd("tc-m"),
      ev.runFinished("r1", {
        outcome: { type: "interrupt", interrupts: [{ id: "int-1", reason: "tool_call", toolCallId: "tc-m" }] },
        usage: [{ inputTokens: 12, outputTokens: 3 }],
      }),
    ],
    outcome: "completed",
    values: [],
    messages: ["assistant:tc-m"],
  },
  {
    // unattributed (a pi-ai → AG-UI translator: thinking_delta becomes REASONING_MESSAGE_CHUNK under
    // `${messageId}-reason`, text_delta a TEXT_MESSAGE_CHUNK under messageId, in whatever order they come)
    group: "lifecycle",
    habit: "pi-ai translator: reasoning and text chunks alternate under `x-reason` and `x`",
    rule: "R-STREAM-15 R-TEXT-5",
    events: [
      RS,
      ev.reasoningChunk("x-reason", "a"),
      ev.textChunk("x", "A", { role: "assistant" }),
      ev.reasoningChunk("x-reason", "b"),
      ev.textChunk("x", "B", { role: "assistant" }),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["reasoning:x-reason", "assistant:x"],
  },
  {
    // unattributed (a Java AG-UI library whose event records all carry threadId and runId, e.g.
    // ReasoningMessageChunk(threadId, runId, messageId, delta), "according to the Reasoning draft")
    group: "lifecycle",
    habit: "Java records: threadId and runId on every reasoning and text event",
    rule: "R-PROC-2/6",
    events: [
      RS,
      ev.reasoningStart("s", { threadId: "t1", runId: "r1" }),
      ev.reasoningChunk("m", "a", { threadId: "t1", runId: "r1" }),
      ev.reasoningChunk(undefined, "b", { threadId: "t1", runId: "r1" }),
      ev.reasoningEnd("s", { threadId: "t1", runId: "r1" }),
      ev.textChunk("t", "x", { threadId: "t1", runId: "r1" }),
      RF,
    ],
    outcome: "completed",
    warnings: ["STRIPPED_PROPERTY"],
    values: [],
    messages: ["reasoning:m", "assistant:t"],
  },
  {
    // ag-ui-protocol/ag-ui integrations/adk-middleware/python/tests/test_terminal_event_on_skipped_run.py
    // (a run with no new work: a bare RUN_STARTED/RUN_FINISHED pair; before the fix, no event at all)
    group: "lifecycle",
    habit: "ADK middleware: a run with no new work is a bare RUN_STARTED/RUN_FINISHED pair",
    rule: "R-RUN-1/3",
    events: [ev.runStarted("run_1"), ev.runFinished("run_1")],
    outcome: "completed",
    values: [],
    messages: [],
  },
  {
    // ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py (empty string content
    // is kept as a delta "during tool-call / structured-output transitions")
    group: "lifecycle",
    habit: "LangGraph (Python): empty-string TEXT_MESSAGE_CONTENT deltas",
    rule: "R-SCHEMA-3 D-SEED-001",
    events: [
      RS,
      ev.textStart("run-2"),
      ev.textContent("run-2", ""),
      ev.textContent("run-2", "x"),
      ev.textContent("run-2", ""),
      ev.textEnd("run-2"),
      RF,
    ],
    outcome: "completed",
    values: [],
    messages: ["assistant:run-2"],
  },
  {
    // unattributed (a Mastra-stream → AG-UI server: `catch (err) { emit RUN_ERROR }` with a reasoning
    // span and message still open)
    group: "lifecycle",
    habit: "RUN_ERROR while a span and a reasoning message are open",
    rule: "R-RUN-11/13 D-RUN-ERROR",
    events: [
      RS,
      ev.reasoningStart("m-9"),
      ev.reasoningMessageStart("m-9"),
      ev.reasoningMessageContent("m-9", "partial"),
      ev.runError("provider overloaded"),
    ],
    outcome: "completed",
    values: [],
    messages: ["reasoning:m-9"],
    incomplete: ["message:m-9:abandoned"],
  },
];

/** The encrypted values a history holds, as `role id=value` and `tool-call id=value`, sorted. */
function valuesIn(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    const value = (m as { encryptedValue?: string }).encryptedValue;
    if (value !== undefined) out.push(`${m.role} ${m.id}=${value}`);
    const calls = (m as { toolCalls?: { id: string; encryptedValue?: string }[] }).toolCalls ?? [];
    for (const call of calls)
      if (call.encryptedValue !== undefined) out.push(`tool-call ${call.id}=${call.encryptedValue}`);
  }
  return out.sort();
}

const roleIds = (messages: readonly Message[]): string[] => messages.map((m) => `${m.role}:${m.id}`);
const incompleteOf = (items: readonly IncompleteItem[]): string[] => items.map((i) => `${i.kind}:${i.id}:${i.reason}`);

interface CheckReport {
  outcome?: string;
  error?: { code?: string } | null;
  warnings?: { code: string }[];
  history: { messages: Message[]; incomplete: IncompleteItem[] };
}

/** `agui-reasoning check --json --show-values -`, the stream given on stdin as JSON Lines. */
async function checkJson(events: readonly unknown[]): Promise<{ exit: number; report: CheckReport }> {
  const lines = await lastValueFrom(from(events.map((e) => `${JSON.stringify(e)}\n`)).pipe(toArray()));
  let stdout = "";
  const exit = await runCheck(["check", "--json", "--show-values", "-"], {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: () => true, isTTY: false },
    stdin: (async function* () {
      yield Buffer.from(lines.join(""), "utf8");
    })(),
  });
  return { exit, report: JSON.parse(stdout) as CheckReport };
}

const rowsOf = (group: Group): [string, Habit][] =>
  HABITS.filter((h) => h.group === group).map((h) => [`${h.habit} [${h.rule}]`, h]);

function throughFacade(_: string, habit: Habit): void {
  const run = runPipeline(habit.events);
  if (habit.outcome === "completed") expect(run.error).toBeUndefined();
  else {
    expect(isReasoningProtocolError(run.error)).toBe(true);
    expect((run.error as { code: string }).code).toBe(habit.code);
  }
  const codes = new Set(run.warnings.map((w) => w.code));
  for (const code of habit.warnings ?? []) expect(codes).toContain(code);
  expect(valuesIn(run.history.messages)).toEqual([...habit.values].sort());
  if (habit.messages) expect(roleIds(run.history.messages)).toEqual(habit.messages);
  if (habit.incomplete) expect(incompleteOf(run.history.incomplete)).toEqual(habit.incomplete);
}

async function throughCheck(_: string, habit: Habit): Promise<void> {
  const { exit, report } = await checkJson(habit.events);
  expect(report.outcome).toBe(habit.outcome);
  expect(exit).toBe(habit.outcome === "completed" ? 0 : 1);
  if (habit.outcome === "failed") expect(report.error?.code).toBe(habit.code);
  const codes = new Set((report.warnings ?? []).map((w) => w.code));
  for (const code of habit.warnings ?? []) expect(codes).toContain(code);
  expect(valuesIn(report.history.messages)).toEqual([...habit.values].sort());
  if (habit.messages) expect(roleIds(report.history.messages)).toEqual(habit.messages);
  if (habit.incomplete) expect(incompleteOf(report.history.incomplete)).toEqual(habit.incomplete);
}

describe("producer habits (hand-built streams; sources and rules in each row)", () => {
  it("every row names a habit, a rule id, and a verdict that fits its outcome", () => {
    expect(HABITS.length).toBeGreaterThanOrEqual(25);
    for (const h of HABITS) {
      expect(h.habit.length).toBeGreaterThan(0);
      expect(h.rule).toMatch(/(^|\s)(R-[A-Z]+-\d+|D-[A-Z]+|#\d+)/);
      expect(h.outcome === "failed").toBe(h.code !== undefined);
    }
  });

  describe("R-REASON-17/21 D-REPEAT D-CONTAIN: a value is stored on what it names, wherever in the run it comes", () => {
    it.each(rowsOf("stored"))("%s — through the facade", throughFacade);
    it.each(rowsOf("stored"))("%s — through `check --json`", throughCheck);
  });
  describe("R-REASON-22 D-UNKNOWN-ENTITY D-FORWARD: a value naming nothing known warns and is dropped", () => {
    it.each(rowsOf("unknown"))("%s — through the facade", throughFacade);
    it.each(rowsOf("unknown"))("%s — through `check --json`", throughCheck);
  });
  describe("R-REASON-11/12 R-TEXT-5 D-CONTAIN D-ROLE-CONFLICT: span and message ids as producers mint them", () => {
    it.each(rowsOf("ids"))("%s — through the facade", throughFacade);
    it.each(rowsOf("ids"))("%s — through `check --json`", throughCheck);
  });
  describe("R-SCHEMA-2 R-REASON-23 R-PROC-4: shapes the schema rejects stay fatal, whoever sends them", () => {
    it.each(rowsOf("fatal"))("%s — through the facade", throughFacade);
    it.each(rowsOf("fatal"))("%s — through `check --json`", throughCheck);
  });
  describe("R-STATE-4/5/6 R-REASON-20: snapshots producers send at the end of a run", () => {
    it.each(rowsOf("snapshot"))("%s — through the facade", throughFacade);
    it.each(rowsOf("snapshot"))("%s — through `check --json`", throughCheck);
  });
  describe("R-DEP-2/4 D-THINK-IDS R-PROC-2: retired THINKING_* shapes as producers still send them", () => {
    it.each(rowsOf("legacy"))("%s — through the facade", throughFacade);
    it.each(rowsOf("legacy"))("%s — through `check --json`", throughCheck);
  });
  describe("R-RUN-11/12 R-STREAM-5 R-SUB-2 R-PASS-1 R-TOOL-1: lifecycle and interleaving habits", () => {
    it.each(rowsOf("lifecycle"))("%s — through the facade", throughFacade);
    it.each(rowsOf("lifecycle"))("%s — through `check --json`", throughCheck);
  });
});
