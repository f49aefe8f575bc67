/**
 * The code_execution tool's input: run / wait / stop / list. Anything else is refused with a
 * message that says what is accepted; nothing runs.
 */

export type CodeExecutionInput =
  | { readonly action: 'run'; readonly code: string; readonly yieldMs: number | undefined }
  | { readonly action: 'wait'; readonly script: string; readonly yieldMs: number | undefined }
  | { readonly action: 'stop'; readonly script: string }
  | { readonly action: 'list' };

export type Parsed = { readonly input: CodeExecutionInput } | { readonly refused: string };

const ACCEPTED =
  'code_execution accepts {"code": "<JavaScript>", "yield_ms"?: n} to run a script, ' +
  '{"action": "wait", "script": "<id>", "yield_ms"?: n}, {"action": "stop", "script": "<id>"} ' +
  'or {"action": "list"}';

const FIELDS: Record<CodeExecutionInput['action'], readonly string[]> = {
  run: ['action', 'code', 'yield_ms'],
  wait: ['action', 'script', 'yield_ms'],
  stop: ['action', 'script'],
  list: ['action'],
};

export function parseInput(raw: unknown, maxYieldMs: number): Parsed {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return refuse(`the input must be an object. ${ACCEPTED}.`);
  const input = raw as Record<string, unknown>;
  const action = input.action ?? (input.code !== undefined ? 'run' : undefined);
  if (action === undefined) return refuse(`nothing to do: ${ACCEPTED}.`);
  if (typeof action !== 'string' || !(action in FIELDS)) {
    return refuse(`action must be one of "run", "wait", "stop", "list"; got ${describe(action)}. ${ACCEPTED}.`);
  }
  const known = FIELDS[action as CodeExecutionInput['action']];
  const stray = Object.keys(input).filter((key) => !known.includes(key));
  if (stray.length > 0) {
    return refuse(`${action} takes ${known.map((key) => `"${key}"`).join(', ')}; not ${stray.map((key) => `"${key}"`).join(', ')}. ${ACCEPTED}.`);
  }

  let yieldMs: number | undefined;
  if (input.yield_ms !== undefined) {
    const value = input.yield_ms;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > maxYieldMs) {
      return refuse(`yield_ms must be a whole number of milliseconds from 0 to ${maxYieldMs} (the server's maxYieldMs); got ${describe(value)}.`);
    }
    yieldMs = value;
  }

  switch (action) {
    case 'run':
      if (typeof input.code !== 'string') {
        return refuse(`code must be a string of JavaScript (the body of an async function); got ${describe(input.code)}.`);
      }
      if (input.code.trim() === '') return refuse('code is empty: give the body of an async function, e.g. "return 1 + 1".');
      return { input: { action: 'run', code: input.code, yieldMs } };
    case 'wait':
    case 'stop':
      if (typeof input.script !== 'string' || input.script === '') {
        return refuse(
          `${action} needs the script's id: {"action": "${action}", "script": "<id>"}; got ${describe(input.script)}. ` +
            '{"action": "list"} shows this session\'s scripts.',
        );
      }
      return action === 'wait'
        ? { input: { action, script: input.script, yieldMs } }
        : { input: { action, script: input.script } };
    default:
      return { input: { action: 'list' } };
  }
}

function refuse(message: string): Parsed {
  return { refused: message };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
