/** A key fingerprint as people compare it: `SHA256:` and its first 16 hex digits in groups of 4. */
export const displayFingerprint = (hex: string): string =>
  `SHA256:${(hex.slice(0, 16).match(/.{1,4}/g) ?? []).join(' ')}`;
