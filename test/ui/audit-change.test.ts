import { describe, expect, it } from 'vitest';
import { routingChangeOf } from '../../src/dashboard/kit/audit-change.js';

describe('a routing change in words', () => {
  it('reads from → to, null as following the active model', () => {
    expect(routingChangeOf({ action: 'routing.update', details: { from: null, to: 'mistral-7b' } })).toBe(
      'follows the active model → mistral-7b',
    );
    expect(routingChangeOf({ action: 'routing.update', details: { from: 'mistral-7b', to: null } })).toBe(
      'mistral-7b → follows the active model',
    );
  });
  it('says nothing when the entry does not record the change, or is another action', () => {
    expect(
      routingChangeOf({ action: 'routing.update', details: { code: 'SVC-ADMIN-422', detail: 'not present' } }),
    ).toBeNull();
    expect(routingChangeOf({ action: 'routing.update', details: { from: { x: 1 }, to: 'a' } })).toBeNull();
    expect(routingChangeOf({ action: 'routing.update' })).toBeNull();
    expect(routingChangeOf({ action: 'model.activate', details: { from: 'a', to: 'b' } })).toBeNull();
  });
});
