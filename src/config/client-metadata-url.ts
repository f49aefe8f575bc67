/**
 * Whether an OAuth `clientId` is a Client ID Metadata Document's URL (SEP-991): https, with a path
 * past the root. The SDK's `isHttpsUrl` decides the same at sign-in (test/config/client-metadata-url.test.ts
 * holds them to one answer); this copy lets the config be read without loading the SDK, a large
 * part of a start-up (bench/ANALYSIS.md, "Figures from the code's comments").
 */
export function isClientMetadataUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.pathname !== '/';
}
