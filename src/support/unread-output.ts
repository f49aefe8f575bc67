/**
 * Keeps a spawned process's output unread until its owner adopts it (src/commands/serve-stdio/early-start.ts).
 * Node reads and drops whatever a child's pipes still hold once it exits, unless a 'readable'
 * listener is on them (child_process's flushStdio): an upstream that exited before it was adopted
 * would lose the stderr line that says why, and its stdout's end with it.
 */
import type { Readable } from 'node:stream';

/** Holds the streams; the function returned lets go, after which the adopter's 'data' listeners read them. */
export function holdUnread(streams: ReadonlyArray<Readable | null | undefined>): () => void {
  const held = streams.filter((stream): stream is Readable => stream !== null && stream !== undefined);
  const hold = (): void => {};
  for (const stream of held) stream.on('readable', hold);
  return () => {
    for (const stream of held) stream.off('readable', hold);
  };
}
