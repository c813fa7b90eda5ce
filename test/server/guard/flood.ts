// A client that floods a server with API requests, for the overload test: `node --import tsx flood.ts
// URL SECONDS MIN_REQUESTS MAX_REQUESTS AGENTS`. It sends for SECONDS, and on past them (up to 30 s) until
// it has sent MIN_REQUESTS: on a loaded machine a flood bounded by time alone can stay within the clients'
// budgets and prove nothing about refusals. Many connections at once, each request from one of AGENTS distinct
// API clients: its own User-Agent and its own loopback address (127.0.1.x; Linux routes all of 127/8 to
// the loopback interface), since one address is capped whatever User-Agents it claims. Prints one JSON
// line: status counts, and how many 503s lacked Retry-After.
import { Agent, get } from 'node:http';

const [url = '', seconds = '3', minRequests = '0', maxRequests = '20000', agents = '100'] = process.argv.slice(2);
const started = Date.now();
const deadline = started + Number(seconds) * 1000;
const hardDeadline = started + 30_000;
const agent = new Agent({ keepAlive: true, maxSockets: 50 });
const statuses: Record<string, number> = {};
let sent = 0;
let missingRetryAfter = 0;

function one(): Promise<void> {
  return new Promise((resolve) => {
    const client = sent % Number(agents);
    sent++;
    const localAddress = `127.0.${1 + Math.floor(client / 250)}.${1 + (client % 250)}`;
    const request = get(url, { agent, localAddress, headers: { 'user-agent': `flood-client/${client}` } }, (response) => {
      statuses[response.statusCode ?? 0] = (statuses[response.statusCode ?? 0] ?? 0) + 1;
      if (response.statusCode === 503 && response.headers['retry-after'] === undefined) missingRetryAfter++;
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', () => {
      statuses.error = (statuses.error ?? 0) + 1;
      resolve();
    });
  });
}

async function worker(): Promise<void> {
  const going = (): boolean => (Date.now() < deadline || sent < Number(minRequests)) && Date.now() < hardDeadline;
  while (going() && sent < Number(maxRequests)) await one();
}

await Promise.all(Array.from({ length: 50 }, worker));
agent.destroy();
process.stdout.write(`${JSON.stringify({ sent, statuses, missingRetryAfter })}\n`);
