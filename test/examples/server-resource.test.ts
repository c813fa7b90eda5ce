import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// The sample is plain JavaScript, without declarations: imported by its URL, typed here.
const SAMPLE = new URL('../../examples/web/src/server-resource.js', import.meta.url).href;
const { serverResource } = (await import(SAMPLE)) as { serverResource: (server: string, path: string) => string };

/** A server URL as `?server=` gives it, and where its key configuration is. */
const CASES: [server: string, keys: string][] = [
  ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/ohttp-keys'],
  ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/ohttp-keys'],
  ['https://host.example/sb/', 'https://host.example/sb/ohttp-keys'],
  ['https://host.example/sb', 'https://host.example/sb/ohttp-keys'],
  ['https://host.example/a/b//', 'https://host.example/a/b/ohttp-keys'],
  ['https://host.example/sb/?x=1#top', 'https://host.example/sb/ohttp-keys'],
];

describe('the page sample’s URLs of its server’s resources', () => {
  it('are under the server’s own path, with or without a final slash', () => {
    for (const [server, keys] of CASES) assert.equal(serverResource(server, 'ohttp-keys'), keys, server);
    assert.equal(serverResource('https://host.example/sb/', 'advisory/MALWARE'), 'https://host.example/sb/advisory/MALWARE');
  });
});
