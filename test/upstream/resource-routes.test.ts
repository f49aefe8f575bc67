import { describe, expect, test } from 'vitest';
import { ResourceRoutes, type ResourceListing } from '../../src/upstream/passthrough/resource-routes.js';
import { collectLog } from './specs.js';

const listing = (uris: string[], templates: string[] = []): ResourceListing => ({
  resources: uris.map((uri) => ({ uri, name: uri })),
  templates: templates.map((uriTemplate) => ({ uriTemplate, name: uriTemplate })),
});

describe('resource routes', () => {
  test('two upstreams listing one URI: the first in config order keeps it, and one log line names both', () => {
    const { lines, log } = collectLog();
    const routes = new ResourceRoutes([{ name: 'a' }, { name: 'b' }], log);
    // b answers first: config order still decides.
    routes.update('b', listing(['x://shared', 'x://b-only'], ['x://t/{id}']));
    routes.update('a', listing(['x://shared'], ['x://t/{id}']));
    routes.update('b', listing(['x://shared', 'x://b-only'], ['x://t/{id}']));
    expect(routes.resources()).toEqual([
      { server: 'a', resource: { uri: 'x://shared', name: 'x://shared' } },
      { server: 'b', resource: { uri: 'x://b-only', name: 'x://b-only' } },
    ]);
    expect(routes.templates().map(({ server }) => server)).toEqual(['a']);
    expect(routes.route('x://shared')).toEqual({ server: 'a', via: 'listed', allowed: true });
    expect(lines).toEqual([
      'codemode-mcp: resource "x://shared" is listed by upstream "a" and upstream "b"; reads go to "a", the first in the config',
      'codemode-mcp: resource template "x://t/{id}" is listed by upstream "a" and upstream "b"; reads go to "a", the first in the config',
    ]);
  });

  test('an exact listed URI wins over a template of an earlier upstream; otherwise the first matching template', () => {
    const routes = new ResourceRoutes([{ name: 'a' }, { name: 'b' }], () => {});
    routes.update('a', listing([], ['x://item/{id}']));
    routes.update('b', listing(['x://item/special'], ['x://item/{id}/more', 'x://{+rest}']));
    expect(routes.route('x://item/special')).toEqual({ server: 'b', via: 'listed', allowed: true });
    expect(routes.route('x://item/7')).toEqual({ server: 'a', via: 'template', template: 'x://item/{id}', allowed: true });
    expect(routes.route('x://item/7/more')).toEqual({
      server: 'b',
      via: 'template',
      template: 'x://item/{id}/more',
      allowed: true,
    });
    expect(routes.route('x://any/path')).toEqual({ server: 'b', via: 'template', template: 'x://{+rest}', allowed: true });
    expect(routes.route('y://nothing')).toBeUndefined();
  });

  test('the resources policy hides denied resources and templates, yet routes their URIs as denied', () => {
    const routes = new ResourceRoutes(
      [{ name: 'a', policy: { allow: ['x://public/*'], deny: ['x://public/secret*'] } }],
      () => {},
    );
    routes.update('a', listing(['x://public/one', 'x://public/secret', 'x://private'], ['x://public/{id}', 'x://private/{id}']));
    expect(routes.resources().map(({ resource }) => resource.uri)).toEqual(['x://public/one']);
    expect(routes.templates().map(({ template }) => template.uriTemplate)).toEqual(['x://public/{id}']);
    expect(routes.route('x://public/secret')).toMatchObject({ server: 'a', allowed: false });
    expect(routes.route('x://private')).toMatchObject({ allowed: false });
    expect(routes.route('x://private/7')).toMatchObject({ via: 'template', allowed: false });
    // Listed through an allowed template, but the URI read is denied by name.
    expect(routes.route('x://public/secret-plans')).toMatchObject({ via: 'template', allowed: false });
    expect(routes.route('x://public/7')).toMatchObject({ via: 'template', allowed: true });
  });

  test('update says whether the merged lists changed, and an upstream gone from the config order is never merged', () => {
    const routes = new ResourceRoutes([{ name: 'a' }], () => {});
    expect(routes.offered).toBe(false);
    expect(routes.update('a', listing(['x://1']))).toBe(true);
    expect(routes.offered).toBe(true);
    expect(routes.update('a', listing(['x://1']))).toBe(false);
    expect(routes.update('stranger', listing(['x://2']))).toBe(false);
    expect(routes.update('a', undefined)).toBe(true);
    expect(routes.route('x://1')).toBeUndefined();
  });

  test('a template the SDK cannot parse is listed and logged once, and routes nothing', () => {
    const { lines, log } = collectLog();
    const routes = new ResourceRoutes([{ name: 'a' }], log);
    routes.update('a', listing([], ['x://{unclosed']));
    routes.update('a', listing([], ['x://{unclosed']));
    expect(routes.templates()).toHaveLength(1);
    expect(routes.route('x://{unclosed')).toBeUndefined();
    expect(lines).toEqual([
      'codemode-mcp: upstream "a": resource template "x://{unclosed" can\'t be parsed (Error: Unclosed template expression); it is listed, but no URI is read through it',
    ]);
  });

  test("a URI past the SDK matcher's length cap matches no template", () => {
    const routes = new ResourceRoutes([{ name: 'a' }], () => {});
    routes.update('a', listing([], ['x://{+rest}']));
    expect(routes.route(`x://${'y'.repeat(1_000_001)}`)).toBeUndefined();
    expect(routes.route('x://short')).toMatchObject({ server: 'a' });
  });
});
