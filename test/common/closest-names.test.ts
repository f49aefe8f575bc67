import { describe, expect, it } from 'vitest';
import { closestHint, closestName, closestNames } from '../../common/closest-names.js';

describe('closest names: the one "did you mean" rule', () => {
  it('offers a name within two edits, case ignored', () => {
    expect(closestName('comand', ['type', 'command', 'args'])).toBe('command');
    expect(closestName('yieldMS', ['maxYieldMs', 'yieldMs'])).toBe('yieldMs');
    expect(closestName('Code_Execution', ['code_execution'])).toBe('code_execution');
  });

  it('offers nothing three edits away, nor for a name that only contains one', () => {
    expect(closestName('cmd', ['command'])).toBeNull();
    expect(closestName('search', ['github__search_issues'])).toBeNull();
    expect(closestName('inputs', ['mcpServers', 'servers', 'settings'])).toBeNull();
  });

  it('lists the nearest first, then in the order given, up to the limit', () => {
    expect(closestNames('echo', ['echoes', 'ech', 'Echo', 'eco'], 3)).toEqual(['Echo', 'ech', 'eco']);
    expect(closestNames('echo', ['echoes', 'ech', 'Echo', 'eco'], 1)).toEqual(['Echo']);
  });

  it('looks for none past 256 characters: an edit distance costs the product of the lengths', () => {
    const long = 'a'.repeat(257);
    expect(closestNames(long, [long], 1)).toEqual([]);
    expect(closestName('a'.repeat(256), ['a'.repeat(255)])).toBe('a'.repeat(255));
  });

  it('says the closest names as a sentence, or nothing', () => {
    expect(closestHint('ecko', ['echo', 'add'])).toBe(' Closest: "echo".');
    expect(closestHint('zzz', ['echo', 'add'])).toBe('');
  });
});
