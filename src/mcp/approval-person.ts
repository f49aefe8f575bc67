/**
 * How an owner's approval questions reach a person (issue 46), as the gate's PersonChannel: the
 * client's own question (a form elicitation, or `input_required`), the approval page (its link as
 * a URL elicitation where the client declares `elicitation.url`, else in the script's answer for
 * the model to pass on), or both at once, where the first answer wins and the other is told (the
 * client's question is cancelled; the page says the client decided). `approvalVia` chooses, and
 * what the client can do is read at each question, since a 2026-07-28 caller states it per request.
 */
import { randomUUID } from 'node:crypto';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import type { AskDetail, PersonChannel } from '../approvals/approval-gate.js';
import { readApprovalAnswer } from '../approvals/approval-question.js';
import type { ApprovalPage, OpenedLink } from '../approvals/page/approval-page.js';
import type { LinkEnd, PageAnswer, PageQuestion } from '../approvals/page/page-links.js';
import type { ApprovalVia } from '../config/settings.js';
import type { CallOrigin } from '../upstream/routing/call-origins.js';

export interface PersonRoutes {
  readonly origin: CallOrigin;
  /** The name our own questions travel under in relay messages, as an upstream's name would. */
  readonly asker: string;
  readonly via: ApprovalVia;
  /** The server's approval page; absent, only the client can be asked. */
  readonly page?: ApprovalPage;
  /** Sends `notifications/elicitation/complete` (2025 clients; 2026-07-28 has none: the retried call is the answer). */
  readonly complete?: (elicitationId: string) => Promise<void>;
  readonly log: (line: string, level?: 'info' | 'warn') => void;
}

type Route = 'client' | 'url' | 'answer' | 'both' | 'none';

/** A URL elicitation, to ask whether the client can take one. */
const URL_PROBE: ElicitRequest = {
  method: 'elicitation/create',
  params: { mode: 'url', message: '', url: 'http://127.0.0.1/', elicitationId: 'probe' },
};

export function personChannel(routes: PersonRoutes): PersonChannel {
  const { origin, page } = routes;
  const route = (request: ElicitRequest): Route => {
    const form = origin.accepts(request);
    const url = page !== undefined && origin.accepts(URL_PROBE);
    const onPage: Route = page === undefined ? 'none' : url ? 'url' : 'answer';
    switch (routes.via) {
      case 'client':
        return form ? 'client' : url ? 'url' : 'none';
      case 'auto':
        return form ? 'client' : onPage;
      case 'page':
        return onPage;
      case 'both':
        return form && page !== undefined ? 'both' : form ? 'client' : onPage;
    }
  };
  const askClient = async (request: ElicitRequest, signal: AbortSignal, script: string): Promise<ElicitResult> =>
    (await origin.relay(routes.asker, request, { signal, script })) as ElicitResult;
  return {
    accepts: (request) => route(request) !== 'none',
    ask: async (request, signal, script, detail) => {
      const chosen = route(request);
      if (chosen === 'client' || chosen === 'none' || page === undefined) return askClient(request, signal, script);
      const opened = await page.open(pageQuestion(script, detail), signal);
      switch (chosen) {
        case 'answer':
          detail.passOn(`ask the user to open ${opened.url}, then call wait`, true);
          return opened.decided;
        case 'url':
          return askByUrl(routes, opened, detail, signal, script);
        case 'both': {
          detail.passOn(`the client is asking the user; they may instead open ${opened.url}`, false);
          return firstAnswer(
            opened,
            (clientSignal) => askClient(request, clientSignal, script),
            signal,
            detail.question.calls.length,
          );
        }
      }
    },
  };
}

function pageQuestion(script: string, { question, waiting, identity }: AskDetail): PageQuestion {
  return { script, principal: identity.principal, owner: question.owner, tool: question.tool, calls: waiting };
}

/**
 * The link as a URL elicitation: a decline or dismissal in the client denies (and the link says
 * so); an accept means the person went to the page, whose decision is the answer, after which the
 * client is told the elicitation is complete.
 */
async function askByUrl(
  routes: PersonRoutes,
  opened: OpenedLink,
  { question }: AskDetail,
  signal: AbortSignal,
  script: string,
): Promise<ElicitResult> {
  const elicitationId = randomUUID();
  const calls = question.calls.length === 1 ? 'a call' : `${question.calls.length} calls`;
  const request: ElicitRequest = {
    method: 'elicitation/create',
    params: {
      mode: 'url',
      message:
        `Script ${script} of ${question.owner} wants to make ${calls} of ${question.tool.name}, which asks for your approval. ` +
        'Open the page to see the calls whole and decide; nothing is sent until you do.',
      url: opened.url,
      elicitationId,
    },
  };
  const stopAsking = new AbortController();
  const asked = routes.origin.relay(routes.asker, request, { signal: AbortSignal.any([signal, stopAsking.signal]), script });
  const inClient = (asked as Promise<ElicitResult>).then(
    (result) => {
      if (result.action === 'accept') return opened.decided;
      opened.end({ kind: 'declined', where: 'client' });
      return result;
    },
    (error: unknown) => {
      // Not asked after all: the link decides nothing, lest a person decide what no one waits on.
      if (!stopAsking.signal.aborted) opened.end({ kind: 'withdrawn' });
      throw error;
    },
  );
  const answer = await Promise.race([
    opened.decided.then((result) => ({ result, onPage: true })),
    inClient.then((result) => ({ result, onPage: false })),
  ]);
  if (answer.onPage) {
    stopAsking.abort();
    routes
      .complete?.(elicitationId)
      .catch((error: unknown) =>
        routes.log(
          `codemode-mcp: could not tell the client that approval ${elicitationId} is complete: ${String(error)}`,
          'warn',
        ),
      );
  }
  return answer.result;
}

/**
 * The client's question and the page at once: the first answer wins, and the other is told (the
 * client's question cancelled, or the link ended as decided in the client). A way that fails
 * leaves the other to answer.
 */
async function firstAnswer(
  opened: OpenedLink,
  askClient: (signal: AbortSignal) => Promise<ElicitResult>,
  signal: AbortSignal,
  calls: number,
): Promise<ElicitResult> {
  const stopAsking = new AbortController();
  const fromClient = askClient(AbortSignal.any([signal, stopAsking.signal])).then((result) => ({ result, onPage: false }));
  const fromPage = opened.decided.then((result) => ({ result, onPage: true }));
  const first = await Promise.any([fromClient, fromPage]).catch((error: unknown) => {
    throw error instanceof AggregateError ? error.errors[0] : error;
  });
  if (first.onPage) stopAsking.abort();
  else opened.end(clientEnd(first.result, calls));
  return first.result;
}

/** What the client's answer was, as the page shows it. */
function clientEnd(result: ElicitResult, calls: number): LinkEnd {
  const decision = readApprovalAnswer(result, calls);
  const answer: PageAnswer =
    decision.kind === 'allow-owner'
      ? { choice: 'allow-owner', minutes: decision.minutes }
      : { choice: decision.kind === 'allow-batch' ? 'allow' : decision.kind };
  return { kind: 'decided', where: 'client', answer };
}
