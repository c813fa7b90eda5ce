import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFeed } from '../../../../src/server/feeds/formats/feed-formats.ts';
import { MAX_BAD_LINE_SHARE, MIN_LINES_TO_JUDGE, notAFeedReason } from '../../../../src/server/feeds/formats/feed-plausibility.ts';

/** A `urls` feed of `good` listed URLs and `bad` lines that are no URL, in that order. */
function feedOf(good: number, bad: number): string {
  return [
    ...Array.from({ length: good }, (_, i) => `http://listed${i}.example/`),
    ...Array.from({ length: bad }, (_, i) => `<td>row ${i}</td>`),
  ].join('\n');
}

describe('whether a parsed feed is a feed of its format at all', () => {
  it('takes a short hand-kept list with typos as a list, but not one whose every line is bad', () => {
    assert.equal(notAFeedReason(parseFeed(feedOf(1, MIN_LINES_TO_JUDGE - 2), 'urls'), 'urls'), undefined);
    assert.match(
      notAFeedReason(parseFeed(feedOf(0, 3), 'urls'), 'urls') ?? '',
      /^does not look like a urls feed: 3 of its 3 lines are bad; line 1: /,
    );
  });

  it(`refuses a longer text of which more than ${MAX_BAD_LINE_SHARE * 100} % of the lines are bad, and takes one at the share`, () => {
    // 20 lines: 18 bad is exactly 90 %, 19 is more.
    assert.equal(notAFeedReason(parseFeed(feedOf(2, 18), 'urls'), 'urls'), undefined);
    assert.match(
      notAFeedReason(parseFeed(feedOf(1, 19), 'urls'), 'urls') ?? '',
      /19 of its 20 lines are bad.*Check that it serves the feed \(not an error page\) and that "format" is right/,
    );
  });

  it('says "an expressions feed"', () => {
    assert.match(notAFeedReason(parseFeed('<html>\n', 'expressions'), 'expressions') ?? '', /^does not look like an expressions feed/);
  });
});
