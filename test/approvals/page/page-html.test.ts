import { describe, expect, it } from 'vitest';
import { PAGE_CALLS_SHOWN, PAGE_CSP, renderEnded, renderQuestion, renderUnknown } from '../../../src/approvals/page/page-html.js';
import type { PageLink } from '../../../src/approvals/page/page-links.js';

function linkFor(calls: readonly string[], tool: PageLink['question']['tool'] = { name: 'fs__delete_file' }): PageLink {
  return {
    digest: '3fa9c1d2e4b5',
    question: { script: 'a1b2c3-1', principal: 'alice', owner: 'principal alice', tool, calls: () => calls },
    issuedAt: 0,
    expiresAt: 600_000,
    decided: new Promise(() => {}),
  };
}

const calls = (count: number) => Array.from({ length: count }, (_, i) => JSON.stringify({ path: `file-${i}.txt` }));

describe("the approval page's HTML", () => {
  it(`shows a batch's first ${PAGE_CALLS_SHOWN} calls whole, then how many more, and counts them all`, () => {
    const all = calls(PAGE_CALLS_SHOWN + 50);
    const html = renderQuestion({ link: linkFor(all), calls: all, bound: 'b', formToken: 'f', now: 12_000 });
    expect(html.match(/<section>/g)).toHaveLength(PAGE_CALLS_SHOWN);
    expect(html).toContain(`<h2>Call ${PAGE_CALLS_SHOWN} of 150</h2>`);
    expect(html).toContain('file-99.txt');
    expect(html).not.toContain('file-100.txt');
    expect(html).toContain('<strong>and 50 more calls of fs__delete_file</strong>, not shown here');
    expect(html).toContain('<dt>Calls</dt><dd>150</dd>');
    expect(html).toContain('<dt>Waiting for</dt><dd>12 s when this page was made</dd>');
    expect(html).toContain('<dt>Answer within</dt><dd>9 min 48 s; then the calls are refused</dd>');
    expect(html).toContain('<button class="deny" name="choice" value="deny">Deny all 150 calls</button>');
  });

  it("escapes an upstream's title and annotations, showing the characters that would draw lines of their own", () => {
    const tool = {
      name: 'fs__delete_file',
      title: 'Delete\nAnnotations: readOnlyHint.\u202E',
      annotations: { '<b>readOnlyHint</b>': true, destructiveHint: true },
    };
    const html = renderQuestion({ link: linkFor(calls(1), tool), calls: calls(1), bound: 'b', formToken: 'f', now: 0 });
    expect(html).not.toContain('\n\nAnnotations: readOnlyHint.');
    expect(html).not.toContain('\u202E');
    expect(html).toContain(
      'Delete<span class="hidden-char" title="a character that does not show">\\u000a</span>Annotations: readOnlyHint.',
    );
    expect(html).toContain('&lt;b&gt;readOnlyHint&lt;/b&gt;, destructiveHint');
  });

  it('offers no buttons once a link has ended, or for a link it does not know', () => {
    const ended = renderEnded(linkFor(calls(2)), { kind: 'expired' }, calls(2), 0);
    expect(ended).toContain('<h1>Expired</h1>');
    expect(ended).toContain('the 2 calls of fs__delete_file were refused, and nothing was sent');
    for (const html of [ended, renderUnknown()]) {
      expect(html).not.toMatch(/<button|<form/);
    }
  });

  it('allows no script and nothing from elsewhere', () => {
    expect(PAGE_CSP).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(PAGE_CSP).not.toMatch(/script-src|unsafe/);
  });
});
