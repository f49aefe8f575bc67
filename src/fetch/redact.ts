/**
 * A credential the server sent must not come back to the script in a response: an API that
 * echoes its request (a debugging endpoint, an error that quotes the header) would hand the
 * script what the config keeps from it. Each `${VAR}` text the entries' headers hold is replaced
 * wherever it appears in a response's headers, URL or body.
 */

/** 8: the shortest secret looked for; a shorter value would match ordinary text, and is no credential worth the name. */
export const SECRET_MIN_CHARS = 8;

/** What a secret is replaced with. */
export const REDACTED = '[redacted by codemode-mcp]';

export class Redactor {
  private readonly texts: readonly string[];
  private readonly bytes: readonly Buffer[];

  constructor(secrets: readonly string[]) {
    // Longest first: a secret holding another is replaced whole.
    this.texts = [...new Set(secrets.filter((secret) => secret.length >= SECRET_MIN_CHARS))].sort((a, b) => b.length - a.length);
    this.bytes = this.texts.map((text) => Buffer.from(text, 'utf8'));
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.texts) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /** The body with each secret replaced; the same buffer when none is in it. */
  body(body: Buffer): Buffer {
    let out = body;
    for (const secret of this.bytes) {
      let at = out.indexOf(secret);
      if (at === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      const marker = Buffer.from(REDACTED, 'utf8');
      while (at !== -1) {
        parts.push(out.subarray(from, at), marker);
        from = at + secret.length;
        at = out.indexOf(secret, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }
}
