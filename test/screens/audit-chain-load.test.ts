import { afterEach, describe, expect, it, vi } from 'vitest';
import { chainCheckOf, chainCheckSettled, loadChainCheck } from '../../src/dashboard/audit-trail/audit-chain.js';

/**
 * The chain check's lazy load (src/dashboard/audit-trail/audit-chain.ts). Its module failing to load cannot
 * be caused for real short of a teardown under it (seen once in CI): a mock makes the import fail.
 */
describe('loading the chain check', () => {
  afterEach(() => {
    vi.doUnmock('../../src/audit-chain/page-check.js');
  });

  it('a failed load leaves the chain unchecked, rejects nothing unhandled, and the next call loads it', async () => {
    vi.doMock('../../src/audit-chain/page-check.js', () => {
      throw new Error('module runner closed');
    });
    loadChainCheck();
    await chainCheckSettled();
    expect(chainCheckOf({ data: [] }, undefined, { whole: true })).toBeUndefined();

    vi.doUnmock('../../src/audit-chain/page-check.js');
    loadChainCheck();
    await chainCheckSettled();
    expect(chainCheckOf({ data: [] }, undefined, { whole: true })).toMatchObject({ ok: true, firstSeq: null });
  });
});
