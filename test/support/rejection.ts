import { ProtocolError } from '@modelcontextprotocol/client';

/** The JSON-RPC error a request was answered with; anything else (an answer, another error) fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ProtocolError)) throw new Error(`expected a ProtocolError, got ${String(error)}`);
  return error;
}
