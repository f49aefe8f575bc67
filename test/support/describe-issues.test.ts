import * as z from 'zod';
import { describe, expect, test } from 'vitest';
import { describeIssue, describeIssues, pickIssue } from '../../src/support/describe-issues.js';

const schema = z.strictObject({
  command: z.string(),
  level: z.enum(['debug', 'info']),
  token: z.union([z.string(), z.int()]),
});

function issuesOf(value: unknown): z.core.$ZodIssue[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected issues');
  return parsed.error.issues;
}

describe("a schema's issues in a sentence", () => {
  test('by default, each names the field and what it must be, then quotes back what was found', () => {
    const value = { command: 42, level: 'loud', token: {} };
    expect(describeIssues(issuesOf(value), value)).toBe(
      'command must be a string; got number 42; level must be one of "debug", "info"; got "loud"; ' +
        'token must be a string or a number; got an object',
    );
  });

  test("in a config file's wording, the path goes on from where the value sits and what was found is its type", () => {
    const value = { command: 42, level: 'loud', token: 'x' };
    const wording = { at: ['mcpServers', 'github'], got: 'type' } as const;
    expect(issuesOf(value).map((issue) => describeIssue(issue, value, wording))).toEqual([
      'mcpServers.github.command must be a string (got number)',
      'mcpServers.github.level must be one of "debug", "info" (got "loud")',
    ]);
    expect(describeIssue(issuesOf({ level: 'info', token: 1 })[0]!, {}, wording)).toBe('mcpServers.github.command is required');
  });

  test('an unknown key comes first, with the closest key taken when the keys are known', () => {
    const value = { comand: 'x', level: 'info', token: 1 };
    const issue = pickIssue(issuesOf(value))!;
    expect(describeIssue(issue, value, { keysTaken: ['command', 'level', 'token'] })).toBe(
      'the message has unknown key "comand" (did you mean "command"?); it takes command, level, token',
    );
    expect(describeIssue(issue, value)).toBe('the message has a field it may not have: "comand"');
  });
});
