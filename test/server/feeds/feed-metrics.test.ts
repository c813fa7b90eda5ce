import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListConfig, SourceConfig } from '../../../src/server/config/config.ts';
import { feedMetrics } from '../../../src/server/feeds/feed-metrics.ts';
import { loadList } from '../../../src/server/feeds/sources/feed-source.ts';
import { SourceStates } from '../../../src/server/feeds/sources/source-states.ts';

const entries = (lines: string[], name?: string): SourceConfig => ({
  kind: 'entries',
  entries: lines,
  format: 'expressions',
  csvColumn: undefined,
  ...(name === undefined ? {} : { name }),
});
const list = (...sources: SourceConfig[]): ListConfig => ({
  name: 'se-4b',
  threatTypes: ['SOCIAL_ENGINEERING'],
  likelySafeTypes: [],
  hashLength: 4,
  description: '',
  sources,
});

describe('feedMetrics', () => {
  it('describes the sources as they are at each scrape, and forgets the ones a reload removed', async () => {
    const states = new SourceStates();
    const registry = feedMetrics(states);
    await loadList(list(entries(['a.example/', 'b.example/'], 'by-hand'), entries(['word'])), undefined, states);
    let text = await registry.metrics();
    assert.match(text, /sbkit_feed_source_entries\{list="se-4b",source="0",name="by-hand"\} 2\n/);
    assert.match(text, /sbkit_feed_source_up\{list="se-4b",source="1",name="inline entries"\} 0\n/);
    assert.match(text, /sbkit_feed_source_failures_total\{list="se-4b",source="1",name="inline entries",kind="not-a-feed"\} 1\n/);
    assert.doesNotMatch(text, /sbkit_feed_source_requests_total\{/, 'requests are counted for URL sources only');

    await loadList(list(entries(['a.example/'], 'by-hand')), undefined, states);
    text = await registry.metrics();
    assert.match(text, /sbkit_feed_source_entries\{list="se-4b",source="0",name="by-hand"\} 1\n/);
    assert.doesNotMatch(text, /source="1"/);
  });
});
