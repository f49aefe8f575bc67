/**
 * Script ids, and what they say about where a script runs. With `--instance-id a` an id is
 * `a.<processTag>-<n>`, so a load balancer routes a `wait` or `stop` (the `Mcp-Param-Script`
 * header) to the instance that runs the script by the `a.` prefix, as it routes session ids; without
 * one, `<processTag>-<n>`. The process tag, random per run, tells an id of an earlier run of this
 * instance from a typo. Anything built on a script id (`<script id>.<more>`) keeps its prefix.
 */
import { randomBytes } from 'node:crypto';

/** Tags this server process's script ids, so an id from an earlier run is told apart from a typo. */
export const PROCESS_TAG = randomBytes(3).toString('hex');

/** What every script id of this process starts with, before its number. */
export function scriptIdPrefix(instance: string | undefined): string {
  return `${instance !== undefined ? `${instance}.` : ''}${PROCESS_TAG}-`;
}

/** Whether `id` is shaped as this instance's script ids but was made by an earlier run of it. */
export function fromEarlierRun(id: string, self: string | undefined): boolean {
  const own = self !== undefined ? `${self}.` : '';
  if (!id.startsWith(own)) return false;
  const rest = id.slice(own.length);
  return /^[0-9a-f]{6}-\d+$/.test(rest) && !rest.startsWith(`${PROCESS_TAG}-`);
}
