import type { z } from 'zod';
import { closestName } from '../../common/closest-names.js';
import { formatConfigPath, type ConfigPath } from './config-error.js';
import { valueType } from '../support/echo.js';

type Issue = z.core.$ZodIssue;

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

/**
 * One zod issue as the user should read it: `mcpServers.github.args[1] must be a string (got number)`.
 * `base` is the path of the value that was parsed; `input` that value, to say what was found.
 * `keysTaken` lists what the object takes, for unknown keys.
 */
export function formatIssue(issue: Issue, base: ConfigPath, input: unknown, keysTaken: readonly string[]): string {
  const path = formatConfigPath([...base, ...issue.path.map(pathSegment)]);
  const found = valueAt(input, issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      const guess = closestName(key, keysTaken);
      const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
      return `${path} has unknown key "${key}"${hint}; it takes ${keysTaken.join(', ')}`;
    }
    case 'invalid_type':
      if (found === undefined) return `${path} is required`;
      return `${path} must be ${EXPECTED[issue.expected] ?? issue.expected} (got ${valueType(found)})`;
    case 'invalid_value':
      return `${path} must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')} (got ${JSON.stringify(found)})`;
    default:
      return `${path} ${issue.message}`;
  }
}

/** The issue to report when there are several: an unknown key first, since it usually explains the rest (a typo). */
export function pickIssue(issues: readonly Issue[]): Issue | undefined {
  return issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0];
}

function pathSegment(key: PropertyKey): string | number {
  return typeof key === 'number' ? key : String(key);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
