// How much of what the server wrote to a connection has left the process: the measure of a client's
// progress for the idle deadline (http-limits.ts) and the answers' pace (answer-pace.ts).

/** The parts of a socket (or of the socket under an HTTP/2 session) that show what it has sent. */
export interface Sending {
  readonly bytesWritten: number;
  readonly writableLength: number;
  readonly _handle?: { readonly writeQueueSize?: unknown } | null;
}

/**
 * Bytes written to `socket` that the system has taken. Node counts one write as pending until all of
 * it is sent, so a 9 MB answer written at once shows no progress in `writableLength` until its last
 * byte leaves; libuv's own queue (`writeQueueSize`) shrinks as the client takes it. Over an HTTP/2
 * session the writes are frames of at most 16 KiB and the queue is empty: `writableLength` is exact.
 * Over TLS, HTTP/1.1's queue is the TLS layer's, which does not shrink as the client reads: such an
 * answer written at once shows its progress only when it has all left (measured on Node 20).
 */
export function sentBytes(socket: Sending): number {
  const queued = socket._handle?.writeQueueSize;
  const pending = typeof queued === 'number' ? Math.min(queued, socket.writableLength) : socket.writableLength;
  return socket.bytesWritten - pending;
}
