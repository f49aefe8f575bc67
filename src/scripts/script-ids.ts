/**
 * Script ids, and what they say about where a script runs. With `--instance-id a` an id is
 * `a.<processTag>-<n>`, so a load balancer routes a `wait` or `stop` (the `Mcp-Param-Script`
 * header) to the instance that runs the script by the `a.` prefix, as it routes session ids; without
 * one, `<processTag>-<n>`. The process tag, random per run, tells an id of an earlier run of this
 * instance from a typo. Anything built on a script id (`<script id>.<more>`) keeps its prefix, and
 * so does another kind of handle made with the same prefix and a word before its number
 * (`a.3fa9c1-call2`).
 */
import { randomBytes } from 'node:crypto';
import { INSTANCE_ID_PATTERN } from '../config/http-options.js';
import { quoteInput } from '../support/echo.js';

/** Tags this server process's script ids, so an id from an earlier run is told apart from a typo. */
export const PROCESS_TAG = randomBytes(3).toString('hex');

/** What every script id of this process starts with, before its number. */
export function scriptIdPrefix(instance: string | undefined): string {
  return `${instance !== undefined ? `${instance}.` : ''}${PROCESS_TAG}-`;
}

/** Scripts started by this process so far, whoever owns them: each id's number is unique in the server's logs. */
let scriptsStarted = 0;

/** The next script's id (`a.3fa9c1-12`), unique in this process across sessions and principals. */
export function nextScriptId(instance: string | undefined): string {
  return `${scriptIdPrefix(instance)}${++scriptsStarted}`;
}

/** `<process tag>-<n>` (or `-call<n>`, another kind of handle), alone or with `.<more>` after it. */
const AFTER_INSTANCE = '[0-9a-f]{6}-[a-z]*\\d+(?:\\.|$)';

/** `a.3fa9c1-4`, or a handle built on one (`a.3fa9c1-4.<more>`): the instance is the first group. */
const INSTANCE_SCRIPT_ID = new RegExp(`^(${INSTANCE_ID_PATTERN})\\.${AFTER_INSTANCE}`);

/** `a.3fa9c1-4` → `a`; undefined for any other shape. */
function instanceOf(id: string): string | undefined {
  return INSTANCE_SCRIPT_ID.exec(id)?.[1];
}

/**
 * The answer to an id that names an instance other than this one (`self`, its --instance-id): a
 * `wait` or `stop` for `b.…` reaching instance `a`, because `b` is gone (stopped, crashed,
 * redeployed) or the load balancer could not reach it and sent the request elsewhere. Undefined
 * when the id is this instance's own or names no instance.
 */
export function foreignInstance(id: string, self: string | undefined): string | undefined {
  const instance = instanceOf(id);
  if (instance === undefined || instance === self) return undefined;
  return (
    `script ${quoteInput(id)} was started on instance ${quoteInput(instance)}, which is gone or unreachable ` +
    `(this is ${self !== undefined ? `instance ${quoteInput(self)}` : 'an instance without --instance-id'}): ` +
    'how the script ended is unknown, and its output went with that instance. Run the script again.'
  );
}

/** Whether `id` (or a handle built on it) is shaped as this instance's script ids but was made by an earlier run of it. */
export function fromEarlierRun(id: string, self: string | undefined): boolean {
  const own = self !== undefined ? `${self}.` : '';
  if (!id.startsWith(own)) return false;
  const rest = id.slice(own.length);
  return new RegExp(`^${AFTER_INSTANCE}`).test(rest) && !rest.startsWith(`${PROCESS_TAG}-`);
}
