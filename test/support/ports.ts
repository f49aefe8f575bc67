import { connect, createServer } from 'node:net';
import { until } from './waiting.js';

/** A loopback port free a moment ago: nothing listens on it, so a connection is refused at once until someone takes it. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resolves once something accepts connections on the loopback port (the test's timeout is the bound). */
export async function accepting(port: number): Promise<void> {
  await until(
    `something to accept connections on port ${port}`,
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
  );
}
