import { describeError } from '../../client/errors.js';
import { sanitize } from '../../text/sanitize.js';

/** Turns any error into plain words plus the code and request id an operator can quote. */
export function errorLines(err: unknown): { headline: string; reference: string | null; details: string[] } {
  const d = describeError(err);
  const ref = [d.code ? `code ${d.code}` : null, d.requestId ? `request ${d.requestId}` : null]
    .filter(Boolean)
    .join(' · ');
  return {
    headline: sanitize(d.headline, 500),
    reference: ref ? sanitize(ref, 200) : null,
    details: d.lines.map((l) => sanitize(l, 300)),
  };
}
