/**
 * Where a webhook may go: private, loopback, link-local (metadata), reserved and IPv4-carrying IPv6
 * addresses are refused; https only outside the local stage; the local stage allows loopback.
 */
import { describe, expect, it } from 'vitest';
import { addressProblem, checkWebhookUrl, WebhookUrlError } from '../../../lambdas/delivery/address-policy';

describe('address policy', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '169.254.169.254',
    '169.254.170.2',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '2001:0:4136:e378::1',
    '2001:db8::1',
    '::ffff:7f00:1',
  ])('refuses %s', (address) => {
    expect(addressProblem(address, 'public')).toBeDefined();
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::6810:85e5', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(addressProblem(address, 'public')).toBeUndefined();
    },
  );

  it('the local stage allows loopback and private networks, never metadata', () => {
    expect(addressProblem('127.0.0.1', 'local')).toBeUndefined();
    expect(addressProblem('192.168.0.10', 'local')).toBeUndefined();
    expect(addressProblem('169.254.169.254', 'local')).toBeDefined();
  });

  it('URLs: https outside the local stage, no credentials, no fragment, no private literal, no localhost', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x?token=1', 'public').hostname).toBe(
      'hooks.example.com',
    );
    for (const bad of [
      'http://hooks.example.com/',
      'https://user:pw@hooks.example.com/',
      'https://hooks.example.com/#x',
      'https://10.0.0.1/',
      'https://[::1]/',
      'https://localhost:8443/',
      'ftp://hooks.example.com/',
      'not a url',
    ]) {
      expect(() => checkWebhookUrl(bad, 'public'), bad).toThrow(WebhookUrlError);
    }
    expect(checkWebhookUrl('http://localhost:9000/hook', 'local').port).toBe(9000);
  });
});
