/**
 * JSON as it was when the prelude was built: a script may replace JSON.stringify or JSON.parse,
 * and the prelude must not run the script's code in their place (at a stop, interrupts are off).
 */
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
