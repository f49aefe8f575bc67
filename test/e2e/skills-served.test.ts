import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, type HttpClient } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** A skill written by hand, as a person would: SKILL.md and skill.ts in a folder of its name. */
function writeSkill(dir: string, name: string, description: string, code: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(
    join(dir, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  input-schema: '{"type":"object"}'\n---\n# ${name}\n`,
  );
  writeFileSync(join(dir, name, 'skill.ts'), code);
}

// The resources upstream makes the session pass resources through, so skill:// reads share
// resources/read with an upstream's own.
describe('skills served through the MCP Skills extension, over stdio', () => {
  let server: InProcessServer;
  let skillsDir: string;

  beforeAll(async () => {
    skillsDir = makeTempDir('skills-served');
    writeSkill(skillsDir, 'greet', 'Greets someone by name', 'return `hello ${input.name}`;\n');
    mkdirSync(join(skillsDir, 'half-written'));
    writeFileSync(join(skillsDir, 'half-written', 'skill.js'), 'return 1;\n');
    // No script runs here: no pool.
    server = await startInProcess([
      '--pool',
      '0',
      '--skills-dir',
      skillsDir,
      '--',
      process.execPath,
      fixturePath('upstreams/resources.mjs'),
      'res',
      // Past one merged page, so the skills' place on the first page only shows.
      '120',
    ]);
  });
  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('an SDK client sees the extension, lists the skill and reads its files, each verified against its digest', async () => {
    const skills = new SkillsClient(server.client);
    expect(skills.supported).toBe(true);
    const listing = await skills.list();
    expect(listing.skills.map((skill) => skill.uri)).toEqual(['skill://greet/SKILL.md']);
    const [greet] = listing.skills;
    expect(greet?.frontmatter).toEqual({
      name: 'greet',
      description: 'Greets someone by name',
      metadata: { 'input-schema': '{"type":"object"}' },
    });
    const manifest = await skills.read(greet!);
    expect(manifest.verified).toBe(true);
    expect(manifest.body).toBe('# greet\n');
    const code = await skills.read(greet!, 'skill.ts');
    expect(code).toMatchObject({ verified: true, text: 'return `hello ${input.name}`;\n', mimeType: 'text/typescript' });
  });

  test('skills/get answers for one skill by its SKILL.md URI', async () => {
    const { skill } = await new SkillsClient(server.client).get('skill://greet/SKILL.md');
    expect(skill.frontmatter.name).toBe('greet');
  });

  test("the upstream's resources are listed and read beside the skills', the skills' first", async () => {
    const read = await server.client.readResource({ uri: 'test://static/a' });
    expect(read.contents[0]).toMatchObject({ uri: 'test://static/a' });
    // The SDK client walks every page: the skills' SKILL.md come first, once, then the upstream's all.
    const uris = (await server.client.listResources()).resources.map((resource) => resource.uri);
    expect(uris.slice(0, 3)).toEqual(['skill://greet/SKILL.md', 'test://static/a', 'test://static/b']);
    expect(uris.filter((uri) => uri.startsWith('skill://'))).toEqual(['skill://greet/SKILL.md']);
    expect(uris).toHaveLength(1 + 5 + 120);
    const templates = await server.client.listResourceTemplates();
    expect(templates.resourceTemplates[0]).toMatchObject({ uriTemplate: 'skill://{+path}' });
  });

  test('a skill edited by hand shows on the next list, with its new digest, without a restart', async () => {
    const skills = new SkillsClient(server.client);
    const before = (await skills.list()).skills[0]!;
    writeSkill(skillsDir, 'greet', 'Greets someone warmly', 'return `hello, dear ${input.name}`;\n');
    writeSkill(skillsDir, 'count', 'Counts the items given', 'return input.items.length;\n');
    const after = await skills.list();
    expect(after.skills.map((skill) => skill.uri)).toEqual(['skill://count/SKILL.md', 'skill://greet/SKILL.md']);
    const greet = after.skills[1]!;
    expect(greet.frontmatter.description).toBe('Greets someone warmly');
    expect(greet.resources).not.toEqual(before.resources);
    expect((await skills.read(greet, 'skill.ts')).text).toBe('return `hello, dear ${input.name}`;\n');
  });

  test('a folder that is not a usable skill is left out, and the log says once what is wrong with it', async () => {
    await new SkillsClient(server.client).list();
    const line =
      'skill folder "half-written" in ' +
      skillsDir +
      ' is not served: no SKILL.md: write one with name and description in its frontmatter';
    expect(server.stderr().split(line)).toHaveLength(2);
  });
});

// Over HTTP the session is made after the upstream has started, so it knows the upstream offers no
// resources: the resource methods are there for the skill files alone.
describe('skills served over HTTP when no upstream offers resources', () => {
  let server: InProcessHttpServer;
  let session: HttpClient;

  beforeAll(async () => {
    const skillsDir = makeTempDir('skills-http');
    writeSkill(skillsDir, 'greet', 'Greets someone by name', 'return `hello ${input.name}`;\n');
    server = await startInProcessHttp([
      '--pool',
      '0',
      '--skills-dir',
      skillsDir,
      '--',
      process.execPath,
      fixturePath('upstreams/named-tools.mjs'),
      'ping',
    ]);
    await server.logged(/upstreams: \S+ ready/);
    session = await connectHttp(server.url);
  });
  afterAll(async () => {
    await session.close();
    expect((await server.stop()).left).toEqual([]);
  });

  test('the session declares resources for the skill files, lists each SKILL.md, and serves the skill', async () => {
    expect(session.client.getServerCapabilities()?.resources).toEqual({});
    expect((await session.client.listResources()).resources).toEqual([
      { uri: 'skill://greet/SKILL.md', name: 'greet', description: 'Greets someone by name', mimeType: 'text/markdown' },
    ]);
    const skills = new SkillsClient(session.client);
    const [greet] = (await skills.list()).skills;
    expect(greet?.uri).toBe('skill://greet/SKILL.md');
    expect((await skills.read(greet!, 'skill.ts')).verified).toBe(true);
  });

  test('a URI that is no skill file is not found', async () => {
    await expect(session.client.readResource({ uri: 'skill://nobody/SKILL.md' })).rejects.toThrow(/not found/i);
    await expect(session.client.readResource({ uri: 'test://static/a' })).rejects.toThrow(/not found/i);
  });
});
