import { describe, expect, test } from 'vitest';
import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_QUERY_MAX_CHARS,
  SEARCH_QUERY_MAX_WORDS,
  searchQueryProblem,
  searchTools,
} from '../../common/search-tools.js';
import { stem, tokenize } from '../../common/words.js';

const GITHUB = [
  { name: 'github__create_issue', description: 'Create a new issue in a GitHub repository.' },
  { name: 'github__list_issues', description: 'List issues in a GitHub repository, with filters.' },
  { name: 'github__create_pull_request', description: 'Create a new pull request.' },
  { name: 'github__search', description: 'Search code, issues and users across GitHub.' },
  { name: 'github__search_code', description: 'Search for code across repositories.' },
  { name: 'github__get_repo', description: 'Get a repository by owner and name.' },
  { name: 'github__list_repositories', description: 'List repositories for a user.' },
  { name: 'slack__post_message', description: 'Post a message to a Slack channel.' },
  { name: 'fs__read_file', description: 'Read the complete contents of a file from the file system.' },
  { name: 'fs__read_multiple_files', description: 'Read several files at once.' },
];

function namesOf(query: string, limit?: number): string[] {
  return searchTools(GITHUB, query, limit).map((hit) => hit.name);
}

describe('tokenize', () => {
  test('splits camelCase, snake_case, kebab-case, server__tool and punctuation into lowercase words', () => {
    expect(tokenize('github__createPullRequest')).toEqual(['github', 'create', 'pull', 'request']);
    expect(tokenize('HTTPServer_v2-list')).toEqual(['http', 'server', 'v2', 'list']);
    expect(tokenize('get-sum, s3Bucket.ls')).toEqual(['get', 'sum', 's3', 'bucket', 'ls']);
    expect(tokenize('Größe ändern')).toEqual(['größe', 'ändern']);
    expect(tokenize('  ')).toEqual([]);
  });
});

describe('stem', () => {
  test('brings the forms of a word together', () => {
    for (const group of [
      ['deploy', 'deploys', 'deployed', 'deploying', 'deployment', 'deployments'],
      ['create', 'creates', 'created', 'creating', 'creation'],
      ['directory', 'directories'],
      ['issue', 'issues'],
      ['run', 'running', 'runs'],
      ['user', 'users'],
      ['box', 'boxes'],
    ]) {
      expect(new Set(group.map(stem)), group.join(' ')).toHaveProperty('size', 1);
    }
  });

  test('leaves short words and words that only look plural as they are', () => {
    expect(stem('status')).toBe('status');
    expect(stem('access')).toBe('access');
    expect(stem('gas')).toBe('gas');
    expect(stem('add')).toBe('add');
  });
});

describe('searchTools', () => {
  test('ranks an exact name first, however the query spells it', () => {
    for (const query of ['github__search', 'github search', 'GithubSearch']) {
      expect(namesOf(query)[0], query).toBe('github__search');
    }
    const sums = [
      { name: 'get-sum-of-squares', description: 'Returns the sum of squares' },
      { name: 'get-sum', description: 'Returns the sum of two numbers' },
      { name: 'sum', description: 'Adds' },
    ];
    expect(searchTools(sums, 'get_sum')[0]?.name).toBe('get-sum');
    expect(searchTools(sums, 'getSum')[0]?.name).toBe('get-sum');
  });

  test('ranks the tool named after server__ first when the query is that name', () => {
    expect(namesOf('search')[0]).toBe('github__search');
    expect(namesOf('search').slice(0, 2)).toEqual(['github__search', 'github__search_code']);
  });

  test('ranks a name match above a description match', () => {
    const tools = [
      { name: 'notes', description: 'Stores issue notes.' },
      { name: 'issue', description: 'Opens it.' },
    ];
    expect(searchTools(tools, 'issue').map((h) => h.name)).toEqual(['issue', 'notes']);
  });

  test('counts a prefix match less than a whole word', () => {
    const tools = [
      { name: 'list_repositories', description: '' },
      { name: 'repo_info', description: '' },
    ];
    const hits = searchTools(tools, 'repo');
    expect(hits.map((h) => h.name)).toEqual(['repo_info', 'list_repositories']);
    expect(hits[1]?.score).toBeGreaterThan(0);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
  });

  test('favours a tool whose name holds every word of the query', () => {
    expect(namesOf('create issue')[0]).toBe('github__create_issue');
    expect(namesOf('read files')[0]).toBe('fs__read_multiple_files');
    expect(namesOf('list repos')[0]).toBe('github__list_repositories');
  });

  test('finds a tool by its description alone', () => {
    expect(namesOf('slack channel')[0]).toBe('slack__post_message');
    expect(namesOf('contents')).toEqual(['fs__read_file']);
  });

  test('returns only scoring tools, best first, each with its summary, at most limit of them', () => {
    expect(namesOf('nothing matches this')).toEqual([]);
    const hits = searchTools(GITHUB, 'issues');
    expect(hits.map((h) => h.name)).toEqual(['github__list_issues', 'github__create_issue', 'github__search']);
    expect(hits[0]).toEqual({
      name: 'github__list_issues',
      description: 'List issues in a GitHub repository, with filters',
      score: expect.any(Number),
    });
    for (let i = 1; i < hits.length; i += 1) expect(hits[i - 1]?.score).toBeGreaterThanOrEqual(hits[i]?.score ?? 0);
    expect(namesOf('github', 2)).toHaveLength(2);
    expect(namesOf('github', 0)).toEqual([]);
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `tool_${i}`, description: 'x' }));
    expect(searchTools(many, 'tool')).toHaveLength(SEARCH_DEFAULT_LIMIT);
  });

  test('gives the same answer whatever the order of the tools, breaking ties by name', () => {
    const reversed = [...GITHUB].reverse();
    for (const query of ['github', 'create', 'read', 'repository', 'search code']) {
      expect(searchTools(reversed, query), query).toEqual(searchTools(GITHUB, query));
    }
    const ties = searchTools([{ name: 'b_tool' }, { name: 'a_tool' }, { name: 'c_tool' }], 'tool');
    expect(ties.map((h) => h.name)).toEqual(['a_tool', 'b_tool', 'c_tool']);
  });

  test('ignores stop words unless the query has nothing else', () => {
    expect(namesOf('a file from the file system')[0]).toBe('fs__read_file');
    expect(searchTools([{ name: 'the', description: '' }], 'the').map((h) => h.name)).toEqual(['the']);
  });

  test('matches the forms of a word: deploy finds a deployment tool, and a deployment query a deploy tool', () => {
    const tools = [
      { name: 'projects_list_deployments', description: 'List deployments of a project.' },
      { name: 'ship', description: 'Deploys the current build.' },
      { name: 'projects_list_tasks', description: 'List tasks.' },
    ];
    expect(searchTools(tools, 'deploy').map((h) => h.name)).toEqual(['projects_list_deployments', 'ship']);
    expect(searchTools(tools, 'deployment')[0]?.name).toBe('projects_list_deployments');
    expect(searchTools(tools, 'deployed').map((h) => h.name)).toContain('ship');
  });

  test("matches the words of a tool's parameter names and descriptions, below its name and description", () => {
    const tools = [
      {
        name: 'send',
        description: 'Sends a message.',
        inputSchema: {
          type: 'object',
          properties: {
            channelId: { type: 'string', description: 'The Slack workspace room' },
            attachments: { type: 'array', items: { type: 'object', properties: { mimeType: { type: 'string' } } } },
          },
        },
      },
      { name: 'channel_info', description: 'Describes a channel.' },
    ];
    expect(searchTools(tools, 'channel').map((h) => h.name)).toEqual(['channel_info', 'send']);
    expect(searchTools(tools, 'workspace').map((h) => h.name)).toEqual(['send']);
    expect(searchTools(tools, 'mime type').map((h) => h.name)).toEqual(['send']);
    expect(searchTools(tools, 'attachment')[0]?.name).toBe('send');
  });

  test('shows a deprecated tool as deprecated in its hit', () => {
    const tools = [
      { name: 'read_file', description: 'Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.' },
    ];
    expect(searchTools(tools, 'read file')[0]?.description).toMatch(/^DEPRECATED: Use read_text_file instead/);
  });

  test('takes odd input without throwing', () => {
    expect(searchTools(GITHUB, '')).toEqual([]);
    expect(searchTools(GITHUB, '   ')).toEqual([]);
    expect(searchTools([], 'x')).toEqual([]);
    expect(searchTools(GITHUB, 'issue', Number.NaN)).toHaveLength(3);
    const odd = [null, 42, { name: 7 }, { name: 'ok_tool' }, { name: 'described', description: 5 }] as unknown as {
      name: string;
    }[];
    expect(searchTools(odd, 'ok tool').map((h) => h.name)).toEqual(['ok_tool']);
    expect(searchTools(GITHUB, 42 as unknown as string)).toEqual([]);
  });

  test('finds the one tool among 2,000 with long descriptions', () => {
    const tools = Array.from({ length: 2_000 }, (_, i) => ({
      name: `server${i % 7}__tool_number_${i}`,
      description: `Does thing ${i}. `.repeat(200),
    }));
    const hits = searchTools(tools, 'tool number 1999');
    expect(hits[0]?.name).toBe('server4__tool_number_1999');
  });
});

// Regression: a 1 MB query over 3,000 tools ran 78 s in the script's child; the query is bounded.
describe('the bounds of a query', () => {
  const many = Array.from({ length: 3_000 }, (_, i) => ({ name: `tool_${i}`, description: `does thing number ${i} well` }));

  test.each([
    ['a megabyte of one word', 'a'.repeat(1_000_000), /the query is 1000000 characters, past 1000/],
    ['one character past the length', 'x'.repeat(SEARCH_QUERY_MAX_CHARS + 1), /past 1000; search with a few words/],
    [
      'one word past the count',
      Array.from({ length: SEARCH_QUERY_MAX_WORDS + 1 }, (_, i) => `w${i}`).join(' '),
      /the query has 33 distinct words, past 32/,
    ],
    [
      'many words, stop words included',
      'the a an of to in on at by '.repeat(5) + Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '),
      /distinct words, past 32/,
    ],
  ])('%s is refused with a RangeError that says the bound', (_name, query, message) => {
    expect(searchQueryProblem(query)).toMatch(message);
    expect(() => searchTools(many, query)).toThrow(RangeError);
    expect(() => searchTools(many, query)).toThrow(message);
  });

  test('a query at both bounds is searched', () => {
    const words = Array.from({ length: SEARCH_QUERY_MAX_WORDS }, (_, i) => `${i}`).join(' ');
    expect(searchQueryProblem(words)).toBeUndefined();
    expect(searchTools(many, words).length).toBeGreaterThan(0);
    const long = `thing ${'x'.repeat(SEARCH_QUERY_MAX_CHARS - 6)}`;
    expect(long).toHaveLength(SEARCH_QUERY_MAX_CHARS);
    expect(searchTools(many, long)[0]?.name).toMatch(/^tool_/);
  });
});
