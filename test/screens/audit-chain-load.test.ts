import { afterEach, describe, expect, it, vi } from 'vitest';
import { chainCheckOf, chainCheckSettled, loadChainCheck } from '../../screens/shared/audit-chain.js';

/**
 * The chain check's lazy load (screens/shared/audit-chain.ts). Its module failing to load cannot
 * be caused for real short of a teardown under it (seen once in CI): a mock makes the import fail.
 */
describe('loading the chain check', () => {
  afterEach(() => {
    vi.doUnmock('../../screens/shared/audit-chain-check.js');
  });

  it('a failed load leaves the chain unchecked, rejects nothing unhandled, and the next call loads it', async () => {
    vi.doMock('../../screens/shared/audit-chain-check.js', () => {
      throw new Error('module runner closed');
    });
    loadChainCheck();
    await chainCheckSettled();
    expect(chainCheckOf([])).toBeUndefined();

    vi.doUnmock('../../screens/shared/audit-chain-check.js');
    loadChainCheck();
    await chainCheckSettled();
    expect(chainCheckOf([], undefined, { whole: true })).toMatchObject({ ok: true, firstSeq: null });
  });
});
