/**
 * A resource of the Safe Browsing server, under the server's own path, as the client joins its API paths
 * to it: for a server at `https://host/sb/` (or `https://host/sb`), `ohttp-keys` is
 * `https://host/sb/ohttp-keys`, where `new URL('/ohttp-keys', server)` would drop the `/sb`.
 */
export function serverResource(server, path) {
  const url = new URL(server);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.search = '';
  url.hash = '';
  return url.href;
}
