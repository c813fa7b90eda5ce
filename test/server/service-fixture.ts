// `sbkit serve`'s service for tests on loopback: a configuration's lists, in memory, with load control
// and the configuration's own settings, any free port, nothing logged, unless `more` says otherwise.

import type { ServerConfig } from '../../src/server/config/config.ts';
import { type Service, type ServiceConfig, startService } from '../../src/server/service.ts';

/** `file` is where the configuration says it was read from, which the status page names. */
export function startConfiguredService(config: ServerConfig, more: Partial<ServiceConfig> = {}, file = 'sbkit.json'): Promise<Service> {
  return startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config },
    redis: undefined,
    loadControl: true,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: () => undefined,
    ...more,
  });
}
