/**
 * SB-5 path rules on an unescaped path: resolve `/./` and `/../` (a trailing `/.` or `/..` too, leaving a
 * trailing slash, as `http://www.google.com/blah/..` → `/` shows), then collapse runs of slashes. Dot
 * segments go first, as the spec orders them; neither step can create work for the other afterwards,
 * so the result is stable under a second application.
 */
export function canonicalizePath(path: string): string {
  if (!path.includes('/.') && !path.includes('//')) return path;
  const segments = path.split('/');
  const kept: string[] = [];
  let trailingSlash = false;
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') kept.pop();
      trailingSlash = last;
    } else {
      kept.push(segment);
      trailingSlash = false;
    }
  }
  const joined = `/${kept.filter((s) => s !== '').join('/')}`;
  const endsInSlash = trailingSlash || path.endsWith('/');
  return endsInSlash && joined !== '/' ? `${joined}/` : joined;
}
