/** The saved skills beside the tools a script is given: found by searchTools, never callable as tools. */
import { describe, expect, it } from 'vitest';
import { scriptTools } from '../../src/script-host/script-tools.js';
import { entriesWithSkills } from '../../src/scripts/tool-entries.js';
import { toolEntries } from '../support/scripts.js';

describe('entriesWithSkills', () => {
  const tools = toolEntries('echo');

  it('adds each skill as an entry marked skill, the same array while neither list changes', () => {
    const skills = [{ name: 'word-count', description: 'Counts words' }];
    const list = entriesWithSkills(tools, skills);
    expect(list.slice(1)).toEqual([
      { name: 'word-count', description: 'Counts words', inputSchema: { type: 'object' }, declaration: '', skill: true },
    ]);
    expect(entriesWithSkills(tools, skills)).toBe(list);
    expect(entriesWithSkills(tools, [...skills])).not.toBe(list);
    expect(entriesWithSkills(tools, [])).toBe(tools);
  });

  it("keeps a skill's name out of the names the child may call as tools", () => {
    const given = scriptTools(entriesWithSkills(tools, [{ name: 'word-count', description: 'Counts words' }]));
    expect([...given.names]).toEqual(['echo']);
    expect(given.json).toContain('"skill":true');
  });
});
