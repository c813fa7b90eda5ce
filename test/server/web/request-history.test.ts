import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestHistory } from '../../../src/server/web/request-history.ts';
import { FakeClock } from '../../support/fake-clock.ts';

describe('RequestHistory', () => {
  it('counts responses per minute as answered, refused (503) or failed, over the last hour only', () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 23, 10, 0, 30));
    const history = new RequestHistory(clock);
    for (const status of [200, 200, 404, 503, 500, 503]) history.record(status);
    clock.advance(60_000);
    history.record(200);
    const hour = history.lastHour();
    assert.equal(hour.length, 60);
    assert.deepEqual(hour.at(-2), { minute: Date.UTC(2026, 10, 23, 10, 0), answered: 3, refused: 2, failed: 1 });
    assert.deepEqual(hour.at(-1), { minute: Date.UTC(2026, 10, 23, 10, 1), answered: 1, refused: 0, failed: 0 });
    assert.deepEqual(hour[0], { minute: Date.UTC(2026, 10, 23, 9, 2), answered: 0, refused: 0, failed: 0 });
    clock.advance(60 * 60_000);
    assert.ok(
      history.lastHour().every((m) => m.answered + m.refused + m.failed === 0),
      'an hour later, nothing is left',
    );
  });

  it('keeps at most an hour of minutes, however long it runs', () => {
    const clock = new FakeClock(0);
    const history = new RequestHistory(clock);
    for (let minute = 0; minute < 500; minute++) {
      if (minute > 0) clock.advance(60_000);
      history.record(200);
    }
    assert.equal(
      history.lastHour().reduce((sum, m) => sum + m.answered, 0),
      60,
    );
  });
});
