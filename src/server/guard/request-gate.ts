// Where load control stands in a request's path, as fastify hooks. Health checks and metrics pass by;
// so does an operator's `/admin/` request, but only once its token has been checked (and a wrong one is
// refused there, counted by the failure throttle), so that no one gets past load control by a path. A
// paused server refuses at once. Then the decision (load-control.ts): a request without a body once its
// head is in (onRequest), a request with a body once the body is in (preValidation). LC-5's `load` counts
// the queries the server works on: a body that trickles in must not hold a place (issue 26, S1), and
// taking it only afterwards is what keeps three addresses from holding every place for programs.

import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AgentClass } from './agent-class.ts';
import type { Decision, RefusalReason } from './load-gate.ts';
import { refusal } from './refusal.ts';
import type { AskedRequest } from './request-clients.ts';
import { INNER_REQUEST_ADDRESS } from '../inner-request.ts';

/**
 * The requests of one address (or neighbourhood) admitted and not yet answered: one object per address,
 * shared by its clients, so that counting a request in and out touches no table. An IPv6 address's
 * slot points at its neighbourhood's (its /56), where its requests count too.
 */
export interface Slot {
  underWay: number;
  neighbourhood?: Slot | undefined;
}

/** A decision and whom it concerns; an admitted request's `slot` goes back to `finished()`. */
export interface Outcome {
  decision: Decision;
  agent: AgentClass;
  slot?: Slot | undefined;
}

/** What the hooks ask of load control (load-control.ts). */
export interface GateDecisions {
  /** The outcome when it can be had at once; undefined when {@link decide} must wait for it. */
  decideNow(request: AskedRequest, paused: boolean, apiKeys: ReadonlySet<string>): Outcome | undefined;
  decide(request: AskedRequest, paused: boolean, gone: () => boolean, apiKeys: ReadonlySet<string>): Promise<Outcome>;
  /** An admitted request has been answered. */
  finished(slot?: Slot): void;
  /** Requests whose head is in and whose body is still arriving, not yet decided (a gauge for operators). */
  receiving: number;
  /** How long a client refused for `reason` is told to wait. */
  retryAfterSeconds(reason: RefusalReason): number;
}

/**
 * The operator's check of an `/admin/` request: true when its token is right (and its client not
 * blocked); otherwise false, having answered it (401, or 429 for a client that keeps failing).
 */
export type AdminCheck = (request: FastifyRequest, reply: FastifyReply) => boolean;

const MONITORING_PATH = /^\/(?:healthz|readyz|metrics)(?:\?|$)/;
const ADMIN_PATH = /^\/admin\//;

/**
 * The operator's paths, which a paused server still serves: health checks and metrics, most needed
 * exactly under load, and with admin endpoints (behind their token) everything under `/admin/`.
 */
export function isOperatorPath(url: string, adminEndpoints: boolean): boolean {
  return MONITORING_PATH.test(url) || (adminEndpoints && ADMIN_PATH.test(url));
}

/** Methods whose requests carry no body, decided as soon as their head is in. */
const BODYLESS = new Set(['GET', 'HEAD']);

/** Marks a request whose decision waits for its body, and the gate that counts it among those receiving. */
const AFTER_BODY = Symbol('sbkit load control after the body');
interface DeferredRequest {
  [AFTER_BODY]?: GateDecisions | undefined;
}

/** Takes a deferred request out of the gate's count of those receiving, once: at its decision or when it ends first. */
function bodyReceived(request: DeferredRequest): void {
  const gate = request[AFTER_BODY];
  if (gate === undefined) return;
  request[AFTER_BODY] = undefined;
  gate.receiving--;
}

const GATE = Symbol('sbkit load control');
const SLOT = Symbol('sbkit load-control slot');
/**
 * An answer to an admitted request, carrying what gives its place back when it closes: one listener
 * function serves every answer, rather than a closure and a once-wrapper made for each.
 */
interface AdmittedAnswer {
  [GATE]?: GateDecisions;
  [SLOT]?: Slot | undefined;
}

/** Marks a request with the class load control put its client in. */
const CLIENT_CLASS = Symbol('sbkit load control client class');
interface ClassedRequest {
  [CLIENT_CLASS]?: AgentClass['kind'];
}

/**
 * The class load control put the client of `request` in (browser, bot, crawler: the `class` of its
 * metrics), once it decided on it; undefined for the paths it lets by and without load control.
 */
export function clientClassOf(request: FastifyRequest): AgentClass['kind'] | undefined {
  return (request as FastifyRequest & ClassedRequest)[CLIENT_CLASS];
}

/** The 'close' listener of an admitted request's answer. */
function givePlaceBack(this: AdmittedAnswer): void {
  this[GATE]?.finished(this[SLOT]);
}

/**
 * Puts the gate in front of every route of `app`: `paused` is the operator's switch (LC-5
 * service_paused), `admin` the check of the admin token when the admin endpoints are served here,
 * `apiKeys` the keys the server accepts.
 */
export function registerGate(
  app: FastifyInstance,
  gate: GateDecisions,
  paused: () => boolean,
  admin: AdminCheck | undefined,
  apiKeys: ReadonlySet<string>,
): void {
  // Callback hooks, not async ones: most requests are decided without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const { url } = request;
    const peer = request.socket.remoteAddress ?? '';
    // The requests an OHTTP gateway serves from inside encapsulations: their encapsulating request passed already.
    if (MONITORING_PATH.test(url) || peer === INNER_REQUEST_ADDRESS) return done();
    // The token first: a valid one passes by load control and the pause, anything else is answered here.
    if (admin !== undefined && ADMIN_PATH.test(url)) return void (admin(request, reply) && done());
    const isPaused = paused();
    if (BODYLESS.has(request.method) || isPaused) return decideOn(gate, request, reply, done, isPaused, apiKeys);
    const deferred = request as FastifyRequest & DeferredRequest;
    deferred[AFTER_BODY] = gate;
    gate.receiving++;
    reply.raw.once('close', () => bodyReceived(deferred));
    done();
  });
  app.addHook('preValidation', (request, reply, done) => {
    const deferred = request as FastifyRequest & DeferredRequest;
    if (deferred[AFTER_BODY] === undefined) return done();
    bodyReceived(deferred);
    decideOn(gate, request, reply, done, paused(), apiKeys);
  });
}

/** Decides at once when the gate can, else after what the decision waits for (Redis, load_defer's sleep). */
function decideOn(
  gate: GateDecisions,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  paused: boolean,
  apiKeys: ReadonlySet<string>,
): void {
  const { socket } = request;
  const asked: AskedRequest = { url: request.url, headers: request.headers, peer: socket.remoteAddress ?? '', connection: socket };
  const now = gate.decideNow(asked, paused, apiKeys);
  if (now !== undefined) return conclude(gate, request, reply, done, now, false);
  // Watched from the start: a client that leaves while its request waits must not stay in the load.
  let gone = false;
  const leave = () => {
    gone = true;
  };
  reply.raw.once('close', leave);
  gate
    .decide(asked, paused, () => gone, apiKeys)
    .then(
      (outcome) => {
        reply.raw.off('close', leave);
        conclude(gate, request, reply, done, outcome, gone);
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
}

/** Lets an admitted request through, to count in the load until its answer ends; answers a refused one with 503. */
function conclude(
  gate: GateDecisions,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  outcome: Outcome,
  gone: boolean,
): void {
  const { decision, slot } = outcome;
  (request as FastifyRequest & ClassedRequest)[CLIENT_CLASS] = outcome.agent.kind;
  if (decision.admit) {
    if (gone) {
      gate.finished(slot);
      return done();
    }
    const answer = reply.raw as typeof reply.raw & AdmittedAnswer;
    answer[GATE] = gate;
    answer[SLOT] = slot;
    answer.on('close', givePlaceBack);
    return done();
  }
  const answer = refusal(decision.reason, gate.retryAfterSeconds(decision.reason), request.url, request.headers);
  reply.code(answer.status).headers(answer.headers).send(Buffer.from(answer.body));
}
