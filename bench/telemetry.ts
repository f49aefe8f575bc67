/**
 * What telemetry costs a paced one-call run: a server exporting traces and metrics to a local
 * OTLP/HTTP receiver against one with telemetry off, rounds alternating, each pool settled first.
 * Off against the build before is measured by hand (bench/ANALYSIS.md): off, the hooks only call through.
 */
import { createServer } from 'node:http';
import { interleaved, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { runCode, startServer, type Connected } from './server.js';
import { poolSettled } from './settle.js';

const ONE_CALL = 'return (await tools.echo({ text: "x" })).content[0].text';

/** A receiver that takes every OTLP/HTTP post and answers 200, as a collector would. */
async function startSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function pacedRun(server: Connected): Promise<number> {
  await poolSettled(server.pid, 2);
  return timed(() => runCode(server, ONE_CALL));
}

export async function measureTelemetry(ctx: BenchContext): Promise<Row[]> {
  const sink = await startSink();
  const on = await startServer(['--pool', '2'], { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
  const off = await startServer(['--pool', '2']);
  try {
    ctx.log('paced one-call runs, telemetry on and off…');
    const paced = await interleaved(
      ctx.rounds,
      () => pacedRun(on),
      () => pacedRun(off),
    );
    return [
      {
        name: 'a paced run making one call, telemetry on (OTLP/HTTP to a local receiver)',
        value: paced.subject,
        unit: 'ms',
        floorName: 'the same, telemetry off',
        floor: paced.floor,
        goal: atMost(1.1),
      },
    ];
  } finally {
    await Promise.all([on.close(), off.close()]);
    await sink.close();
  }
}
