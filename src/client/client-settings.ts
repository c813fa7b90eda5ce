// The client's options read once, before any part is made: names, types and ranges (option-check.ts),
// then the combinations that cannot work, each refused with a ClientOptionError naming the option, and
// the defaults of what the options leave unsaid. Every part is made from what this returns.

import { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, WEB_RISK_THREAT_LISTS } from '../lists/known-lists.ts';
import { listNameProblem, listNameReason } from '../lists/list-name.ts';
import { type Clock, systemClock } from '../time/clock.ts';
import { ClientOptionError } from './client-errors.ts';
import { checkClientOptions } from './option-check.ts';
import {
  DEFAULT_MAX_LIST_ENTRIES,
  GOOGLE_SERVER,
  isHttpUrl,
  type Mode,
  type SafeBrowsingClientOptions,
  WEB_RISK_SERVER,
} from './options.ts';
import type { ClientRuntime } from './runtime/client-runtime.ts';
import type { ServerSettings } from './transport/transport.ts';

/** What a client is, once its options are checked and their defaults filled in. */
export interface ClientSettings {
  /** The protocol spoken to the server. */
  protocol: 'v5' | 'v4' | 'webrisk';
  /** The SB-4 mode checks run in. */
  mode: Mode;
  /** The threat lists kept locally; none in no-storage mode. */
  threatLists: string[];
  /** The global cache list, kept in real-time mode only. */
  globalCache: string | undefined;
  /** Lists kept only where the server publishes them (the global cache, threat lists the caller did not name); others it must. */
  optional: ReadonlySet<string>;
  /** How the transport reaches the server. */
  server: ServerSettings;
  clock: Clock;
  random: () => number;
}

/**
 * The settings of a client with `options` on `runtime`.
 *
 * @throws ClientOptionError for options that cannot work: an unknown option, a value of the wrong type
 *   or range, real-time mode or Oblivious HTTP over v4 or Web Risk, a server that is no http(s) URL, a
 *   list name that is none, no threat list outside no-storage mode, and what the runtime itself refuses.
 */
export function clientSettings(options: SafeBrowsingClientOptions, runtime: ClientRuntime): ClientSettings {
  checkClientOptions(options, runtime.optionRules);
  const protocol = options.protocol ?? 'v5';
  const mode = options.mode ?? (protocol === 'v5' ? 'realtime' : 'local');
  if (mode === 'realtime' && protocol !== 'v5') {
    throw new ClientOptionError(`real-time mode needs the v5 protocol (${protocol} has no global cache); use mode "local" or "nostorage"`, {
      option: 'mode',
    });
  }
  if (options.ohttp !== undefined && protocol !== 'v5')
    throw new ClientOptionError('Oblivious HTTP carries v5 hashes:search only; use the v5 protocol', { option: 'ohttp' });
  const serverUrl = options.server ?? (protocol === 'webrisk' ? WEB_RISK_SERVER : GOOGLE_SERVER);
  if (!isHttpUrl(serverUrl))
    throw new ClientOptionError(`the server "${serverUrl}" is not an http or https URL, such as ${GOOGLE_SERVER}`, { option: 'server' });
  // Checked in no-storage mode too, where the lists named are not kept: a name that cannot work is a mistake.
  for (const name of options.lists ?? []) {
    const problem = listNameProblem(name);
    if (problem !== undefined) throw new ClientOptionError(`lists: ${listNameReason(name, problem)}`, { option: 'lists' });
  }
  // No threat list would answer every URL from nothing: SAFE for all of them.
  if (options.lists?.length === 0 && mode !== 'nostorage')
    throw new ClientOptionError(`lists is empty; ${mode} mode needs at least one threat list (or mode "nostorage", which keeps none)`, {
      option: 'lists',
    });
  runtime.checkOptions?.(options, protocol);
  const threatLists =
    mode === 'nostorage' ? [] : [...(options.lists ?? (protocol === 'webrisk' ? WEB_RISK_THREAT_LISTS : DEFAULT_THREAT_LISTS))];
  const globalCache = mode === 'realtime' ? GLOBAL_CACHE_LIST : undefined;
  const optional = new Set<string>(options.lists === undefined ? threatLists : []);
  const clock = options.clock ?? systemClock;
  if (globalCache !== undefined) optional.add(globalCache);
  return {
    protocol,
    mode,
    threatLists,
    globalCache,
    optional,
    server: {
      serverUrl,
      apiKey: options.apiKey,
      encoding: protocol === 'webrisk' ? 'json' : (options.encoding ?? 'protobuf'),
      userAgent: options.userAgent ?? runtime.userAgent,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
      sizeConstraints: { maxUpdateEntries: 0, maxDatabaseEntries: 0, ...options.sizeConstraints },
      maxListEntries: options.maxListEntries ?? DEFAULT_MAX_LIST_ENTRIES,
      clock,
    },
    clock,
    random: options.random ?? Math.random,
  };
}
