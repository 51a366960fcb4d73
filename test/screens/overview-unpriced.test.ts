import { describe, expect, it } from 'vitest';
import type { Model, RoutingEntry, Usage } from '../../src/contract/index.js';
import { unpricedModelLines } from '../../src/dashboard/triage/models.js';

/** The overview's watch line for a model without a price serving traffic (issue 41 §4), as a pure rule. */
const model = (id: string, o: Partial<Model> = {}): Model => ({
  id,
  name: id.toUpperCase(),
  family: 'llama',
  parameters: null,
  quantization: null,
  size_bytes: null,
  state: 'present',
  active: false,
  price: null,
  currency: 'EUR',
  ...o,
});
const route = (workload: string, effective: string): RoutingEntry => ({
  workload,
  model_id: effective,
  effective_model_id: effective,
  updated_at: null,
  updated_by: null,
});
const lastHour = (unpriced: number[]): Usage =>
  ({
    start_time: '2026-11-29T10:00:00Z',
    end_time: '2026-11-29T11:00:00Z',
    bucket: 'minute',
    currency: 'EUR',
    data: unpriced.map((u, i) => ({ key_id: `key_${i}`, unpriced_requests: u })),
  }) as unknown as Usage;

const PRICE = { input_per_million: 1, output_per_million: 2 };

describe('unpriced model serving traffic', () => {
  it('warns for each present model without a price that a workload is routed to, while the last hour has calls of unknown cost', () => {
    const lines = unpricedModelLines(
      [model('coder'), model('llama', { price: PRICE }), model('spare'), model('gone', { state: 'missing' })],
      [route('code-assist', 'coder'), route('chat', 'llama'), route('old', 'gone')],
      lastHour([3, 4]),
    );
    expect(lines).toEqual([
      {
        key: 'model-unpriced:coder',
        severity: 'warn',
        what: 'Model CODER',
        reason:
          "has no price but serves code-assist: 7 calls in the last hour of unknown cost (not free); price it in the config's pricing",
        count: 7,
        window: 'last hour',
        link: { screen: 'spend', extra: { range: 'day', by: 'model' }, select: 'coder' },
      },
    ]);
  });

  it('says nothing without calls of unknown cost, without pricing at all, or for a price of zero', () => {
    const routing = [route('code-assist', 'coder')];
    expect(unpricedModelLines([model('coder')], routing, lastHour([0]))).toEqual([]);
    expect(unpricedModelLines([model('coder')], routing, undefined)).toEqual([]);
    expect(unpricedModelLines([model('coder', { currency: null })], routing, lastHour([5]))).toEqual([]);
    const free = { input_per_million: 0, output_per_million: 0 };
    expect(unpricedModelLines([model('coder', { price: free })], routing, lastHour([5]))).toEqual([]);
  });
});
