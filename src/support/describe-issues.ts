/**
 * A schema's complaints about a value, as one sentence that names each field and says what it
 * must be: `params._meta.progressToken must be a string or a whole number; got an object`. The one
 * describer of zod's issues, for a message's params, an upstream's answer and a config file's
 * entries alike. The SDK would print zod's issue list, a dump that also quotes keys the client
 * sent, whole.
 */
import { closestName } from '../../common/closest-names.js';
import { describeInput, quoteInput, valueType } from './echo.js';
import { formatPath, valueAt } from './value-path.js';

/** At most this many issues are described; the rest are counted. */
const MAX_DESCRIBED_ISSUES = 3;

/** An issue as a Standard Schema (the SDK's) or zod gives it: the extra facts zod adds are read when present. */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  readonly code?: string;
  readonly expected?: string;
  readonly values?: readonly unknown[];
  readonly keys?: readonly string[];
  readonly errors?: ReadonlyArray<readonly SchemaIssue[]>;
}

/** What the sentence may add, and how it reads. */
export interface IssueWording {
  /** Where the described value sits (`['mcpServers', 'github']`): each issue's path goes on from there. */
  readonly at?: readonly PropertyKey[];
  /** The keys the object takes: an unknown key is then named with the closest of them, and the list. */
  readonly keysTaken?: readonly string[];
  /**
   * `value` (the default): what was found is quoted back after a semicolon, `; got number 1.5`, and
   * a schema's own message follows a colon. `type`: as a config file's other messages read, its
   * JSON type in parentheses, `(got number)`, a missing field "is required", and a schema's own
   * message is the rest of the sentence (the config's schemas word theirs so: `must not be empty`).
   */
  readonly got?: 'value' | 'type';
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  null: 'null',
};

/** The issues of `value`, in a sentence: the first few, and how many more. */
export function describeIssues(issues: readonly SchemaIssue[], value: unknown, wording: IssueWording = {}): string {
  const described = issues.slice(0, MAX_DESCRIBED_ISSUES).map((issue) => describeIssue(issue, value, wording));
  const more = issues.length - described.length;
  return described.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/** The issue to report when only one is: an unknown key first, since it usually explains the rest (a typo). */
export function pickIssue<Issue extends SchemaIssue>(issues: readonly Issue[]): Issue | undefined {
  return issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0];
}

/** One issue of `value`: `mcpServers.github.args[1] must be a string (got number)`, `params must be an object; got "x"`. */
export function describeIssue(issue: SchemaIssue, value: unknown, wording: IssueWording = {}): string {
  const path = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment));
  const where = formatPath([...(wording.at ?? []), ...path], 'the message');
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    return `${where} ${unknownKeys(issue.keys, wording.keysTaken)}`;
  }
  const found = valueAt(value, path);
  const expected = expectedOf(issue);
  if (wording.got !== 'type') {
    const got = describeInput(found);
    return expected === undefined ? `${where}: ${issue.message}; got ${got}` : `${where} must be ${expected}; got ${got}`;
  }
  if (expected === undefined) return `${where} ${issue.message}`;
  if (found === undefined) return `${where} is required`;
  const got = issue.code === 'invalid_value' && typeof found === 'string' ? quoteInput(found) : valueType(found);
  return `${where} must be ${expected} (got ${got})`;
}

/** `has unknown key "comand" (did you mean "command"?); it takes ...` with the keys it takes; else the keys given. */
function unknownKeys(keys: readonly string[], keysTaken: readonly string[] | undefined): string {
  if (keysTaken !== undefined) {
    const key = keys[0] ?? '';
    const guess = closestName(key, keysTaken);
    const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
    return `has unknown key ${quoteInput(key)}${hint}; it takes ${keysTaken.join(', ')}`;
  }
  const named = keys.slice(0, MAX_DESCRIBED_ISSUES).map(quoteInput).join(', ');
  return `has ${keys.length === 1 ? 'a field' : 'fields'} it may not have: ${named}${keys.length > MAX_DESCRIBED_ISSUES ? ', …' : ''}`;
}

/** `a string or a whole number`, `one of "debug", "info"`, from an issue and the branches of a union. */
function expectedOf(issue: SchemaIssue): string | undefined {
  if (issue.code === 'invalid_value' && issue.values !== undefined) {
    const options = issue.values.map((option) => JSON.stringify(option));
    return options.length === 1 ? options[0] : `one of ${options.join(', ')}`;
  }
  if (issue.code === 'invalid_type' && issue.expected !== undefined) return EXPECTED[issue.expected] ?? issue.expected;
  if (issue.code === 'invalid_union' && issue.errors !== undefined) {
    const options = issue.errors.map((branch) => (branch.length === 1 ? expectedOf(branch[0]!) : undefined));
    if (options.every((option) => option !== undefined)) return [...new Set(options)].join(' or ');
  }
  return undefined;
}
