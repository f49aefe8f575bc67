/** 300: characters of a call's arguments shown when the call is named; the rest is marked as cut. */
const ARGS_SHOWN_CHARS = 300;

/** Arguments (or a URI) as a call is named in a return or a label: past ARGS_SHOWN_CHARS, cut and counted. */
export function cutText(args: string): string {
  return args.length <= ARGS_SHOWN_CHARS ? args : `${args.slice(0, ARGS_SHOWN_CHARS)}… (${args.length} characters)`;
}
