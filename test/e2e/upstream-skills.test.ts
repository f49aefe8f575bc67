// Skills an upstream offers through the MCP Skills extension are passed on to the client beside
// our own saved skills, as prompts are: listed, got and read (each file verified against its
// digest by the SDK's SkillsClient) under their own URIs; one at a URI ours serve is left out,
// said in the log. Over stdio (2025) and over HTTP to a 2026-07-28 client.
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';

const args = [
  '--pool',
  '0',
  '--skills-dir',
  fixturePath('skills'),
  '--',
  process.execPath,
  fixturePath('upstreams/skills-upstream.mjs'),
];

let httpServer: InProcessHttpServer | undefined;
afterAll(async () => {
  if (httpServer !== undefined) expect((await httpServer.stop()).left).toEqual([]);
});

async function connect(transport: string): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  if (transport === 'stdio') {
    const server = await startInProcess(args);
    return { client: server.client, stderr: () => server.stderr(), close: async () => expect(await server.close()).toEqual([]) };
  }
  httpServer ??= await startInProcessHttp(args);
  const connected = await connectHttp(httpServer.url, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const server = httpServer;
  return { client: connected.client, stderr: () => server.stderr(), close: () => connected.close() };
}

describe.each(['stdio', 'HTTP'])('over %s', (transport) => {
  test("an upstream's skills are listed after ours, got and read from it; one shadowed by ours is left out, said", async () => {
    const { client, stderr, close } = await connect(transport);
    const skills = new SkillsClient(client);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((skill) => [skill.uri, skill.frontmatter.description])).toEqual([
      ['skill://greet/SKILL.md', 'Greets someone by name'],
      ['skill://tidy-notes/SKILL.md', "Tidies a folder of notes (an upstream's skill)"],
    ]);
    const tidy = listing.skills[1]!;
    expect((await skills.get(tidy.uri)).skill).toEqual(tidy);
    const manifest = await skills.read(tidy);
    expect(manifest).toMatchObject({ verified: true, body: expect.stringContaining('Sort the notes by date') });
    expect(await skills.read(tidy, 'STEPS.md')).toMatchObject({
      verified: true,
      text: expect.stringContaining('1. List the notes.'),
    });
    expect(stderr()).toContain(
      'skill skill://greet/SKILL.md of upstream "skills-upstream" is not passed on: another skill is served at that URI',
    );
    await close();
  });
});
