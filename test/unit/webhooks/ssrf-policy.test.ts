import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isForbiddenAddress, URL_REFUSALS } from '#shared/domain/webhooks/ssrf-policy';

const production = { allowPrivate: false };
const local = { allowPrivate: true };

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1'],
    ['127.255.255.254'],
    ['::1'],
    ['0.0.0.0'],
    ['0.1.2.3'],
    ['::'],
    ['10.0.0.1'],
    ['172.16.0.1'],
    ['172.31.255.255'],
    ['192.168.1.1'],
    ['100.64.0.1'],
    ['100.127.255.255'],
    ['169.254.0.1'],
    ['169.254.169.254'],
    ['169.254.170.2'],
    ['fe80::1'],
    ['fe80::1%eth0'],
    ['fd00:ec2::254'],
    ['fc00::1'],
    ['224.0.0.1'],
    ['239.255.255.250'],
    ['240.0.0.1'],
    ['255.255.255.255'],
    ['ff02::1'],
    ['192.0.2.10'],
    ['198.18.0.1'],
    ['198.19.255.255'],
    ['198.51.100.7'],
    ['203.0.113.9'],
    ['192.0.0.192'],
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:169.254.169.254'],
    ['::ffff:10.0.0.1'],
    ['::127.0.0.1'],
    ['64:ff9b::127.0.0.1'],
    ['64:ff9b::a9fe:a9fe'],
    ['2002:7f00:1::1'],
    ['2002:a9fe:a9fe::'],
    ['2001:db8::1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['not-an-ip'],
    [''],
  ])('forbids %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    ['8.8.8.8'],
    ['93.184.215.14'],
    ['172.32.0.1'],
    ['172.15.255.255'],
    ['100.128.0.1'],
    ['192.169.0.1'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
    ['2002:808:808::1'],
  ])('allows the public address %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe('checkWebhookUrl', () => {
  it('accepts a public https URL on 443 or 8443 and returns the host to resolve', () => {
    const results = [
      'https://hooks.example.com/in?x=1',
      'https://hooks.example.com:8443/',
      'https://hooks.example.com.:443/',
    ].map((url) => checkWebhookUrl(url, production));

    expect(results.map((result) => result.ok && result.hostname)).toEqual([
      'hooks.example.com',
      'hooks.example.com',
      'hooks.example.com',
    ]);
  });

  it.each([
    ['not a url', URL_REFUSALS.invalid],
    ['http://hooks.example.com/', URL_REFUSALS.scheme],
    ['file:///etc/passwd', URL_REFUSALS.scheme],
    ['gopher://x', URL_REFUSALS.scheme],
    ['ftp://hooks.example.com/', URL_REFUSALS.scheme],
    ['https://user:pass@hooks.example.com/', URL_REFUSALS.credentials],
    ['https://hooks.example.com:22/', URL_REFUSALS.port],
    ['https://hooks.example.com:80/', URL_REFUSALS.port],
    ['https://localhost/', URL_REFUSALS.name],
    ['https://localhost./', URL_REFUSALS.name],
    ['https://api.localhost/', URL_REFUSALS.name],
    ['https://metadata/', URL_REFUSALS.name],
    ['https://db.internal/', URL_REFUSALS.name],
    ['https://printer.local/', URL_REFUSALS.name],
    ['https://127.0.0.1/', URL_REFUSALS.address],
    ['https://0x7f000001/', URL_REFUSALS.address],
    ['https://2130706433/', URL_REFUSALS.address],
    ['https://017700000001/', URL_REFUSALS.address],
    ['https://127.1/', URL_REFUSALS.address],
    ['https://0/', URL_REFUSALS.address],
    ['https://[::1]/', URL_REFUSALS.address],
    ['https://[::ffff:127.0.0.1]/', URL_REFUSALS.address],
    ['https://[fd00:ec2::254]/', URL_REFUSALS.address],
    ['https://169.254.169.254/latest/meta-data/', URL_REFUSALS.address],
  ])('refuses %s in production', (url, reason) => {
    expect(checkWebhookUrl(url, production)).toEqual({ ok: false, reason });
  });

  it('allows http, any port and private hosts when private targets are allowed, but never other schemes or userinfo', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9999/hook', local)).toMatchObject({ ok: true, hostname: '127.0.0.1' });
    expect(checkWebhookUrl('http://[::1]:8080/', local)).toMatchObject({ ok: true, hostname: '::1' });
    expect(checkWebhookUrl('http://localhost./', local)).toMatchObject({ ok: true, hostname: 'localhost' });
    expect(checkWebhookUrl('file:///etc/passwd', local)).toEqual({ ok: false, reason: URL_REFUSALS.scheme });
    expect(checkWebhookUrl('gopher://x', local)).toEqual({ ok: false, reason: URL_REFUSALS.scheme });
    expect(checkWebhookUrl('http://a:b@127.0.0.1/', local)).toEqual({ ok: false, reason: URL_REFUSALS.credentials });
  });
});
