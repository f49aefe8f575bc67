/**
 * The approval page's HTML (issue 46): the question with every call whole and the answers the
 * elicitation form offers, as plain HTML forms (no script at all); and the page a link shows once
 * it is decided, expired, withdrawn or unknown, with no buttons. Its one stylesheet is inline,
 * allowed by its hash in the Content-Security-Policy, which allows nothing else. Pure.
 */
import { createHash } from 'node:crypto';
import { groupThousands } from '../../../common/format-numbers.js';
import { APPROVAL_GRANT_DEFAULT_MINUTES, APPROVAL_GRANT_MAX_MINUTES } from '../approval-question.js';
import type { LinkEnd, PageAnswer, PageLink } from './page-links.js';
import { escapeText, formatWait, renderArguments } from './page-text.js';

/** 100: calls of a batch the page shows with their arguments; the rest are counted. */
export const PAGE_CALLS_SHOWN = 100;

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 1.5rem auto; padding: 0 1rem; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.35rem; }
h2 { font-size: 1.05rem; margin: 1.2rem 0 .3rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
.json { font: 13px/1.4 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f4f4; border: 1px solid #ddd; border-radius: 4px; padding: .6rem; }
.hidden-char { background: #ffe08a; color: #6b3d00; border-radius: 2px; }
details { display: inline; }
summary { cursor: pointer; display: inline; }
.answers { display: flex; flex-direction: column; gap: .5rem; margin: 1.2rem 0; max-width: 36rem; }
button { font: inherit; padding: .5rem .8rem; border-radius: 4px; border: 1px solid #888; background: #f0f0f0; text-align: left; cursor: pointer; }
button.allow { background: #e3f3e3; border-color: #3b7f3b; }
button.deny { background: #fbe4e4; border-color: #a33; }
label { display: block; margin-top: .4rem; }
input[type=number] { width: 6rem; font: inherit; }
.ended { padding: .8rem; border-radius: 4px; background: #f4f4f4; border: 1px solid #bbb; }
.note { color: #555; }
`;

/** The Content-Security-Policy of every page: no script, nothing from elsewhere, forms only back to this server. */
export const PAGE_CSP =
  "default-src 'none'; " +
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface QuestionView {
  readonly link: PageLink;
  /** The calls waiting now, and their digest, which the form carries back. */
  readonly calls: readonly string[];
  readonly bound: string;
  readonly formToken: string;
  readonly now: number;
}

/** The open question: what is asked, every call (the first PAGE_CALLS_SHOWN), and the answers. */
export function renderQuestion({ link, calls, bound, formToken, now }: QuestionView): string {
  const { question } = link;
  const { tool } = question;
  const name = escapeText(tool.name);
  const count = calls.length;
  const shown = calls.slice(0, PAGE_CALLS_SHOWN);
  const callSections = shown.map(
    (json, i) =>
      `<section><h2>Call ${count === 1 ? '' : `${i + 1} of ${groupThousands(count)}`}</h2>${renderArguments(json)}</section>`,
  );
  const more = count - shown.length;
  const these = count === 1 ? 'this call' : `these ${groupThousands(count)} calls`;
  const body = `
<h1>Approve ${count === 1 ? 'a call' : `${groupThousands(count)} calls`} of ${name}?</h1>
<p>A script wants to make ${these}, which ${count === 1 ? 'asks' : 'ask'} for a person's approval. Nothing is sent until you answer.</p>
${facts(link, calls.length, now)}
${callSections.join('\n')}
${more > 0 ? `<p><strong>and ${groupThousands(more)} more calls of ${name}</strong>, not shown here; an answer for all of them covers these too.</p>` : ''}
<form method="post" class="answers">
<input type="hidden" name="form" value="${escapeText(formToken)}">
<input type="hidden" name="bound" value="${escapeText(bound)}">
<button class="allow" name="choice" value="allow">${count === 1 ? 'Allow this call' : `Allow all ${groupThousands(count)} calls`}</button>
<button class="allow" name="choice" value="allow-script">Allow ${name} for the rest of script ${escapeText(question.script)}</button>
<label>Minutes <input type="number" name="minutes" min="1" max="${APPROVAL_GRANT_MAX_MINUTES}" value="${APPROVAL_GRANT_DEFAULT_MINUTES}"></label>
<button class="allow" name="choice" value="allow-owner">Allow ${name} for ${escapeText(question.owner)} for the minutes above</button>
${count > 1 ? '<button name="choice" value="review">Allow or deny each call one by one</button>' : ''}
<button class="deny" name="choice" value="deny">${count === 1 ? 'Deny this call' : `Deny all ${groupThousands(count)} calls`}</button>
</form>
<p class="note">"Allow" covers ${these} and the script's further calls of ${name} in the same batch (while some are still out, or until it calls another tool).</p>`;
  return page(`Approve ${tool.name}?`, body);
}

/**
 * A link decided, expired or withdrawn: what became of it (the calls it covered), and no buttons;
 * `next`, the path of the script's next open question (a one-by-one review's next call), if one waits.
 */
export function renderEnded(link: PageLink, end: LinkEnd, calls: readonly string[], now: number, next?: string): string {
  const { question } = link;
  const body = `
<h1>${escapeText(endTitle(end))}</h1>
<p class="ended">${escapeText(endLine(end, question.tool.name, calls.length))} This link decides nothing any more.</p>
${next !== undefined ? `<p><a href="${escapeText(next)}">Script ${escapeText(question.script)} has another question waiting: open it</a></p>` : ''}
${facts(link, calls.length, now, false)}`;
  return page(endTitle(end), body);
}

/** A link this server does not know: mistyped, forgotten, or from before a restart. */
export function renderUnknown(): string {
  return page(
    'Unknown approval link',
    `<h1>Unknown approval link</h1>
<p class="ended">This server knows no such approval link: it may be mistyped, ended long ago, or from before the server restarted. It decides nothing.</p>`,
  );
}

/** A request refused before anything was looked at or changed. */
export function renderRefused(why: string): string {
  return page(
    'Refused',
    `<h1>Refused</h1><p class="ended">${escapeText(why)} Nothing was decided, and the link is as it was.</p>`,
  );
}

/** What the question is: server and tool, title, annotations, whose script, how long it has waited. */
function facts(link: PageLink, calls: number, now: number, open = true): string {
  const { question } = link;
  const { tool } = question;
  const rows: Array<[string, string]> = [
    ['Server', tool.server !== undefined ? escapeText(tool.server) : 'not known'],
    [
      'Tool',
      `${escapeText(tool.upstreamName ?? tool.name)}${tool.upstreamName !== undefined && tool.upstreamName !== tool.name ? ` (scripts call it ${escapeText(tool.name)})` : ''}`,
    ],
    ...(tool.title !== undefined ? ([['Title', escapeText(tool.title)]] as Array<[string, string]>) : []),
    ['Annotations', describeHints(tool.annotations)],
    ['Script', `${escapeText(question.script)} of ${escapeText(question.owner)} (principal ${escapeText(question.principal)})`],
    ['Calls', groupThousands(calls)],
    ['Waiting for', `${formatWait(now - link.issuedAt)} when this page was made`],
    ...(open
      ? ([['Answer within', `${formatWait(link.expiresAt - now)}; then the calls are refused`]] as Array<[string, string]>)
      : []),
  ];
  return `<dl>${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`;
}

/** `destructiveHint, not readOnlyHint`, or `none`, escaped. */
function describeHints(annotations: { readonly [hint: string]: unknown } | undefined): string {
  const hints = Object.entries(annotations ?? {}).filter(([, value]) => typeof value === 'boolean');
  if (hints.length === 0) return 'none';
  return hints.map(([hint, value]) => `${value === true ? '' : 'not '}${escapeText(hint)}`).join(', ');
}

function endTitle(end: LinkEnd): string {
  switch (end.kind) {
    case 'decided':
      return `Already decided: ${answerWords(end.answer)}`;
    case 'declined':
      return 'Already decided: Denied';
    case 'expired':
      return 'Expired';
    case 'withdrawn':
      return 'Withdrawn';
  }
}

function endLine(end: LinkEnd, tool: string, calls: number): string {
  const what = calls === 1 ? `the call of ${tool}` : `the ${groupThousands(calls)} calls of ${tool}`;
  const were = calls === 1 ? 'was' : 'were';
  switch (end.kind) {
    case 'decided':
      return `${capitalize(what)} ${were} decided ${end.where === 'page' ? 'on this page' : 'in the MCP client first'}: ${answerWords(end.answer)}.`;
    case 'declined':
      return `${capitalize(what)} ${were} denied: the person declined to open this page from the MCP client.`;
    case 'expired':
      return `No one answered in time (the server's approvalTimeoutMs): ${what} ${were} refused, and nothing was sent.`;
    case 'withdrawn':
      return `The question was withdrawn (the script ended, or the asking failed): ${what} ${were} not sent.`;
  }
}

function answerWords(answer: PageAnswer): string {
  switch (answer.choice) {
    case 'allow':
      return 'Allowed';
    case 'allow-script':
      return 'Allowed for the rest of the script';
    case 'allow-owner':
      return `Allowed for ${answer.minutes ?? APPROVAL_GRANT_DEFAULT_MINUTES} min`;
    case 'deny':
      return 'Denied';
    case 'review':
      return 'Each call to be asked about one by one (each gets its own link)';
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeText(title)} — codemode-mcp</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
