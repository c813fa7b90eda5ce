import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import { parseLoadControlConfig } from '../../../src/server/guard/load-control-config.ts';
import { loadControlSettings } from '../../../src/server/guard/load-control-settings.ts';

describe('the loadControl section', () => {
  it("reads the neighbourhood's shares, whose defaults follow the address's", () => {
    const { settings } = parseLoadControlConfig({ neighbourhoodBurstMax: 90, maxConcurrentPerNeighbourhood: 7 }, 'loadControl');
    assert.deepEqual(settings, { neighbourhoodBurstMax: 90, neighbourhoodConcurrentMax: 7 });
    const defaults = loadControlSettings({ addressBurstMax: 40, addressConcurrentMax: 4 });
    assert.deepEqual([defaults.neighbourhoodBurstMax, defaults.neighbourhoodConcurrentMax], [80, 8]);
    const lc = loadControlSettings();
    assert.deepEqual([lc.neighbourhoodBurstMax, lc.neighbourhoodConcurrentMax], [60, 10]);
    assert.throws(() => parseLoadControlConfig({ maxConcurrentPerNeighbourhood: 0 }, 'loadControl'), ConfigError);
  });
});
