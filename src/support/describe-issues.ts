/**
 * A schema's complaints about a message, as one sentence that names each field and says what it
 * must be: `params._meta.progressToken must be a string or a whole number; got an object`. The
 * SDK would print zod's issue list, a dump that also quotes keys the client sent, whole.
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/server';
import { describeInput, quoteInput } from './echo.js';

/** At most this many issues are described; the rest are counted. */
const MAX_DESCRIBED_ISSUES = 3;

/** The extra facts zod puts on an issue, read when present. */
interface IssueDetail {
  readonly code?: string;
  readonly expected?: string;
  readonly values?: readonly unknown[];
  readonly keys?: readonly string[];
  readonly errors?: ReadonlyArray<readonly IssueDetail[]>;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** The issues of `value`, in a sentence. */
export function describeIssues(issues: readonly StandardSchemaV1.Issue[], value: unknown): string {
  const described = issues.slice(0, MAX_DESCRIBED_ISSUES).map((issue) => describeIssue(issue, value));
  const more = issues.length - described.length;
  return described.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function describeIssue(issue: StandardSchemaV1.Issue, value: unknown): string {
  const path = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment));
  const where = path.length === 0 ? 'the message' : renderPath(path);
  const detail = issue as IssueDetail;
  if (detail.code === 'unrecognized_keys' && detail.keys !== undefined) {
    const keys = detail.keys.slice(0, MAX_DESCRIBED_ISSUES).map(quoteInput).join(', ');
    return `${where} has ${detail.keys.length === 1 ? 'a field' : 'fields'} it may not have: ${keys}${detail.keys.length > MAX_DESCRIBED_ISSUES ? ', …' : ''}`;
  }
  const got = describeInput(valueAt(value, path));
  const expected = expectedOf(detail);
  if (expected !== undefined) return `${where} must be ${expected}; got ${got}`;
  return `${where}: ${issue.message}; got ${got}`;
}

/** `a string or a whole number`, from an issue and the branches of a union. */
function expectedOf(detail: IssueDetail): string | undefined {
  if (detail.code === 'invalid_value' && detail.values !== undefined) {
    return `one of ${detail.values.map((option) => JSON.stringify(option)).join(', ')}`;
  }
  if (detail.code === 'invalid_type' && detail.expected !== undefined) return EXPECTED[detail.expected] ?? detail.expected;
  if (detail.code === 'invalid_union' && detail.errors !== undefined) {
    const options = detail.errors.map((branch) => (branch.length === 1 ? expectedOf(branch[0]!) : undefined));
    if (options.every((option) => option !== undefined)) return [...new Set(options)].join(' or ');
  }
  return undefined;
}

/** `params._meta.progressToken`, `params.arguments["a b"]`, `params.items[2]`. */
function renderPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const name = String(segment);
      if (/^[A-Za-z_$][\w$]*$/.test(name) && name.length <= 64) return index === 0 ? name : `.${name}`;
      return `[${quoteInput(name)}]`;
    })
    .join('');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const segment of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}
