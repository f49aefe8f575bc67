/**
 * The OpenTelemetry MCP semantic conventions' names we emit (semantic-conventions, gen-ai/mcp.md).
 * Copied, as the conventions package advises for names still in development, rather than loading
 * its `incubating` entry; ours are under `codemode.`.
 */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
/** A JSON-RPC error answer's code, as a string; `error.type` is the same. */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tool result with `isError: true`. */
export const ERROR_TYPE_TOOL_ERROR = 'tool_error';

export const METRIC_MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';

export const ATTR_UPSTREAM = 'codemode.upstream.name';
/** A tool's name as scripts call it (`github__get_issue`), beside gen_ai.tool.name, the upstream's own. */
export const ATTR_SCRIPT_TOOL_NAME = 'codemode.tool.script_name';
export const ATTR_CALL_OUTCOME = 'codemode.call.outcome';
export const ATTR_SCRIPT_ID = 'codemode.script.id';
export const ATTR_SCRIPT_STATUS = 'codemode.script.status';
export const ATTR_SCRIPT_CODE = 'codemode.script.code';
export const ATTR_SCRIPT_CODE_SIZE = 'codemode.script.code.size';
export const ATTR_SCRIPT_CODE_SHA256 = 'codemode.script.code.sha256';
export const ATTR_SCRIPT_VALUE_SIZE = 'codemode.script.value.size';
/** `codemode.script.calls.answered`, `.tool_error`, `.refused`, `.failed`. */
export const ATTR_SCRIPT_CALLS_PREFIX = 'codemode.script.calls.';
/** The span of a script from its start to its ending. */
export const SCRIPT_SPAN_NAME = 'code_execution script';

export const METRIC_SCRIPTS_STARTED = 'codemode.scripts.started';
export const METRIC_SCRIPTS_ENDED = 'codemode.scripts.ended';
export const METRIC_SCRIPTS_RUNNING = 'codemode.scripts.running';
export const METRIC_CALLS = 'codemode.calls';

/** Script processes spawned, by ATTR_CHILD_WARM. */
export const METRIC_POOL_SPAWNED = 'codemode.pool.children.spawned';
/** From a script process's spawn until it is ready for a script, by ATTR_CHILD_WARM. */
export const METRIC_POOL_SPAWN_DURATION = 'codemode.pool.spawn.duration';
/** Script processes started ahead and not yet taken by a run. */
export const METRIC_POOL_SIZE = 'codemode.pool.size';
/** True for a child started ahead, into the pool; false for one started for a run that found the pool empty. */
export const ATTR_CHILD_WARM = 'codemode.child.warm';
