// A reload of a running service (SIGHUP, `Service.reload`): the configuration file and the certificate
// read again and checked before anything changes; a configuration or certificate that does not check
// out is refused and the running one kept; then what may change while serving is applied
// (operator/config-reload.ts says what: keys, admin token, waits, each list's sources).

import { SbkitError } from '../sbkit-error.ts';
import { ConfigError } from './config/config-error.ts';
import { configWarnings, readServerConfig, type ServerConfig } from './config/config.ts';
import type { SafeBrowsingServer } from './http/server.ts';
import { describeCertificate, readTlsCredentials, type TlsCredentials } from './http/tls.ts';
import { planReload } from './operator/config-reload.ts';
import {
  accessOptions,
  type LoggingService,
  refuseIdleUpstreamKey,
  type ServiceConfig,
  tlsFilesOf,
  withAdminToken,
} from './service-config.ts';
import type { Lists } from './service-lists.ts';

/** What a reload needs of a running service. */
export interface Running {
  service: LoggingService;
  server: SafeBrowsingServer;
  lists: Lists;
  /** The configuration in force, and its file; undefined for the demo lists and a proxy without one. */
  config: ServerConfig | undefined;
  file: string | undefined;
  /** Whether the server speaks TLS: switching it on or off takes a restart. */
  tls: boolean;
  /** Set when the service stops: a reload under way is abandoned. */
  stopping: boolean;
}

/**
 * The service's reload: one at a time, each after the one before, whatever became of it. Resolves to
 * whether the reload was applied; `running.config` follows every one applied.
 */
export function reloads(running: Running): () => Promise<boolean> {
  let reloading: Promise<boolean> = Promise.resolve(true);
  return () => {
    reloading = reloading.then(async () => {
      const outcome = await reloadService(running);
      if (outcome !== undefined) running.config = outcome.config;
      return outcome !== undefined;
    });
    // A reload that failed unexpectedly must not stop the next ones.
    const current = reloading;
    reloading = current.catch(() => false);
    return current;
  };
}

/**
 * A reload: the file read again and checked, the certificate too, before anything changes; then what
 * may change applied (config-reload.ts). Resolves to the configuration now in force, or undefined when
 * the reload was refused.
 */
async function reloadService(running: Running): Promise<{ config: ServerConfig | undefined } | undefined> {
  const { service, server, lists, file } = running;
  const { log } = service;
  let next = running.config;
  try {
    if (file !== undefined) next = withAdminToken(service, await readServerConfig(file));
    if (service.lists.from === 'upstream' && next !== undefined && next.lists.length > 0) {
      throw new ConfigError('lists', 'a proxy serves its upstream\'s lists; leave "lists" out of its configuration', file);
    }
    if (next !== undefined) refuseIdleUpstreamKey(service.lists, next, file);
  } catch (error) {
    if (!(error instanceof SbkitError)) throw error;
    log.error(`reload refused, the running configuration is kept: ${error.message}`);
    return undefined;
  }
  const plan =
    running.config === undefined || next === undefined
      ? undefined
      : planReload(withoutFlagTls(service, running.config), withoutFlagTls(service, next));
  const files = tlsFilesOf(service, plan?.config, file);
  let credentials: TlsCredentials | undefined;
  if (files !== undefined && running.tls) {
    try {
      credentials = await readTlsCredentials(files);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      log.error(`reload refused, the running configuration and certificate are kept: ${error.message}`);
      return undefined;
    }
  }
  for (const line of plan?.restartNeeded ?? []) log.warn(`reload: ${line}`);
  for (const warning of next === undefined ? [] : configWarnings(next)) log.warn(`reload: ${warning}`);
  // The certificate first: the lists are downloaded again below, and a slow feed must not keep a
  // renewed certificate (perhaps replacing one about to expire) out of service meanwhile.
  if (credentials !== undefined) {
    server.setCertificate(credentials);
    log.info(`TLS certificate ${describeCertificate(credentials.cert)}`);
  }
  if (plan !== undefined) {
    server.reconfigure(accessOptions(plan.config));
    await lists.reconfigure?.(plan.config);
  }
  // Stopped meanwhile: the lists abandoned their downloads and published nothing.
  if (running.stopping) {
    log.info('reload abandoned: stopping');
    return undefined;
  }
  const what = [file, credentials === undefined ? undefined : 'the certificate'].filter((part) => part !== undefined);
  log.info(`reloaded ${what.length === 0 ? 'nothing (no configuration file, no certificate)' : what.join(' and ')}; flags take a restart`);
  return { config: plan?.config ?? next };
}

/** With TLS set by flags, the configuration's `tls` plays no part, and a change of it none in a reload. */
function withoutFlagTls(service: ServiceConfig, config: ServerConfig): ServerConfig {
  if (service.tls === undefined) return config;
  const rest = { ...config };
  delete rest.tls;
  return rest;
}
