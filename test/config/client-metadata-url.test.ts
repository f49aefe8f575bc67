import { isHttpsUrl } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { isClientMetadataUrl } from '../../src/config/client-metadata-url.js';

describe('isClientMetadataUrl: the config reads a clientId as the SDK will at sign-in', () => {
  const cases = [
    'https://client.example.com/metadata.json',
    'https://client.example.com/',
    'https://client.example.com',
    'https://client.example.com/a?b=c',
    'http://client.example.com/metadata.json',
    'HTTPS://client.example.com/x',
    'my-client-id',
    '',
    'https://',
    'https:///path',
    'https://[::1]/cimd',
    'ftp://client.example.com/x',
  ];
  test.each(cases)('%j', (value) => {
    expect(isClientMetadataUrl(value)).toBe(isHttpsUrl(value));
  });
});
