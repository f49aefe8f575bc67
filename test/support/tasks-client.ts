/**
 * A 2026-07-28 client that takes MCP tasks (the Tasks extension), by hand over HTTP: the SDK's
 * 2.4 client refuses a `resultType: "task"` answer, so this one sends the requests as a
 * tasks-aware client would (the envelope in `_meta`, the standard headers, `Mcp-Name` with the
 * task id) and hands back each answer's `result` or `error`.
 */
import { until } from './waiting.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface RpcAnswer {
  readonly status: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export interface TasksClientOptions {
  /** Declares the Tasks extension on every request (default true). */
  readonly tasks?: boolean;
  readonly token?: string;
  /** More client capabilities (e.g. elicitation). */
  readonly capabilities?: Record<string, unknown>;
}

/** Which body field each method's `Mcp-Name` header mirrors (SEP-2243, SEP-2663). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export class TasksClient {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly options: TasksClientOptions = {},
  ) {}

  async request(method: string, params: Record<string, unknown> = {}): Promise<RpcAnswer> {
    const capabilities = {
      ...this.options.capabilities,
      ...(this.options.tasks !== false ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    };
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'tasks-client', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    };
    const field = NAME_FIELD[method];
    const name = field === undefined ? undefined : params[field];
    // code_execution's `script` is marked x-mcp-header: Script, so it travels as a header too.
    const script = (params.arguments as { script?: unknown } | undefined)?.script;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': method,
        ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
        ...(typeof script === 'string' ? { 'Mcp-Param-Script': script } : {}),
        ...(this.options.token !== undefined ? { Authorization: `Bearer ${this.options.token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params: { ...params, _meta: envelope } }),
    });
    const text = await response.text();
    const body = JSON.parse(sseData(text)) as Omit<RpcAnswer, 'status'>;
    return { status: response.status, ...body };
  }

  /** `code_execution` called with `args`: its result (a task, or a plain answer). */
  async codeExecution(args: Record<string, unknown>): Promise<Record<string, unknown>> {
    return resultOf(await this.request('tools/call', { name: 'code_execution', arguments: args }));
  }

  async getTask(taskId: string): Promise<Record<string, unknown>> {
    return resultOf(await this.request('tasks/get', { taskId }));
  }
}

/** Polls tasks/get until the task's status is one of `statuses`, and gives the task as it then was. */
export async function untilStatus(
  client: TasksClient,
  taskId: string,
  statuses: readonly string[],
): Promise<Record<string, unknown>> {
  let last: unknown;
  return until(
    `task ${taskId} to be ${statuses.join(' or ')}`,
    async () => {
      const task = await client.getTask(taskId);
      last = task.status;
      return statuses.includes(task.status as string) ? task : undefined;
    },
    () => `it is ${String(last)}`,
  );
}

/** The answer's result, or an error naming what came instead. */
export function resultOf(answer: RpcAnswer): Record<string, unknown> {
  if (answer.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(answer)}`);
  return answer.result;
}

/** A JSON body as is, or the data of an SSE stream's last message. */
function sseData(text: string): string {
  if (text.trimStart().startsWith('{')) return text;
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
  const last = data.at(-1);
  if (last === undefined) throw new Error(`no JSON in the answer: ${text.slice(0, 200)}`);
  return last;
}
