// `sbkit serve --log-format pretty`: pino's JSON lines as a person reads them on a terminal — the time of
// day, the level, the message as sbkit has always written it, then the line's other fields. Written here
// rather than taken from pino-pretty, which would bring a dozen packages for these few lines.

/** Fields every line has, or that say nothing on a terminal: not repeated after the message. */
const NOT_SHOWN = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One of pino's JSON lines (level as its label, time as ISO 8601) as a readable line; other text as it is. */
export function prettyLogLine(json: string): string {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof line['time'] === 'string' ? timeOfDay(line['time']) : '';
  const level = typeof line['level'] === 'string' ? line['level'].toUpperCase() : '';
  const fields = Object.entries(line)
    .filter(([name, value]) => !NOT_SHOWN.has(name) && value !== undefined)
    .map(([name, value]) => ` ${name}=${shown(value)}`)
    .join('');
  return `${time} ${level.padEnd(5)} sbkit serve: ${typeof line['msg'] === 'string' ? line['msg'] : ''}${fields}\n`;
}

/** `12:34:56.789`, local time, of an ISO 8601 time. */
function timeOfDay(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A field's value: words without spaces as they are, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
}
