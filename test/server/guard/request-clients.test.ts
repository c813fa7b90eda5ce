import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentClassifier } from '../../../src/server/guard/agent-class.ts';
import { TrustedProxies } from '../../../src/server/guard/client-address.ts';
import type { Budget } from '../../../src/server/guard/hit-store.ts';
import { RequestClients } from '../../../src/server/guard/request-clients.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const PROXY = '10.0.0.1';

/** Clients behind the trusted proxy 10.0.0.1, and how many times their budgets were worked out. */
function clients(): { clients: RequestClients; worked: string[] } {
  const worked: string[] = [];
  const budgets = (client: string, address: string): Budget[] => {
    worked.push(address);
    return [{ key: client, max: 1, refusal: 'rate' }];
  };
  return { clients: new RequestClients(new TrustedProxies([PROXY]), new AgentClassifier(), budgets), worked };
}

const asked = (peer: string, headers: Record<string, string> = {}, connection?: object) => ({
  url: '/v5/hashes:search?hashPrefixes=AAAAAA',
  headers,
  peer,
  ...(connection === undefined ? {} : { connection }),
});

describe('RequestClients', () => {
  it('tells clients apart by address and User-Agent, and classes their agents', () => {
    const { clients: c } = clients();
    const browser = c.of(asked('192.0.2.1', { 'user-agent': FIREFOX }));
    const crawler = c.of(asked('192.0.2.1', { 'user-agent': GOOGLEBOT }));
    const elsewhere = c.of(asked('192.0.2.2', { 'user-agent': FIREFOX }));
    assert.equal(browser.agent.kind, 'browser');
    assert.equal(crawler.agent.kind, 'crawler');
    assert.equal(browser.address, crawler.address);
    assert.notEqual(browser.client, crawler.client);
    assert.notEqual(browser.client, elsewhere.client);
    assert.deepEqual(browser.budgets, [{ key: browser.client, max: 1, refusal: 'rate' }]);
  });

  it('believes X-Forwarded-For from a trusted proxy only, and keys an IPv6 client by its /64', () => {
    const { clients: c } = clients();
    assert.equal(c.of(asked(PROXY, { 'x-forwarded-for': '198.51.100.7' })).address, '198.51.100.7');
    assert.equal(c.of(asked('192.0.2.1', { 'x-forwarded-for': '198.51.100.7' })).address, '192.0.2.1');
    assert.equal(c.of(asked('2001:db8:1:2:3:4:5:6')).address, '2001:db8:1:2::/64');
  });

  it('works a recent client out once, and once per kept-alive connection while its headers stay the same', () => {
    const { clients: c, worked } = clients();
    const connection = {};
    const first = c.of(asked('192.0.2.1', { 'user-agent': FIREFOX }, connection));
    assert.equal(c.of(asked('192.0.2.1', { 'user-agent': FIREFOX }, connection)), first);
    assert.equal(c.of(asked('192.0.2.1', { 'user-agent': FIREFOX })), first);
    assert.deepEqual(worked, ['192.0.2.1']);
    // The same connection naming another agent is another client.
    const other = c.of(asked('192.0.2.1', { 'user-agent': GOOGLEBOT }, connection));
    assert.notEqual(other.client, first.client);
    assert.equal(other.agent.kind, 'crawler');
  });

  it('keys only the start of a long User-Agent, and does not remember very long headers', () => {
    const { clients: c, worked } = clients();
    const start = 'x'.repeat(512);
    const long = c.of(asked('192.0.2.1', { 'user-agent': `${start}${'y'.repeat(2000)}` }));
    assert.equal(long.client, c.of(asked('192.0.2.1', { 'user-agent': `${start}z` })).client);
    const forwarded = 'f'.repeat(2000);
    c.of(asked('192.0.2.9', { 'x-forwarded-for': forwarded }));
    c.of(asked('192.0.2.9', { 'x-forwarded-for': forwarded }));
    assert.equal(worked.filter((address) => address === '192.0.2.9').length, 2);
  });
});
