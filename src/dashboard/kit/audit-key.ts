import { displayFingerprint } from '../../text/fingerprint.js';
import { seg, type Line } from './line-view.js';

/**
 * Which key signs the audit checkpoints, as an auditor compares it with the key they were given
 * (docs/audit-chain.md); nothing from an appliance that does not say.
 */
export const auditKeyLine = (fingerprint: string | null | undefined): Line[] =>
  typeof fingerprint === 'string' && fingerprint
    ? [[seg(`  audit checkpoints signed by ${displayFingerprint(fingerprint)}`, { dim: true })]]
    : [];
