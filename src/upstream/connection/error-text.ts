/** `fetch failed (connect ECONNREFUSED 127.0.0.1:3000)`: Node's fetch keeps the useful part in `cause`. */
export function messageWithCauses(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause === undefined || error.message.includes(cause) ? error.message : `${error.message} (${cause})`;
}
