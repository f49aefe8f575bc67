/**
 * `codemode-mcp check <file|->`: type-checks one script against the upstreams' tools, as a run
 * would be checked, without running it, and prints what the check finds: for people who write
 * scripts and skills by hand. A `skill.ts` or `skill.js` beside a SKILL.md is checked as that
 * skill (`input` typed from its schema). The compiler is started before the check's time limit
 * counts, so typeCheckTimeoutMs bounds the check of the script alone, as in a warm server. Exits 0
 * when nothing is found, 1 when something is, 2 when the script can't be read or checked at all
 * (the check past its time limit or memory included).
 */
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { CliInvocation } from '../../cli/parse-cli.js';
import type { CatalogTool } from '../../catalog/types.js';
import { CODE_FILES, SKILL_MANIFEST, SkillsLibrary } from '../../skills/skills-library.js';
import { existsSync } from 'node:fs';
import { closeLeavingNoProcess } from '../../support/process-tree.js';
import { listenForEndSignals, signalExitCode, type EndSignals } from '../../support/end-signals.js';
import { Logger, processLog, type Log } from '../../support/log.js';
import { ScriptChecker, type CheckOutcome } from '../../typecheck/script-checker.js';
import { diagnosticsText } from '../../typecheck/outcome-text.js';
import { startCommandHub } from '../one-shot-hub.js';

/** The exit codes of `check`. */
export const CHECK_EXIT = { clean: 0, found: 1, unchecked: 2 } as const;

export interface CheckIo {
  readonly stdout: (text: string) => void;
  readonly stderr: Log;
  /** The script when its path is `-`. */
  readonly readStdin: () => string;
}

const processIo: CheckIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: processLog,
  readStdin: () => readFileSync(0, 'utf8'),
};

export async function checkScript(invocation: CliInvocation, io: CheckIo = processIo): Promise<number> {
  const said = Logger.of(io.stderr);
  const path = invocation.script?.path ?? '-';
  let code: string;
  try {
    code = path === '-' ? io.readStdin() : readFileSync(path, 'utf8');
  } catch (error) {
    said.error(`cannot read the script ${path === '-' ? 'from stdin' : path}: ${(error as Error).message}`);
    return CHECK_EXIT.unchecked;
  }
  const signals = listenForEndSignals(io.stderr);
  try {
    const exit = await startAndCheck(invocation, io, path, code, signals);
    return signals.received === undefined ? exit : signalExitCode(signals.received);
  } finally {
    signals.dispose();
  }
}

async function startAndCheck(
  invocation: CliInvocation,
  io: CheckIo,
  path: string,
  code: string,
  signals: EndSignals,
): Promise<number> {
  const said = Logger.of(io.stderr);
  const hub = await startCommandHub(invocation, io.stderr, signals);
  if (hub === null) return CHECK_EXIT.unchecked;
  const checker = new ScriptChecker({ timeLimitMs: invocation.settings.typeCheckTimeoutMs, log: io.stderr });
  try {
    const catalog = hub.catalog().tools;
    const options = { mode: 'error' as const, unlisted: hub.unlistedPrefixes() };
    for (const status of hub.upstreamStatus().filter((s) => s.state !== 'ready')) {
      said.warn(`${status.name} is not serving its tools (${status.reason ?? status.state}): its names are not checked`);
    }
    const skill = await skillAt(path);
    try {
      await checker.ready(catalog);
    } catch (error) {
      said.error(`the type check's compiler could not start: ${(error as Error).message}`);
      return CHECK_EXIT.unchecked;
    }
    const outcome =
      skill === undefined ? await checker.check(code, catalog, options) : await checker.checkSkill(skill, catalog, options);
    return report(outcome, path, skill !== undefined, catalog, io);
  } catch (error) {
    said.error((error as Error).message);
    return CHECK_EXIT.unchecked;
  } finally {
    await checker.close();
    await closeLeavingNoProcess(() => hub.close(), io.stderr, hub.processGroups);
  }
}

/** The skill whose code file `path` is (`<skills>/<name>/skill.ts` beside its SKILL.md), read as the server reads it. */
async function skillAt(path: string): Promise<Parameters<ScriptChecker['checkSkill']>[0] | undefined> {
  const folder = dirname(path);
  const codeFiles: readonly string[] = Object.values(CODE_FILES);
  if (path === '-' || !codeFiles.includes(basename(path)) || !existsSync(`${folder}/${SKILL_MANIFEST}`)) return undefined;
  const skill = await new SkillsLibrary(dirname(folder)).read(basename(folder));
  return {
    code: skill.code,
    language: skill.language,
    ...(skill.inputSchema !== undefined ? { inputSchema: skill.inputSchema } : {}),
  };
}

function report(outcome: CheckOutcome, path: string, isSkill: boolean, catalog: readonly CatalogTool[], io: CheckIo): number {
  const said = Logger.of(io.stderr);
  const what = `${path === '-' ? 'the script' : path}${isSkill ? ' (a skill)' : ''}`;
  switch (outcome.kind) {
    case 'passed':
      if (outcome.syntaxErrors !== undefined) {
        io.stdout(`${diagnosticsText(`${what}: a syntax error, so it was not type-checked:`, outcome.syntaxErrors, catalog)}\n`);
        return CHECK_EXIT.found;
      }
      io.stdout(`${what}: ${outcome.note ?? `no problems found (${outcome.language ?? 'script'})`}\n`);
      return CHECK_EXIT.clean;
    case 'refused':
    case 'warned':
      io.stdout(`${what}:\n${outcome.text}\n`);
      return CHECK_EXIT.found;
    case 'too-slow':
    case 'too-costly':
      said.error(`${what} was not checked: ${outcome.reason}`);
      return CHECK_EXIT.unchecked;
    case 'unavailable':
      said.error(`${what}: ${outcome.text}`);
      return CHECK_EXIT.unchecked;
  }
}
