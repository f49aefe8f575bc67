/**
 * `codemode-mcp --config ...`: serves one client over stdio until it goes away or a signal comes,
 * then stops every script, the warm pool and every upstream, and exits. Stdout is the protocol;
 * every log line goes to stderr. The SDK's serveStdio picks the protocol revision from the
 * client's first message (`initialize` for 2025, a request with the 2026-07-28 `_meta` envelope,
 * or `server/discover`) and builds the connection's session from our factory for it.
 */
import type { CliInvocation } from '../../cli/parse-cli.js';
import { readPackageVersion } from '../../cli/package-version.js';
import type { ChildSupply } from '../../scripts/child-supply.js';
import { UpstreamHub } from '../../upstream/hub.js';
import { ClientSession } from '../../mcp/client-session.js';
import { serveStdio as serveStdioConnection } from '@modelcontextprotocol/server/stdio';
import { StdioServerTransport } from '../../stdio/stdio-server-transport.js';
import type { EarlyStart } from './early-start.js';
import { RequestGate } from '../../mcp/request-gate.js';
import { EXIT_FAILURE, closeInOrder, createShutdown, shutDownOnSignals } from '../serve-shutdown.js';
import { startObserving, startServing } from '../serve-startup.js';
import { processLog, type Log } from '../../support/log.js';
import { openStateStore } from '../../state/open-state-store.js';
import { fetcherFor } from '../../fetch/fetcher.js';
import { LOCAL_PRINCIPAL } from '../../state/state-store.js';
import { skillsExtensionOf } from '../../skills/skill-source.js';
import { skillsDirectory } from '../../skills/skills-directory.js';
import { SkillsLibrary } from '../../skills/skills-library.js';
import { savedSkillsOf, skillsCaller } from '../skills-caller.js';

/** Serves until the client goes away or SIGINT/SIGTERM, then exits the process. */
export async function serveStdio(invocation: CliInvocation, early?: EarlyStart, log: Log = processLog): Promise<void> {
  const version = readPackageVersion();
  const hub = new UpstreamHub(invocation.upstreams, {
    clientInfo: { name: 'codemode-mcp', version },
    log,
    settings: invocation.settings,
  });
  const observability = await startObserving(invocation.settings, version, log);
  if (observability === undefined) {
    early?.discard();
    process.exitCode = EXIT_FAILURE;
    return;
  }
  const state = await openStateStore(invocation.settings, log);
  const fetcher = fetcherFor(invocation.settings, log, version);
  // Both start when the client's first valid `initialize` goes through (see RequestGate).
  let supply: ChildSupply | undefined;
  let ready: Promise<void> | undefined;

  let shuttingDown = false;
  const shutDown = createShutdown(async () => {
    await closeInOrder(hub, async () => {
      shuttingDown = true;
      await Promise.all([session?.close(), supply?.close()]);
      await state.close();
      // Spawned at process start for an `initialize` that never got as far as starting them.
      early?.discard();
    });
    // Last, so the spans of the scripts just stopped are exported before the process exits.
    await observability.close();
  }, log);

  const startUpstreams = (): void => {
    if (shuttingDown) return;
    ({ supply, ready } = startServing(
      hub,
      invocation.settings,
      version,
      log,
      () => void shutDown('the upstreams cannot be served as configured', EXIT_FAILURE),
    ));
  };

  const library = new SkillsLibrary(skillsDirectory(invocation.settings));
  const skills = skillsExtensionOf(library, log, { routes: hub.skills, startup: () => ready ?? Promise.resolve() });
  const callSkills = skillsCaller(library, { allowed: true, principal: 'the client (stdio)' }, log);
  /** The connection's session; a `server/discover` probe's session, discarded when the client goes on with `initialize`, ends before the next. */
  let session: ClientSession | undefined;
  const openSession = (era: 'legacy' | 'modern'): ClientSession => {
    const opened = new ClientSession({
      hub,
      supply: () => supply,
      settings: invocation.settings,
      version,
      // Before the first request nothing has started, so there is nothing to wait for.
      startup: () => ready ?? Promise.resolve(),
      log,
      era,
      sole: true,
      label: 'the client',
      state: { store: state, principal: LOCAL_PRINCIPAL },
      fetcher,
      skills,
      callSkills,
      savedSkills: savedSkillsOf(library),
    });
    // The SDK closes a discarded probe's Server, and the connection's when the connection ends.
    opened.server.onclose = () => void opened.close();
    session = opened;
    return opened;
  };

  shutDownOnSignals(shutDown, log);

  const { maxMessageBytes } = invocation.settings;
  const transport = new RequestGate(new StdioServerTransport({ maxMessageBytes }), {
    // Every session serves the same methods; before the first, the lifecycle check says what may come.
    serves: (method) => session?.serves(method) ?? true,
    onInitialize: startUpstreams,
    onClosed: () => void shutDown('the client closed the connection'),
    maxMessageBytes,
    log,
  });
  early?.stopWatching();
  serveStdioConnection(({ era }) => openSession(era).server, {
    transport,
    onerror: (error) => log(`codemode-mcp: ${error.message}`, 'warn'),
  });
}
