// The longest durations sbkit takes from a peer or gives one: a google.protobuf.Duration can name 2^63
// seconds, and a cache lifetime or a wait that long would be a server's to impose. The client cuts what
// it reads to these (durationToMs's bound); the server never configures, proxies or shares more.

/**
 * SB-8: a client may lengthen a cache duration only for empty responses, and never past 24 hours. sbkit
 * keeps no answer longer than that at all, whatever duration the server gives (SB-8's reading).
 */
export const MAX_CACHE_DURATION_MS = 24 * 60 * 60 * 1000;

/**
 * RF-3, SB-12: the longest minimum wait the client obeys; a longer one is cut to it. A day is RF-4's own
 * cap, the longest the rules ever hold a client back, and a list left unasked for longer protects badly.
 * Without a bound one answer could silence a client for good (a Duration names up to 2^63 seconds).
 */
export const MAX_MINIMUM_WAIT_MS = 24 * 60 * 60_000;
