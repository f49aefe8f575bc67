/**
 * The code_execution tool's input, defined once: a zod schema per action (run / wait / stop /
 * list) gives the parsed type, the fields each action takes, the refusal for each bad field, the
 * example input every refusal shows, and the JSON schema `tools/list` shows. Anything else is
 * refused with a message that says what is accepted; nothing runs.
 */
import * as z from 'zod';
import { describeInput, quoteInput } from '../../support/echo.js';
import type { ScriptCommand } from '../../scripts/owner-scripts.js';

/** An example script id, for messages and the listed schema. */
const EXAMPLE_SCRIPT_ID = 'a1b2c3-1';

const code = z
  .string({
    error: (issue) => `code must be a string of JavaScript (the body of an async function); got ${describeInput(issue.input)}.`,
  })
  .refine((text) => text.trim() !== '', 'code is empty: give the body of an async function, e.g. "return 1 + 1".')
  .meta({
    description: 'JavaScript, the body of an async function (top-level await; `return x` gives x). Starts a script.',
    examples: ['return 1 + 1'],
  });

/** yield_ms, checked against the server's maxYieldMs (the listed schema gives no maximum: it is a setting). */
function yieldMs(maxYieldMs: number | undefined) {
  const error = (issue: { input?: unknown }): string =>
    `yield_ms must be a whole number of milliseconds from 0 to ${maxYieldMs} (the server's maxYieldMs); got ${describeInput(issue.input)}.`;
  const field = z.int({ error }).min(0, { error });
  return (maxYieldMs === undefined ? field : field.max(maxYieldMs, { error })).meta({
    description: "Return by then with the output so far (the script keeps running). Default: the server's yieldMs",
    examples: [30_000],
  });
}

function scriptOf(action: 'wait' | 'stop') {
  const error = (issue: { input?: unknown }): string =>
    `${action} needs the script's id: {"action": "${action}", "script": "<id>"}; got ${describeInput(issue.input)}. ` +
    '{"action": "list"} shows this session\'s scripts.';
  // A refinement, not min(1): the listed schema stays as loose as it was, so "" reaches this refusal.
  return z
    .string({ error })
    .refine((id) => id !== '', { error: () => error({ input: '' }) })
    .meta({ description: 'The script id, for wait and stop', examples: [EXAMPLE_SCRIPT_ID] });
}

/** What each action is for, in the message that lists what is accepted. */
const PURPOSE = {
  run: 'to run a script',
  wait: 'to watch it again',
  stop: 'to stop it',
  list: "to list this session's scripts",
} as const;

/** Each action's own fields; past them, a field is refused by name. */
function actionSchemas(maxYieldMs: number | undefined) {
  const strict = <Shape extends Record<string, z.ZodType>>(action: keyof typeof PURPOSE, shape: Shape) =>
    z.strictObject(shape, {
      error: (issue): string | undefined => {
        if (issue.code !== 'unrecognized_keys') return undefined;
        const fields = Object.keys(shape)
          .map((key) => `"${key}"`)
          .join(', ');
        return `${action} takes ${fields}; not ${issue.keys.map(quoteInput).join(', ')}. ${ACCEPTED}.`;
      },
    });
  return {
    run: strict('run', { action: z.literal('run').optional(), code, yield_ms: yieldMs(maxYieldMs).optional() }),
    wait: strict('wait', { action: z.literal('wait'), script: scriptOf('wait'), yield_ms: yieldMs(maxYieldMs).optional() }),
    stop: strict('stop', { action: z.literal('stop'), script: scriptOf('stop') }),
    list: strict('list', { action: z.literal('list') }),
  };
}

type ActionSchemas = ReturnType<typeof actionSchemas>;
type CodeExecutionInput = {
  [A in keyof typeof PURPOSE]: z.output<ActionSchemas[A]> & { readonly action: A };
}[keyof typeof PURPOSE];

const ACTION_NAMES = Object.keys(PURPOSE) as Array<keyof typeof PURPOSE>;
const ACTION = z.enum(ACTION_NAMES);

/** `code_execution accepts {"code": "return 1 + 1", "yield_ms"?: 30000} to run a script; ...`, from the schemas' fields and examples. */
const ACCEPTED: string = `code_execution accepts ${Object.entries(actionSchemas(undefined))
  .map(([action, schema]) => `${exampleOf(schema.shape as Record<string, z.ZodType>)} ${PURPOSE[action as keyof typeof PURPOSE]}`)
  .join('; ')}`;

/** The JSON Schema keyword that asks a 2026-07-28 client to mirror a parameter in an HTTP header. */
const MCP_HEADER_KEY = 'x-mcp-header';

/** `script` travels as `Mcp-Param-Script`. */
const SCRIPT_HEADER = 'Script';

/**
 * The input as `tools/list` shows it: every field of every action, all optional and none
 * forbidden, so that bad input reaches our own refusal (which says what is accepted) rather
 * than a schema error from a client or the SDK; `yield_ms` says the server's maxYieldMs.
 */
export function codeExecutionInputSchema(maxYieldMs: number): { type: 'object'; [key: string]: unknown } {
  if (listedFor?.maxYieldMs !== maxYieldMs) listedFor = { maxYieldMs, schema: listedSchema(maxYieldMs) };
  return listedFor.schema;
}

/** Memoized per maxYieldMs, since a server has one. */
let listedFor: { maxYieldMs: number; schema: { type: 'object'; [key: string]: unknown } } | undefined;

function listedSchema(maxYieldMs: number): { type: 'object'; [key: string]: unknown } {
  const fields = Object.assign({}, ...Object.values(actionSchemas(undefined)).map((schema) => schema.shape)) as Record<
    string,
    z.ZodType
  >;
  const listed = z
    .object(fields)
    .partial()
    .extend({ action: ACTION.optional().describe('run (the default when code is given), wait or stop (with script), list') });
  const { $schema: _dialect, ...schema } = z.toJSONSchema(listed, { io: 'input' });
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  // A 2026-07-28 client sends the script's id as the Mcp-Param-Script header too (SEP-2243), so a
  // proxy can send a wait or stop to the instance that runs the script.
  properties.script = { ...properties.script, [MCP_HEADER_KEY]: SCRIPT_HEADER };
  properties.yield_ms = { ...properties.yield_ms, maximum: maxYieldMs };
  return { ...schema, type: 'object' };
}

export type Parsed = { readonly command: ScriptCommand } | { readonly refused: string };

/** Memoized per maxYieldMs, since a server has one. */
let schemasFor: { maxYieldMs: number; schemas: ActionSchemas } | undefined;

/** The command a code_execution call's arguments give, or why they give none (nothing runs). */
export function parseCommand(raw: unknown, maxYieldMs: number): Parsed {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return refuse(`the input must be an object. ${ACCEPTED}.`);
  const input = raw as Record<string, unknown>;
  const given = Object.hasOwn(input, 'action') ? input.action : Object.hasOwn(input, 'code') ? 'run' : undefined;
  if (given === undefined) return refuse(`nothing to do: ${ACCEPTED}.`);
  const action = ACTION.safeParse(given);
  if (!action.success) {
    return refuse(
      `action must be one of ${ACTION_NAMES.map((name) => `"${name}"`).join(', ')}; got ${describeInput(given)}. ${ACCEPTED}.`,
    );
  }
  if (schemasFor?.maxYieldMs !== maxYieldMs) schemasFor = { maxYieldMs, schemas: actionSchemas(maxYieldMs) };
  const parsed = schemasFor.schemas[action.data].safeParse(input);
  if (!parsed.success) {
    const { issues } = parsed.error;
    // A field the action doesn't take explains the most: it comes first.
    return refuse((issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0]!).message);
  }
  return { command: commandOf({ ...parsed.data, action: action.data } as CodeExecutionInput) };
}

function commandOf(input: CodeExecutionInput): ScriptCommand {
  switch (input.action) {
    case 'run':
      return { action: 'run', code: input.code, ...(input.yield_ms !== undefined ? { yieldMs: input.yield_ms } : {}) };
    case 'wait':
      return { action: 'wait', script: input.script, ...(input.yield_ms !== undefined ? { yieldMs: input.yield_ms } : {}) };
    case 'stop':
      return { action: 'stop', script: input.script };
    case 'list':
      return { action: 'list' };
  }
}

/** `{"action": "wait", "script": "a1b2c3-1", "yield_ms"?: 30000}`: required fields as they are, optional ones marked. */
function exampleOf(shape: Record<string, z.ZodType>): string {
  const fields = Object.entries(shape).flatMap(([key, field]) => {
    const optional = field.safeParse(undefined).success;
    if (key === 'action') return optional ? [] : [`"action": ${JSON.stringify((field as z.ZodLiteral).value)}`];
    const example = (optional ? ((field as z.ZodOptional).unwrap() as z.ZodType) : field).meta()?.examples;
    return [`"${key}"${optional ? '?' : ''}: ${JSON.stringify(Array.isArray(example) ? example[0] : null)}`];
  });
  return `{${fields.join(', ')}}`;
}

function refuse(message: string): Parsed {
  return { refused: message };
}
