import { describe, expect, test } from 'vitest';
import { fixturePath, nodeEntry, startServer, valueOf, writeConfig } from '../support/mcp-client.js';
import { until } from '../upstream/specs.js';

const config = (): string => writeConfig({ proxied: nodeEntry(fixturePath('upstreams/needs-proxy.mjs')) });

const FORMS = [
  { form: 'an entry of --config', args: (): string[] => ['--config', config()] },
  { form: 'the one command after --', args: (): string[] => ['--', process.execPath, fixturePath('upstreams/needs-proxy.mjs')] },
];

describe("an upstream's environment", () => {
  test.each(FORMS)(
    'an upstream that can only start with HTTPS_PROXY set sees it, with the other proxy and CA variables, and nothing else of ours, as $form',
    async ({ args }) => {
      const ours = {
        HTTPS_PROXY: 'http://proxy.example:3128',
        http_proxy: 'http://proxy.example:3128',
        NO_PROXY: 'localhost,127.0.0.1',
        NODE_EXTRA_CA_CERTS: '/etc/ssl/corp-ca.pem',
        SSL_CERT_DIR: '/etc/ssl/certs',
        CODEMODE_TEST_SECRET: 'not for upstreams',
      };
      // No pool: what is checked is the upstream's environment; the one run makes its child.
      const server = await startServer(['--pool', '0', ...args()], { env: ours });
      const env = JSON.parse(
        String(valueOf(await server.run({ code: 'return (await tools["env"]({})).content[0].text' }))),
      ) as Record<string, string>;
      expect(env).toMatchObject({
        HTTPS_PROXY: ours.HTTPS_PROXY,
        http_proxy: ours.http_proxy,
        NO_PROXY: ours.NO_PROXY,
        NODE_EXTRA_CA_CERTS: ours.NODE_EXTRA_CA_CERTS,
        SSL_CERT_DIR: ours.SSL_CERT_DIR,
      });
      expect(env.CODEMODE_TEST_SECRET).toBeUndefined();
      expect(await server.close()).toEqual([]);
    },
  );

  test("one that can't start says why in the log and in the tool's description, with the last lines of its stderr", async () => {
    const server = await startServer(['--config', config(), '--pool', '0']);
    const [tool] = (await server.client.listTools()).tools;
    await until(() => server.stderr().includes('upstream "proxied" failed to start'));
    const logged = server
      .stderr()
      .split('\n')
      .find((line) => line.includes('upstream "proxied" failed to start'))!;
    expect(logged).toContain(
      'it exited during startup; its stderr last said: "npm error code SELF_SIGNED_CERT_IN_CHAIN" / "npm error errno SELF_SIGNED_CERT_IN_CHAIN" / ' +
        '"npm error request to https://registry.npmjs.org/some-server failed, reason: self-signed certificate in certificate chain" / ' +
        '"npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log"',
    );
    expect(tool!.description).toContain(
      'Upstream servers not serving their tools now:\n- proxied is down: it exited during startup; its stderr last said: "npm error code SELF_SIGNED_CERT_IN_CHAIN"',
    );
    expect(tool!.description).toContain('debug-0.log"');
    expect(tool!.description!.length).toBeLessThanOrEqual(2_048);
    expect(await server.close()).toEqual([]);
  });
});
