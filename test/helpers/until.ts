/**
 * Waits until `probe` gives a truthy value (asked every 20 ms, awaited when it is a promise) and
 * returns it; throws after `timeoutMs`. Tests wait for a condition this way, never for a fixed time.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 20))) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}
