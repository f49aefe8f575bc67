import { describe, expect, it } from 'vitest';
import { globToRegExp, isAllowedBy } from '../../src/config/tool-policy.js';

describe('tool-name globs', () => {
  it('matches * as any run of characters, none included', () => {
    const glob = globToRegExp('get_*');
    expect(['get_', 'get_issue', 'get_pull_request'].map((name) => glob.test(name))).toEqual([true, true, true]);
    expect(glob.test('list_get_issue')).toBe(false);
  });

  it('matches ? as exactly one character', () => {
    const glob = globToRegExp('list_?ssues');
    expect(glob.test('list_issues')).toBe(true);
    expect(glob.test('list_ssues')).toBe(false);
    expect(glob.test('list_xxssues')).toBe(false);
  });

  it('matches the whole name, case-sensitively', () => {
    expect(globToRegExp('read').test('read_file')).toBe(false);
    expect(globToRegExp('read').test('Read')).toBe(false);
  });

  it('takes every other character literally, regular-expression ones included', () => {
    const glob = globToRegExp('a.b+(c)[d]{e}|f^$\\/-g');
    expect(glob.test('a.b+(c)[d]{e}|f^$\\/-g')).toBe(true);
    expect(glob.test('aXb+(c)[d]{e}|f^$\\/-g')).toBe(false);
  });

  it('lets ? stand for one character outside the BMP', () => {
    expect(globToRegExp('x?y').test('x😀y')).toBe(true);
  });
});

describe('isAllowedBy', () => {
  it('allows every tool when there is no policy', () => {
    expect(isAllowedBy({}, 'delete_repository')).toBe(true);
  });

  it('allows only tools matching allow, when allow is given', () => {
    const policy = { allow: ['get_*', 'search_*'] };
    expect(isAllowedBy(policy, 'get_issue')).toBe(true);
    expect(isAllowedBy(policy, 'search_code')).toBe(true);
    expect(isAllowedBy(policy, 'create_issue')).toBe(false);
  });

  it('refuses tools matching deny, even when allow matches them', () => {
    const policy = { allow: ['*'], deny: ['delete_*', '*_secret'] };
    expect(isAllowedBy(policy, 'delete_repository')).toBe(false);
    expect(isAllowedBy(policy, 'get_secret')).toBe(false);
    expect(isAllowedBy(policy, 'get_issue')).toBe(true);
    expect(isAllowedBy({ deny: ['push_*'] }, 'push_files')).toBe(false);
    expect(isAllowedBy({ deny: ['push_*'] }, 'get_file')).toBe(true);
  });
});
