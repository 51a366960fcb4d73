import { describe, expect, it } from 'vitest';
import { briefChangeOf, routingChangeOf } from '../../src/dashboard/kit/audit-change.js';

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

describe("briefChangeOf: the audit list's from → to", () => {
  it('a routing change names the workload; the active model reads ↻active', () => {
    const routing = (from: unknown, to: unknown) =>
      briefChangeOf({ action: 'routing.update', target: { id: 'summarize' }, details: { from, to } });
    expect(routing(null, 'mistral-7b')).toBe('summarize: ↻active → mistral-7b');
    expect(routing('mistral-7b', null)).toBe('summarize: mistral-7b → ↻active');
    expect(routing({ x: 1 }, 'a')).toBeNull();
  });
  it('an activation says the model before and after; what does not record it says nothing', () => {
    const activate = { action: 'model.activate', target: { id: 'mistral-7b' } };
    expect(briefChangeOf({ ...activate, details: { previous_model_id: 'llama-3.1-8b' } })).toBe(
      'llama-3.1-8b → mistral-7b',
    );
    expect(briefChangeOf({ ...activate, details: { previous_model_id: null } })).toBe('none → mistral-7b');
    expect(briefChangeOf({ ...activate, details: { code: 'SVC-ADMIN-422' } })).toBeNull();
    expect(
      briefChangeOf({ action: 'gateway.key.revoke', target: { id: 'k' }, details: { from: 'a', to: 'b' } }),
    ).toBeNull();
  });
});
