import { nodeExpressionHasher, nodeSha256 } from '../../url/hash.ts';
import { LocalDatabase } from '../../store/database.ts';
import { VERSION } from '../../version.ts';
import type { ClientRuntime } from './client-runtime.ts';
import { connect } from '../transport/connect.ts';

/**
 * The client on Node: node:crypto's one-shot hash (synchronous, so a check never waits for a hash) for
 * expressions and list checksums alike, the local database in `dataDir` (crash-safe files), node:http and
 * Oblivious HTTP through a relay.
 */
export const nodeRuntime: ClientRuntime = {
  hasher: nodeExpressionHasher,
  sha256: nodeSha256,
  openStore: (options, onDamaged) =>
    options.dataDir === undefined
      ? Promise.resolve(undefined)
      : LocalDatabase.open(options.dataDir, { onDamaged, readOnly: options.readOnly === true }),
  connect,
  userAgent: `sbkit/${VERSION}`,
};
