import { describe, expect, it } from 'vitest';
import { privateKindOf } from '../../src/fetch/private-address.js';

describe('which addresses are private', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fc00::1', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['2002:7f00:1::', 'loopback'],
  ])('%s is %s', (address, kind) => {
    expect(privateKindOf(address)).toBe(kind);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::'])(
    '%s is public',
    (address) => {
      expect(privateKindOf(address)).toBeNull();
    },
  );

  it('refuses text that is no IP address', () => {
    expect(() => privateKindOf('localhost')).toThrow('localhost is not an IP address');
  });
});
