import { describe, expect, it } from 'vitest';
import { showBlocks } from '../../../engine/host/show.js';
import { recordingOutlet } from './recording-outlet.js';

describe('show', () => {
  it('sends the blocks within showMaxBytes', () => {
    const { outlet, sent } = recordingOutlet();
    const blocks = JSON.stringify([{ type: 'image', data: 'aGk=', mimeType: 'image/png' }]);
    expect(showBlocks(blocks, 1_000, outlet)).toBe('');
    expect(sent).toEqual([{ t: 'show', blocks }]);
  });

  it('names the first field that is not base64, and sends nothing', () => {
    const { outlet, sent } = recordingOutlet();
    const blocks = JSON.stringify([
      { type: 'text', text: 'a' },
      { type: 'resource', resource: { blob: 'not base64!' } },
    ]);
    expect(showBlocks(blocks, 1_000, outlet)).toBe('show(x): the resource.blob of block 2 is not base64; nothing was shown');
    expect(sent).toEqual([]);
  });

  it('refuses blocks past showMaxBytes, and everything when it is 0', () => {
    const { outlet, sent } = recordingOutlet();
    expect(showBlocks('[]', 1, outlet)).toMatch(/^show\(x\): the blocks are 2 bytes of JSON, past the 1 /);
    expect(showBlocks('[]', 0, outlet)).toBe('show(x): show is off on this server (its showMaxBytes setting is 0)');
    expect(sent).toEqual([]);
  });
});
