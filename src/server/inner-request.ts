// What the Oblivious HTTP gateway (ohttp/gateway-routes.ts) tells the rest of the server about a request
// it decrypted and serves through the API: the peer address no socket has, which load control, the
// requester's budgets and the pages' headers tell inner requests by, and the headers that carry where
// the encapsulating request came from. Only the gateway writes them; the others only read them.

/** The address inner requests carry: no socket has it, so load control can tell them from outside ones. */
export const INNER_REQUEST_ADDRESS = 'ohttp-gateway';
/** Headers of an inner request naming its encapsulating request's peer and X-Forwarded-For (outerOrigin). */
export const OUTER_PEER_HEADER = 'x-sbkit-ohttp-peer';
export const OUTER_FORWARDED_FOR_HEADER = 'x-sbkit-ohttp-forwarded-for';
