import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentClassifier, searchEngineCrawlerPatterns } from '../../../src/server/guard/agent-class.ts';

describe('AgentClassifier (LC-1..3 classes)', () => {
  const classifier = new AgentClassifier(['ExampleSearch/\\d']);

  it('knows search-engine crawlers by the crawler-user-agents pattern that matched', () => {
    assert.deepEqual(classifier.classify('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'), {
      kind: 'crawler',
      crawler: 'Googlebot\\/',
    });
    assert.equal(classifier.classify('Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)').kind, 'crawler');
    assert.deepEqual(classifier.classify('ExampleSearch/2 (+https://search.example/bot)'), {
      kind: 'crawler',
      crawler: 'ExampleSearch/\\d',
    });
    assert.ok(searchEngineCrawlerPatterns().length > 100);
  });

  it('assumes a bot for anything that is not a known browser', () => {
    for (const agent of [
      undefined,
      '',
      '  ',
      'curl/8.5.0',
      'sbkit/0.1.0',
      'google-api-nodejs-client/9.15.1',
      'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
      'python-requests/2.31',
    ]) {
      assert.equal(classifier.classify(agent).kind, 'bot', String(agent));
    }
  });

  it('serves browsers as browsers', () => {
    for (const agent of [
      'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
    ]) {
      assert.equal(classifier.classify(agent).kind, 'browser', agent);
    }
  });

  it('classifies very long User-Agents without remembering them', () => {
    assert.equal(classifier.classify(`Mozilla/5.0 (compatible; Googlebot/2.1) ${'x'.repeat(10_000)}`).kind, 'crawler');
    assert.equal(
      classifier.classify(`Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0 ${'a'.repeat(10_000)}`).kind,
      'browser',
    );
  });
});
