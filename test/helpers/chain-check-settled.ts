import { afterAll, afterEach } from 'vitest';
import { chainCheckSettled } from '../../src/dashboard/audit-trail/audit-chain.js';

// A screen that polls starts loading the chain check (loadChainCheck); a test that ended with that
// import in flight had it cut off by vitest's teardown (an unhandled rejection, once in CI). Every
// test and every file therefore ends only once it has settled.
afterEach(() => chainCheckSettled());
afterAll(() => chainCheckSettled());
