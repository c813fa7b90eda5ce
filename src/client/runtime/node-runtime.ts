import { NoV4ListError, v4ListOf } from '../../lists/v4-lists.ts';
import { NoWebRiskListError, webRiskThreatTypeOf } from '../../lists/web-risk-lists.ts';
import { nodeExpressionHasher, nodeSha256 } from '../../url/hash.ts';
import { LocalDatabase } from '../../store/database.ts';
import { VERSION } from '../../version.ts';
import { ClientOptionError } from '../client-errors.ts';
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
  // v4 asks for lists by their triples, Web Risk by threat types: a list without one cannot be kept.
  // Checked here, where both are spoken, so that the browser build (v5 only) carries no table of either.
  checkOptions: (options, protocol) => {
    // Checked here too, as the browser build refuses Web Risk whole.
    if (protocol === 'webrisk' && options.encoding === 'protobuf')
      throw new ClientOptionError('Web Risk is spoken in JSON (its REST front end answers JSON); leave encoding out', {
        option: 'encoding',
      });
    try {
      if (protocol === 'v4') for (const name of options.lists ?? []) v4ListOf(name);
      if (protocol === 'webrisk') for (const name of options.lists ?? []) webRiskThreatTypeOf(name);
    } catch (err) {
      if (err instanceof NoV4ListError || err instanceof NoWebRiskListError)
        throw new ClientOptionError(err.message, { cause: err, option: 'lists' });
      throw err;
    }
  },
};
