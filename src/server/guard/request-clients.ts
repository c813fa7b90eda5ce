// Who a request comes from, as load control budgets it without an API key (LC-1): its agent class, its
// address (an IPv6 client's /64) and neighbourhood (its /56), its key in the hit stores and the budgets
// it counts in. Worked out once
// per recent peer, X-Forwarded-For and User-Agent, and once per kept-alive connection, not per request.

import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AgentClass, AgentClassifier } from './agent-class.ts';
import { addressKey, clientAddress, neighbourhoodKey, type TrustedProxies } from './client-address.ts';
import type { Budget } from './hit-store.ts';
import { BoundedMap } from '../../store/bounded-map.ts';

/** Only the start of a User-Agent counts: kilobytes of it must not cost kilobytes of work per request. */
const MAX_AGENT_LENGTH = 512;
/** Recent clients remembered with who they are, so that a client's next request does not work it out again. */
const RECENT_CLIENTS_KEPT = 4096;
/** Longer peer, X-Forwarded-For and User-Agent together are worked out every time: the memo stays a few megabytes at most. */
const MAX_REMEMBERED_CLIENT_LENGTH = 1024;

/** Who a client is, as load control budgets it without an API key. */
export interface RequestClient {
  agent: AgentClass;
  /** Its address, an IPv6 client's /64: the slot its requests under way count in. */
  address: string;
  /** An IPv6 client's /56, where its /64's requests count too; none for IPv4, whose address is its own neighbourhood. */
  neighbourhood: string | undefined;
  /** Its key in the hit stores: address and User-Agent hashed, so that what is remembered per client (and sent to Redis) stays small. */
  client: string;
  budgets: readonly Budget[];
}

/**
 * What a request says of its client: what arrives before the body. `connection`, the request's socket,
 * lets the next request on the same connection skip working out who its client is again.
 */
export interface AskedRequest {
  url: string;
  headers: IncomingHttpHeaders;
  peer: string;
  connection?: object;
}

/** Who a connection's latest request came from, as its headers named the client. */
interface ConnectionClient {
  forwardedFor: string | string[] | undefined;
  userAgent: string | undefined;
  client: RequestClient;
}

/** The clients of requests, each worked out once while it is recent. */
export class RequestClients {
  private readonly recent = new BoundedMap<string, RequestClient>(RECENT_CLIENTS_KEPT);
  /** Each open connection's latest client, forgotten with the connection. */
  private readonly connections = new WeakMap<object, ConnectionClient>();

  /** `budgets` gives the budgets of a client (its key in the hit stores) at an address and in a neighbourhood. */
  constructor(
    private readonly trusted: TrustedProxies,
    private readonly classifier: AgentClassifier,
    private readonly budgets: (client: string, address: string, neighbourhood: string | undefined) => readonly Budget[],
  ) {}

  /**
   * The client of `request`, taken from its connection's previous request when that named the client
   * with the same headers (as a kept-alive connection's requests do).
   */
  of(request: AskedRequest): RequestClient {
    const forwardedFor = request.headers['x-forwarded-for'];
    const userAgent = request.headers['user-agent'];
    const { connection } = request;
    const previous = connection === undefined ? undefined : this.connections.get(connection);
    if (previous !== undefined && previous.userAgent === userAgent && previous.forwardedFor === forwardedFor) return previous.client;
    const client = this.ofPeer(request.peer, forwardedFor, userAgent);
    if (connection !== undefined) this.connections.set(connection, { forwardedFor, userAgent, client });
    return client;
  }

  /** The client of a peer, X-Forwarded-For and User-Agent, from the recent ones when it is one of them. */
  private ofPeer(peer: string, forwardedFor: string | string[] | undefined, userAgentHeader: string | undefined): RequestClient {
    const userAgent = userAgentHeader?.slice(0, MAX_AGENT_LENGTH) ?? '';
    const forwarded = typeof forwardedFor === 'string' ? forwardedFor : (forwardedFor?.join(',') ?? '');
    const work = (): RequestClient => {
      const origin = clientAddress(peer, forwardedFor, this.trusted);
      const address = addressKey(origin);
      const wider = neighbourhoodKey(origin);
      const neighbourhood = wider === address ? undefined : wider;
      const client = hash('sha256', `${address}\n${userAgent}`, 'base64url').slice(0, 22);
      return {
        agent: this.classifier.classify(userAgentHeader === undefined ? undefined : userAgent),
        address,
        neighbourhood,
        client,
        budgets: this.budgets(client, address, neighbourhood),
      };
    };
    const memo = `${peer}\n${forwarded}\n${userAgent}`;
    return memo.length > MAX_REMEMBERED_CLIENT_LENGTH ? work() : this.recent.getOrCompute(memo, work);
  }
}
