import { describe, expect, it } from 'vitest';
import { globToRegExp, isToolAllowed } from '../../src/config/tool-policy.js';

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

describe('isToolAllowed', () => {
  it('allows every tool when there is no policy', () => {
    expect(isToolAllowed({}, 'delete_repository')).toBe(true);
  });

  it('allows only tools matching allow, when allow is given', () => {
    const policy = { allow: ['get_*', 'search_*'] };
    expect(isToolAllowed(policy, 'get_issue')).toBe(true);
    expect(isToolAllowed(policy, 'search_code')).toBe(true);
    expect(isToolAllowed(policy, 'create_issue')).toBe(false);
  });

  it('refuses tools matching deny, even when allow matches them', () => {
    const policy = { allow: ['*'], deny: ['delete_*', '*_secret'] };
    expect(isToolAllowed(policy, 'delete_repository')).toBe(false);
    expect(isToolAllowed(policy, 'get_secret')).toBe(false);
    expect(isToolAllowed(policy, 'get_issue')).toBe(true);
    expect(isToolAllowed({ deny: ['push_*'] }, 'push_files')).toBe(false);
    expect(isToolAllowed({ deny: ['push_*'] }, 'get_file')).toBe(true);
  });
});
