/**
 * The approval page in a real browser (issue 46): the SDK's client, declaring no elicitation, drives
 * bin/codemode-mcp.js over stdio in front of @modelcontextprotocol/server-filesystem; a script moves
 * files to a trash folder (the filesystem server's delete: it has no other), each move an `ask`
 * call (destructiveHint), and its answer carries the page's link; headless Chromium opens it and a
 * person's clicks decide. What no link may do is tried too: a reused link, an expired one, a forged
 * token, a POST from another origin, arguments that carry markup.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HAVE_CHROMIUM, launchBrowser, type TestBrowser } from '../support/browser.js';
import {
  nodeEntry,
  publishedEntry,
  startServer,
  structuredOf,
  textOf,
  writeConfig,
  type RunningServer,
} from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

/** Set to a path (docs/approval-page.png) to write the screenshot there; otherwise it goes to a temp dir. */
const SCREENSHOT = process.env.CODEMODE_SCREENSHOT;

const LINK = /ask the user to open (http:\/\/127\.0\.0\.1:\d+\/approve\/\S+), then call wait/;

interface Folders {
  readonly work: string;
  readonly trash: string;
  readonly audit: string;
}

function folders(label: string): Folders {
  const dir = makeTempDir(label);
  const work = join(dir, 'work');
  const trash = join(dir, 'trash');
  mkdirSync(work);
  mkdirSync(trash);
  return { work, trash, audit: join(dir, 'audit.jsonl') };
}

async function startFilesServer(at: Folders, settings: Record<string, unknown> = {}): Promise<RunningServer> {
  const config = writeConfig(
    { fs: nodeEntry(publishedEntry('server-filesystem'), [at.work, at.trash]) },
    { pool: 0, auditLog: at.audit, ...settings },
  );
  // No elicitation declared: the person is reached through the model, by the page's link.
  return startServer(['--config', config]);
}

/** A script that moves `names` from work to trash at once (Promise.all), returning what each move said, or the refusal. */
function moveScript(at: Folders, names: readonly string[]): string {
  return `
const names = ${JSON.stringify(names)};
try {
  const results = await Promise.all(names.map((name) =>
    tools.move_file({ source: ${JSON.stringify(at.work)} + "/" + name, destination: ${JSON.stringify(at.trash)} + "/" + name })));
  return results.map((result) => result.isError ? "error" : "moved");
} catch (error) {
  return error.message;
}`;
}

function makeFiles(at: Folders, names: readonly string[]): void {
  for (const name of names) writeFileSync(join(at.work, name), `the file ${name}\n`);
}

/** Runs the script; its answer, once only the model can reach the person, carries the link. */
async function runUntilAsked(server: RunningServer, code: string): Promise<{ script: string; url: string; answer: string }> {
  const answer = textOf(await server.run({ code }));
  const url = LINK.exec(answer)?.[1];
  if (url === undefined) throw new Error(`no approval link in the answer:\n${answer}`);
  return { script: /^Script (\S+) running/.exec(answer)![1]!, url, answer };
}

/** The page as a GET shows it (a GET decides nothing), once it lists `calls` calls. */
function pageListing(url: string, calls: number): Promise<string> {
  return until(`the page to list ${calls} calls`, async () => {
    const html = await (await fetch(url)).text();
    return html.includes(`<dt>Calls</dt><dd>${calls}</dd>`) && html;
  });
}

async function buttonNames(page: Page): Promise<string[]> {
  const buttons = page.getByRole('button');
  const names: string[] = [];
  for (let i = 0; i < (await buttons.count()); i++) names.push((await buttons.nth(i).textContent()) ?? '');
  return names;
}

describe.skipIf(!HAVE_CHROMIUM)('the approval page in a browser, for a client without elicitation', () => {
  let browser: TestBrowser;
  let server: RunningServer;
  let at: Folders;

  beforeAll(async () => {
    at = folders('approval-page');
    [browser, server] = await Promise.all([launchBrowser(), startFilesServer(at)]);
  });

  afterAll(async () => {
    await browser?.close();
    expect(await server?.close()).toEqual([]);
  });

  test('shows the three calls whole; Allow moves the files, the script finishes without a wait, and the link is used up', async () => {
    const names = ['a.txt', 'b.txt', 'c.txt'];
    makeFiles(at, names);
    const { script, url, answer } = await runUntilAsked(server, moveScript(at, names));
    expect(answer).toMatch(
      /^waiting for approval: move_file\(\{"source":.*\}\)( and \d more calls of it)? — ask the user to open http/m,
    );
    await pageListing(url, 3);
    const page = await browser.context.newPage();
    const response = await page.goto(url);
    expect(response?.headers()['cache-control']).toBe('no-store');
    expect(response?.headers()['content-security-policy']).toMatch(
      /^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'/,
    );
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Approve 3 calls of move_file?');
    const calls = page.locator('section .json');
    expect(await calls.count()).toBe(3);
    for (const [i, name] of names.entries()) {
      expect(await calls.nth(i).textContent()).toBe(
        JSON.stringify({ source: join(at.work, name), destination: join(at.trash, name) }, null, 2),
      );
    }
    const facts = (await page.locator('dl').textContent()) ?? '';
    expect(facts).toContain('Serverfs');
    expect(facts).toContain('TitleMove File');
    expect(facts).toContain('destructiveHint');
    expect(facts).toContain(`Script${script} of this session`);
    const buttons = await buttonNames(page);
    expect(buttons).toEqual([
      'Allow all 3 calls',
      `Allow move_file for the rest of script ${script}`,
      'Allow move_file for this session for the minutes above',
      'Allow or deny each call one by one',
      'Deny all 3 calls',
    ]);
    for (const name of buttons) expect(name).toMatch(/Allow|Deny/);
    const shot = await page.screenshot({ fullPage: true, path: SCREENSHOT ?? join(makeTempDir('screenshot'), 'page.png') });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');

    await page.getByRole('button', { name: 'Allow all 3 calls' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Allowed');
    expect(await page.getByRole('button').count()).toBe(0);
    // The decision woke the script: the files move with no wait from the client.
    await until('the files to be in the trash', () => names.every((name) => existsSync(join(at.trash, name))));
    for (const name of names) expect(existsSync(join(at.work, name))).toBe(false);
    const ended = await server.run({ action: 'wait', script });
    expect(structuredOf(ended)).toMatchObject({ status: 'finished', value: ['moved', 'moved', 'moved'] });

    // The link again, as a person who kept it: it says what was decided, and decides nothing.
    const again = await browser.context.newPage();
    await again.goto(url);
    await expect(again.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Allowed');
    expect(await again.locator('.ended').textContent()).toContain('The 3 calls of move_file were decided on this page: Allowed.');
    expect(await again.getByRole('button').count()).toBe(0);
    await Promise.all([page.close(), again.close()]);

    // No token in the log or the audit log: a link is named by its digest.
    const token = url.slice(url.lastIndexOf('/') + 1);
    expect(server.stderr()).toMatch(/approval page: link #[0-9a-f]{12} decided on the page: allow/);
    expect(server.stderr()).not.toContain(token);
    expect(readFileSync(at.audit, 'utf8')).not.toContain(token);
  });

  test('Deny sends nothing: the script gets APPROVAL_DENIED and the files stay', async () => {
    const names = ['d.txt', 'e.txt', 'f.txt'];
    makeFiles(at, names);
    const { script, url } = await runUntilAsked(server, moveScript(at, names));
    await pageListing(url, 3);
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: 'Deny all 3 calls' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Denied');
    const ended = await server.run({ action: 'wait', script });
    expect(structuredOf(ended)).toMatchObject({ status: 'finished' });
    expect(structuredOf(ended).value).toMatch(/^APPROVAL_DENIED: move_file was refused: a person denied it/);
    for (const name of names) expect(existsSync(join(at.work, name))).toBe(true);
    await page.close();
  });

  test('one by one: each call gets its own page, reached from the one before, and each answer decides its call alone', async () => {
    makeFiles(at, ['k.txt', 'l.txt']);
    const { script, url } = await runUntilAsked(server, moveScript(at, ['k.txt', 'l.txt']));
    await pageListing(url, 2);
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: 'Allow or deny each call one by one' }).click();
    const heading = page.getByRole('heading', { level: 1 });
    await expect(heading.textContent()).resolves.toBe(
      'Already decided: Each call to be asked about one by one (each gets its own link)',
    );
    for (const [name, choice] of [
      ['k.txt', 'Allow this call'],
      ['l.txt', 'Deny this call'],
    ] as const) {
      const next = page.getByRole('link', { name: `Script ${script} has another question waiting: open it` });
      // The next call's question opens once the answer reached the script: the page is read again until it links to it.
      let seen = '';
      await until(
        `a link to the question about ${name}`,
        async () => {
          seen = await page.locator('body').innerText();
          return (await next.count()) > 0 || void (await page.reload());
        },
        () => seen + '\nSTDERR\n' + server.stderr().slice(-3000),
      );
      await next.click();
      await expect(heading.textContent()).resolves.toBe('Approve a call of move_file?');
      expect(await page.locator('section .json').textContent()).toContain(join(at.work, name));
      await page.getByRole('button', { name: choice }).click();
      await expect(heading.textContent()).resolves.toMatch(/^Already decided: (Allowed|Denied)$/);
    }
    const ended = await server.run({ action: 'wait', script });
    expect(structuredOf(ended).value).toMatch(/^APPROVAL_DENIED: move_file was refused: a person denied it/);
    expect(existsSync(join(at.trash, 'k.txt'))).toBe(true);
    expect(existsSync(join(at.work, 'l.txt'))).toBe(true);
    await page.close();
  });

  test('a page kept open after the link was decided elsewhere decides nothing when clicked', async () => {
    const names = ['g.txt'];
    makeFiles(at, names);
    const { script, url } = await runUntilAsked(server, moveScript(at, names));
    const [first, second] = await Promise.all([browser.context.newPage(), browser.context.newPage()]);
    await Promise.all([first.goto(url), second.goto(url)]);
    await first.getByRole('button', { name: 'Deny this call' }).click();
    await expect(first.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Denied');
    const reply = second.waitForResponse((response) => response.request().method() === 'POST');
    await second.getByRole('button', { name: 'Allow this call' }).click();
    expect((await reply).status()).toBe(409);
    await expect(second.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Denied');
    const ended = await server.run({ action: 'wait', script });
    expect(structuredOf(ended).value).toMatch(/^APPROVAL_DENIED/);
    expect(existsSync(join(at.work, 'g.txt'))).toBe(true);
    await Promise.all([first.close(), second.close()]);
  });

  test('a forged token, or one with a character changed, is unknown and offers nothing; the real link still decides', async () => {
    makeFiles(at, ['h.txt']);
    const { script, url } = await runUntilAsked(server, moveScript(at, ['h.txt']));
    const token = url.slice(url.lastIndexOf('/') + 1);
    const changed = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const page = await browser.context.newPage();
    for (const forged of [changed, 'A'.repeat(43)]) {
      const response = await page.goto(`${url.slice(0, url.lastIndexOf('/') + 1)}${encodeURIComponent(forged)}`);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Unknown approval link');
      expect(await page.getByRole('button').count()).toBe(0);
    }
    // A POST to the changed token from the page's own origin, with the real page's fields: unknown, nothing decided.
    const html = await pageListing(url, 1);
    const fields = formFieldsOf(html);
    const forgedPost = await fetch(url.replace(token, changed), {
      method: 'POST',
      headers: { Origin: new URL(url).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, choice: 'allow' }).toString(),
      redirect: 'manual',
    });
    expect(forgedPost.status).toBe(404);
    await page.goto(url);
    await page.getByRole('button', { name: 'Deny this call' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Denied');
    expect(structuredOf(await server.run({ action: 'wait', script })).value).toMatch(/^APPROVAL_DENIED/);
    await page.close();
  });

  test("a POST from another origin's page is refused, changes nothing and uses nothing up", async () => {
    makeFiles(at, ['i.txt']);
    const { script, url } = await runUntilAsked(server, moveScript(at, ['i.txt']));
    // The strongest attacker: it knows the link and the page's own form fields, but is not the page.
    const fields = formFieldsOf(await pageListing(url, 1));
    const attacker = await serveHtml(`<!doctype html><form method="post" action="${url}">
${Object.entries(fields)
  .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
  .join('\n')}
<button name="choice" value="allow">Win a prize</button></form>`);
    try {
      const page = await browser.context.newPage();
      // localhost, not 127.0.0.1: another origin on the same machine, whose hostname the page accepts.
      await page.goto(`http://localhost:${attacker.port}/`);
      const reply = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.getByRole('button', { name: 'Win a prize' }).click();
      expect((await reply).status()).toBe(403);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Refused');
      expect(server.stderr()).toMatch(/approval page: refused a decision for link #[0-9a-f]{12}: /);
      expect(existsSync(join(at.work, 'i.txt'))).toBe(true);
      // Still open, and its own page decides.
      await page.goto(url);
      await page.getByRole('button', { name: 'Allow this call' }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Allowed');
      expect(structuredOf(await server.run({ action: 'wait', script }))).toMatchObject({ value: ['moved'] });
      expect(existsSync(join(at.trash, 'i.txt'))).toBe(true);
      await page.close();
    } finally {
      await attacker.close();
    }
  });

  test('arguments holding <script>, "><img onerror> and a bidi override are shown as text, and run nothing', async () => {
    const names = ['<script>window.pwned = 1</script>', '"><img src=x onerror="window.pwned = 2">', 'evil\u202Etxt.exe'];
    const { script, url } = await runUntilAsked(server, moveScript(at, names));
    await pageListing(url, 3);
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(url);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    const shown = (await page.locator('section .json').allTextContents()).join('\n');
    expect(shown).toContain('<script>window.pwned = 1</script>');
    expect(shown).toContain('\\"><img src=x onerror=\\"window.pwned = 2\\">');
    // The override is shown as its escape, marked, never applied to the text around it.
    expect(shown).toContain('evil\\u202etxt.exe');
    expect(shown).not.toContain('\u202E');
    expect(await page.locator('.hidden-char').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Deny all 3 calls' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Already decided: Denied');
    expect(dialogs).toEqual([]);
    expect(structuredOf(await server.run({ action: 'wait', script })).value).toMatch(/^APPROVAL_DENIED/);
    await page.close();
  });
});

describe.skipIf(!HAVE_CHROMIUM)('an approval link past approvalTimeoutMs', () => {
  test('says it expired and offers nothing; the calls were refused and nothing was sent', async () => {
    const at = folders('approval-page-expiry');
    makeFiles(at, ['j.txt']);
    const [browser, server] = await Promise.all([launchBrowser(), startFilesServer(at, { approvalTimeoutMs: 1000 })]);
    try {
      const { script, url } = await runUntilAsked(server, moveScript(at, ['j.txt']));
      const ended = await server.run({ action: 'wait', script });
      expect(structuredOf(ended).value).toMatch(/^APPROVAL_TIMED_OUT: move_file was refused/);
      const page = await browser.context.newPage();
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Expired');
      expect(await page.getByRole('button').count()).toBe(0);
      expect(existsSync(join(at.work, 'j.txt'))).toBe(true);
    } finally {
      await browser.close();
      expect(await server.close()).toEqual([]);
    }
  });
});

/** The hidden fields of a page's form (its form token and the calls' digest). */
function formFieldsOf(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) fields[match[1]!] = match[2]!;
  expect(Object.keys(fields)).toEqual(['form', 'bound']);
  return fields;
}

/** Another origin's page: a server on 127.0.0.1 answering every GET with `html`. */
async function serveHtml(html: string): Promise<{ port: number; close(): Promise<void> }> {
  const other: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(html);
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  return {
    port: (other.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        other.closeAllConnections();
        other.close(() => resolve());
      }),
  };
}
