import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PASSED_ENV_VARS } from '../../src/upstream/transport/environment.js';

const read = (page: string): string => readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');

// docs/config.md once said the upstream after `--` got "no extra environment" while
// docs/upstreams.md named the proxy and CA variables it does get.
describe("the docs on a stdio upstream's environment", () => {
  it.each(['docs/config.md', 'docs/upstreams.md'])('%s names every proxy and CA variable passed on', (page) => {
    const doc = read(page);
    expect(PASSED_ENV_VARS.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it.each(['README.md', 'docs/config.md', 'docs/upstreams.md'])('%s never says an upstream gets no environment', (page) => {
    expect(read(page)).not.toMatch(/no (extra |other )?environment/i);
  });
});
