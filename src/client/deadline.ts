import { TransportError } from './errors.js';

/**
 * Runs a call with a deadline for its whole answer. The connection's idle timeouts alone would let
 * a server trickling one byte at a time hold a call for ever; the caller's own abort (`signal`)
 * still fails as the caller's, not as a timeout.
 */
export async function withinDeadline<T>(
  deadlineMs: number,
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), deadlineMs);
  timer.unref?.();
  const both = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  try {
    return await call(both);
  } catch (err) {
    if (deadline.signal.aborted && !signal?.aborted) {
      throw new TransportError(
        'timeout',
        `the appliance did not send its whole answer within ${deadlineMs / 1000} s`,
        'DEADLINE',
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
