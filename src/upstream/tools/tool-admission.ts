/**
 * The tools of one `tools/list` page, each checked on its own. The SDK's check of a whole page
 * walks every schema recursively: one tool with a 1,000-deep inputSchema threw "Maximum call stack
 * size exceeded" and took its whole upstream down, retried forever. Here a tool whose schema can't
 * be used (nested too deep, too large, not an object) is kept with a placeholder schema and a note
 * naming it: it stays callable (the upstream checks its arguments) and its siblings are untouched.
 *
 * "Can't be used" includes a schema that isn't valid MCP, since every tool we list (exposed, or in a
 * script's ALL_TOOLS) must be: an SDK 1.x client's `listTools()` throws on one bad tool, so that
 * client could not list `code_execution` either. MCP's rules are the stricter of the two SDK lines'.
 */
import { specTypeSchemas } from '@modelcontextprotocol/client';
import { describeInput } from '../../support/echo.js';
import { depthOf } from '../../../common/json-depth.js';
import { describeIssues } from '../../support/describe-issues.js';
import { scanParamHeaders } from '../../support/param-headers.js';

/** 64 levels of JSON nesting in a tool's inputSchema or outputSchema; deeper is replaced by a placeholder. */
export const SCHEMA_MAX_DEPTH = 64;

/** 512 KiB: a tool's inputSchema or outputSchema as JSON; larger is replaced by a placeholder. */
export const SCHEMA_MAX_BYTES = 512 * 1024;

/** What a script is shown for an inputSchema that can't be used: any arguments, checked by the upstream. */
export const PLACEHOLDER_INPUT_SCHEMA: ListedTool['inputSchema'] = Object.freeze({ type: 'object' });

/** A tool as the hub keeps it: the fields the catalog uses, and a note when a schema was replaced. */
export interface ListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { readonly [keyword: string]: unknown };
  readonly outputSchema?: { readonly [keyword: string]: unknown };
  /** As the upstream sent them, for a tool offered directly (`expose`). */
  readonly title?: string;
  readonly annotations?: { readonly [hint: string]: unknown };
  /** Whether a call may be (`optional`) or must be (`required`) an MCP task, as `execution.taskSupport` said. */
  readonly taskSupport?: TaskSupport;
  /** Why a schema was replaced, and what is shown instead. */
  readonly note?: string;
}

export type TaskSupport = 'optional' | 'required';

export interface AdmittedPage {
  readonly tools: ListedTool[];
  /** One line per entry left out (no name) or changed (a schema replaced), for the log. */
  readonly problems: string[];
}

export interface AdmitOptions {
  /**
   * Leave out a tool whose `x-mcp-header` marks break SEP-2243 (param-headers.ts): a client of
   * 2026-07-28 over Streamable HTTP must not call it.
   */
  readonly checkParamHeaders?: boolean;
}

/** Checks each entry of a page's `tools` array; never throws. */
export function admitTools(entries: readonly unknown[], options: AdmitOptions = {}): AdmittedPage {
  const tools: ListedTool[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const name = isObject(entry) ? entry.name : undefined;
    if (!isObject(entry) || typeof name !== 'string' || name === '') {
      problems.push(`tool #${index + 1} of the list has no name, so it can't be called; left out`);
      return;
    }
    const marks = options.checkParamHeaders === true ? scanParamHeaders(entry.inputSchema) : undefined;
    if (marks !== undefined && !marks.valid) {
      problems.push(`tool "${name}" is left out: its inputSchema's ${marks.reason} (SEP-2243), so it must not be called`);
      return;
    }
    const notes: string[] = [];
    const input = checkSchema(entry.inputSchema, 'inputSchema');
    const output = entry.outputSchema === undefined ? { schema: undefined } : checkSchema(entry.outputSchema, 'outputSchema');
    if ('problem' in input)
      notes.push(`${input.problem}, so it is shown as taking any arguments (the upstream still checks them)`);
    if ('problem' in output) notes.push(`${output.problem}, so its structuredContent is shown as unknown`);
    const annotations = checkAnnotations(entry.annotations);
    if ('problem' in annotations) notes.push(`${annotations.problem}, so it is listed without them`);
    const note = notes.length > 0 ? notes.join('; ') : undefined;
    if (note !== undefined) problems.push(`tool "${name}": ${note}`);
    tools.push({
      name,
      description: typeof entry.description === 'string' ? entry.description : '',
      inputSchema: 'schema' in input && input.schema !== undefined ? input.schema : PLACEHOLDER_INPUT_SCHEMA,
      ...('schema' in output && output.schema !== undefined ? { outputSchema: output.schema } : {}),
      ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
      ...('annotations' in annotations && annotations.annotations !== undefined ? { annotations: annotations.annotations } : {}),
      ...taskSupportOf(entry.execution),
      ...(note !== undefined ? { note } : {}),
    });
  });
  return { tools, problems };
}

/** `execution.taskSupport` when it offers tasks; `forbidden`, absent or anything else is none. */
function taskSupportOf(execution: unknown): { taskSupport?: TaskSupport } {
  const support = isObject(execution) ? execution.taskSupport : undefined;
  return support === 'optional' || support === 'required' ? { taskSupport: support } : {};
}

type Checked = { readonly schema: ListedTool['inputSchema'] | undefined } | { readonly problem: string };

function checkSchema(schema: unknown, field: 'inputSchema' | 'outputSchema'): Checked {
  if (!isObject(schema)) return { problem: `its ${field} is ${schema === undefined ? 'missing' : 'not a JSON Schema object'}` };
  // Iterative, and first: every later reader of the schema (JSON.stringify, the declaration) recurses.
  if (depthOf(schema, SCHEMA_MAX_DEPTH) > SCHEMA_MAX_DEPTH)
    return { problem: `its ${field} is nested deeper than ${SCHEMA_MAX_DEPTH} levels` };
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > SCHEMA_MAX_BYTES) return { problem: `its ${field} is ${bytes} bytes of JSON, past ${SCHEMA_MAX_BYTES}` };
  const problem = mcpSchemaProblem(schema);
  return problem === undefined ? { schema } : { problem: `its ${field} ${problem}` };
}

/**
 * What MCP requires of a tool's inputSchema and outputSchema at its root: `type: "object"`,
 * `properties` an object of schemas (objects: the SDK 1.x client refuses `true`), `required` a list
 * of names. Past the root it is JSON Schema, which MCP leaves to the tool.
 */
function mcpSchemaProblem(schema: Record<string, unknown>): string | undefined {
  if (schema.type !== 'object') return `has type ${describeInput(schema.type)}, where MCP requires "object"`;
  const { properties, required } = schema;
  if (properties !== undefined) {
    if (!isObject(properties)) return `has properties ${describeInput(properties)}, where MCP requires an object`;
    const bad = Object.entries(properties).find(([, property]) => !isObject(property));
    if (bad !== undefined)
      return `has property ${JSON.stringify(bad[0])} as ${describeInput(bad[1])}, where MCP requires a schema object`;
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) {
    return `has required ${describeInput(required)}, where MCP requires a list of property names`;
  }
  return undefined;
}

type CheckedAnnotations = { readonly annotations: Record<string, unknown> | undefined } | { readonly problem: string };

/** A tool's annotations as MCP types them (`readOnlyHint` true or false, ...), or why not. */
function checkAnnotations(annotations: unknown): CheckedAnnotations {
  if (annotations === undefined) return { annotations: undefined };
  if (!isObject(annotations)) return { problem: `its annotations are ${describeInput(annotations)}, not an object` };
  const checked = specTypeSchemas.ToolAnnotations['~standard'].validate(annotations);
  if (checked.issues !== undefined)
    return { problem: `its annotations aren't MCP's (${describeIssues(checked.issues, annotations)})` };
  // As sent: keys the schema doesn't know stay, as they do on the rest of the tool.
  return { annotations };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
