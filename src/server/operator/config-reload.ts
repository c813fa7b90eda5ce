// What a reload (SIGHUP) of the configuration changes while the server runs, and what takes a restart.
//
//   in force at once   apiKeys, adminToken (a new value), minimumWaitSeconds, cacheDurationSeconds and the
//                      positive and negative ones, changingMinimumWaitSeconds, changingWindowSeconds,
//                      the sources of each list, their refresh intervals, feedTimeoutSeconds,
//                      feedMaxMegabytes, webRiskLists, the tls files (read again)
//   takes a restart    the lists themselves (added, removed, renamed, other types, width or description),
//                      switching the admin token or TLS on or off, and every other setting (keepVersions,
//                      dataDir, listCacheSeconds, corsOrigins, adminListen, http, loadControl,
//                      upstreamSearches, and any added later); the flags
//
// The lists are what clients hold versions of: a list that appeared or changed its width in the middle
// of a run would have to be followed anew by every instance and every client, so it waits for a restart,
// like the parts made once at start (listeners, load control, connection limits). A setting that takes
// a restart keeps its running value, and the log says so; the rest of the reload applies.

import { isDeepStrictEqual } from 'node:util';
import { CLIENT_TIMING_FIELDS, type ListConfig, type ServerConfig } from '../config/config.ts';

/** What to run after a reload, and what of the new configuration waits for a restart. */
export interface ReloadPlan {
  /** The new configuration's settings that can change while serving, the running one's for the others. */
  config: ServerConfig;
  /** One line for each setting that changed but takes a restart, saying what stays in force. */
  restartNeeded: string[];
}

/** Settings taken from the new configuration as they are; `lists`, `adminToken` and `tls` are taken in part. */
const RELOADABLE: ReadonlySet<string> = new Set([...CLIENT_TIMING_FIELDS, 'apiKeys', 'feedLimits', 'webRiskLists']);
const IN_PART: ReadonlySet<string> = new Set(['lists', 'adminToken', 'tls']);

/** What a list is, as clients see it: everything but its sources. */
function definitionOf(list: ListConfig): ListConfig {
  return { ...list, sources: [] };
}

/** The running lists, each with its new sources when the new configuration defines it the same way. */
function reloadLists(running: readonly ListConfig[], next: readonly ListConfig[], restartNeeded: string[]): ListConfig[] {
  const lists = running.map((list) => {
    const renewed = next.find((candidate) => candidate.name === list.name);
    if (renewed === undefined) {
      restartNeeded.push(`lists: ${list.name} is removed; it is served, from its running sources, until a restart`);
      return list;
    }
    if (!isDeepStrictEqual(definitionOf(renewed), definitionOf(list))) {
      restartNeeded.push(
        `lists: ${list.name} is defined anew (types, hash length or description); it keeps its running definition and sources until a restart`,
      );
      return list;
    }
    return renewed;
  });
  for (const added of next.filter((list) => !running.some((candidate) => candidate.name === list.name))) {
    restartNeeded.push(`lists: ${added.name} is new; it is served from the next restart`);
  }
  return lists;
}

/**
 * Plans a reload: `running` is the configuration in force, `next` the file read again and checked.
 * Pure; the service applies the plan and logs `restartNeeded`.
 */
export function planReload(running: ServerConfig, next: ServerConfig): ReloadPlan {
  const restartNeeded: string[] = [];
  const config: Record<string, unknown> = { ...next };
  const keys = new Set([...Object.keys(running), ...Object.keys(next)]) as Set<keyof ServerConfig>;
  for (const key of keys) {
    if (RELOADABLE.has(key) || IN_PART.has(key) || isDeepStrictEqual(running[key], next[key])) continue;
    restartNeeded.push(`${key}: changed; the running value stays in force until a restart`);
    if (running[key] === undefined) delete config[key];
    else config[key] = running[key];
  }
  config.lists = reloadLists(running.lists, next.lists, restartNeeded);
  if ((running.adminToken === undefined) !== (next.adminToken === undefined)) {
    const state = running.adminToken === undefined ? 'off' : 'on, with the running token';
    restartNeeded.push(`adminToken: switching the operator endpoints on or off takes a restart; they stay ${state}`);
    config.adminToken = running.adminToken;
  }
  if ((running.tls === undefined) !== (next.tls === undefined)) {
    const state = running.tls === undefined ? 'without TLS' : 'with the running certificate';
    restartNeeded.push(`tls: switching HTTPS on or off takes a restart; the server goes on ${state}`);
    if (running.tls === undefined) delete config.tls;
    else config.tls = running.tls;
  }
  return { config: config as unknown as ServerConfig, restartNeeded };
}
