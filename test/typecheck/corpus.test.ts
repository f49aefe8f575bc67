import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CatalogTool } from '../../src/catalog/types.js';
import { SkillsLibrary } from '../../src/skills/skills-library.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { ScriptChecker, type CheckOutcome } from '../../src/typecheck/script-checker.js';
import { ROOT } from '../support/mcp-client.js';
import { childPidsOf } from '../support/processes.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { published } from '../upstream/specs.js';
import { everythingCatalog } from './catalogs.js';
import { gatherCorpus, type CorpusScript } from './corpus.js';

const checker = new ScriptChecker({ timeLimitMs: 60_000 });
const catalogs = new Map<CorpusScript['catalog'], readonly CatalogTool[]>();
const dir = makeTempDir('typecheck-corpus');

/** examples/servers.json's upstreams, started for their real catalog: files__ and memory__ tools. */
async function serversCatalog(): Promise<readonly CatalogTool[]> {
  const hub = new UpstreamHub(
    [
      published('files', 'server-filesystem', [dir]),
      published('memory', 'server-memory', [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
    ],
    { log: () => {} },
  );
  try {
    await hub.start();
    return hub.catalog().tools;
  } finally {
    await hub.close();
  }
}

beforeAll(async () => {
  catalogs.set('everything', await everythingCatalog());
  catalogs.set('servers', await serversCatalog());
  catalogs.set('loose', []);
});

afterAll(async () => {
  await checker.close();
  rmSync(dir, { recursive: true, force: true });
  expect(childPidsOf(process.pid)).toEqual([]);
});

function checkScript(script: CorpusScript): Promise<CheckOutcome> {
  const catalog = catalogs.get(script.catalog)!;
  // A fixture's tools are the test's own: any name is callable, and typed loosely.
  const options = { mode: 'error' as const, unlisted: script.catalog === 'loose' ? [''] : [] };
  return script.skill === undefined
    ? checker.check(script.code, catalog, options)
    : checker.checkSkill({ code: script.code, language: script.skill.language }, catalog, options);
}

describe("the project's valid scripts pass the type check (no false refusals)", () => {
  const corpus = gatherCorpus();

  test('the corpus holds the examples, the README and docs blocks, and the tests’ and benches’ scripts', () => {
    const where = corpus.map((script) => script.where);
    expect(where).toEqual(expect.arrayContaining(['examples/scripts/notes-to-memory.js', 'examples/scripts/parallel-sums.js']));
    expect(where.some((w) => w.startsWith('README.md:'))).toBe(true);
    expect(where.some((w) => w.startsWith('bench/'))).toBe(true);
    expect(corpus.length).toBeGreaterThan(150);
  });

  test('every one of them passes', async () => {
    const refused: string[] = [];
    for (const script of corpus) {
      const outcome = await checkScript(script);
      if (outcome.kind !== 'passed') refused.push(`${script.where}: ${outcome.text}`);
    }
    expect(refused).toEqual([]);
  });

  test('the saved-skill fixtures pass as skills, their input typed from their schemas', async () => {
    const library = new SkillsLibrary(join(ROOT, 'test', 'fixtures', 'skills'));
    const { skills } = await library.readAll();
    expect(skills.length).toBeGreaterThan(0);
    for (const skill of skills) {
      const source = {
        code: skill.code,
        language: skill.language,
        ...(skill.inputSchema ? { inputSchema: skill.inputSchema } : {}),
      };
      expect(await checker.checkSkill(source, [], { mode: 'error' }), skill.name).toMatchObject({ kind: 'passed' });
    }
  });
});
