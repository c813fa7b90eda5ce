// Debian's nginx, which the edge-cache, documentation and chaos tests put in front of sbkit: where it
// is, and whether a test may skip without it. Outside CI a missing nginx skips those tests, saying so;
// in CI (.ci/run installs nginx) it fails them.

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function findNginx(): string | undefined {
  // Debian installs it in /usr/sbin, which a user's PATH often lacks.
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs.filter((d) => d !== '')) {
    try {
      accessSync(join(dir, 'nginx'), constants.X_OK);
      return join(dir, 'nginx');
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** The nginx program, undefined when it is not installed. */
export const NGINX = findNginx();

/** True in CI (CI or SBKIT_CI set, and not "false"), where nginx must be installed. */
const IN_CI = [process.env.CI, process.env.SBKIT_CI].some((value) => value !== undefined && value !== '' && value !== 'false');

/** The `skip` of a test that needs nginx: why, when it is missing outside CI; false otherwise. */
export const NGINX_SKIP: string | false =
  NGINX === undefined && !IN_CI ? 'nginx is not installed (apt-get install nginx; .ci/run installs it in CI)' : false;

/** The nginx program; throws, saying what CI must do, when it is not installed. */
export function requireNginx(): string {
  if (NGINX === undefined) throw new Error('nginx is not installed; CI must install it (.ci/run: apt-get install -y nginx)');
  return NGINX;
}
