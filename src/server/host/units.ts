/** 25_132_236_800 -> "23.4 GiB"; smaller values in MiB or bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return `${bytes} B`;
}

/** Compares dotted versions numerically: "20.18.0" >= "20.18". */
export function versionAtLeast(actual: string, minimum: string): boolean {
  const a = actual
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  const m = minimum.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(a.length, m.length); i++) {
    const d = (a[i] ?? 0) - (m[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}
