import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { CreatedTask } from './caller-tasks.js';

/** What a `tools/call` answers: a result, a request for the client's input (2026-07-28), or a task (caller-tasks.ts). */
export type ToolCallAnswer = CallToolResult | InputRequiredResult | CreatedTask;
