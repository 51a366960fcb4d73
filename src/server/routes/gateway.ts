import type { GroupFactory, Target } from '../http/route-kit.js';
import { conflict, notFound } from '../errors.js';
import {
  createGatewayKey,
  gatewayKeyName,
  listGatewayKeys,
  revokeGatewayKey,
  rotateGatewayKey,
  setGatewayKeyBudget,
  setGatewayKeyExpiry,
  setGatewayKeyQuota,
} from '../gateway/keys.js';
import { currencyOf, NO_PRICING_FOR_BUDGET } from '../gateway/pricing.js';
import { withSpend } from '../gateway/key-spend.js';
import { DEFAULT_GRACE_SECONDS, type GatewayKey } from '../../contract/index.js';
import { queryUsage } from '../gateway/usage.js';
import { registerFrontDoor } from '../gateway/front-door.js';
import { querySpend } from '../gateway/spend-query.js';
import { modelCatalog } from '../models/catalog.js';

export const gatewayGroup: GroupFactory = ({ app, db, config }) => {
  registerFrontDoor(app, db, config);
  const catalog = modelCatalog(config);
  /** An attempt on a key that failed or was denied: the key named as it is, if it exists. */
  const keyTarget = ({ params }: { params: Record<string, string> }): Target => {
    const id = params.id ?? null;
    return { type: 'gateway_key', id, name: id === null ? null : gatewayKeyName(db, id) };
  };
  const newKeyTarget = ({ body }: { body: unknown }): Target => {
    const name = body && typeof body === 'object' ? (body as Record<string, unknown>).name : undefined;
    return { type: 'gateway_key', id: null, name: typeof name === 'string' ? name.slice(0, 200) : null };
  };
  /** Every key an answer carries says what it spent (null without pricing). */
  const spent = <K extends GatewayKey>(k: K): K => withSpend(db, currencyOf(config), [k])[0];
  /** A budget is counted in the appliance's currency: without pricing there is none to set. */
  const needsPricing = () => {
    if (currencyOf(config) === null) throw conflict(NO_PRICING_FOR_BUDGET);
  };
  return {
    handlers: {
      listKeys: {
        allow: 'any role',
        audit: null,
        run: ({ query }, ctx) => {
          const page = listGatewayKeys(ctx.db, query);
          // only the page's keys are asked what they spent, in one query
          return { body: { ...page, data: withSpend(ctx.db, currencyOf(config), page.data) } };
        },
      },
      createKey: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.create', target: newKeyTarget },
        run: ({ body }, ctx) => {
          if (body.budget) needsPricing();
          const { key, secret } = createGatewayKey(ctx.db, {
            name: body.name,
            quota: body.quota,
            expires_at: body.expires_at,
            budget: body.budget,
            created_by: ctx.principal.subject,
          });
          return {
            status: 201,
            body: { ...spent(key), secret },
            target: { type: 'gateway_key', id: key.id, name: key.name },
            details: {
              name: key.name,
              quota: key.quota,
              ...(key.expires_at ? { expires_at: key.expires_at } : {}),
              ...(body.budget ? { budget: key.budget } : {}),
            },
          };
        },
      },
      revokeKey: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.revoke', target: keyTarget },
        run: ({ params }, ctx) => {
          const { key, alreadyRevoked } = revokeGatewayKey(ctx.db, params.id);
          return {
            body: spent(key),
            target: { type: 'gateway_key', id: key.id, name: key.name },
            details: { name: key.name, already_revoked: alreadyRevoked },
          };
        },
      },
      setQuota: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.quota', target: keyTarget },
        run: ({ params, body }, ctx) => {
          const { key, from } = setGatewayKeyQuota(ctx.db, params.id, body);
          return {
            body: spent(key),
            target: { type: 'gateway_key', id: key.id, name: key.name },
            details: { from, to: key.quota },
          };
        },
      },
      setKeyExpiry: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.expiry', target: keyTarget },
        run: ({ params, body }, ctx) => {
          const { key, from } = setGatewayKeyExpiry(ctx.db, params.id, body.expires_at);
          return {
            body: spent(key),
            target: { type: 'gateway_key', id: key.id, name: key.name },
            details: { from, to: key.expires_at },
          };
        },
      },
      rotateKey: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.rotate', target: keyTarget },
        run: ({ params, body }, ctx) => {
          const grace = body?.grace_seconds ?? DEFAULT_GRACE_SECONDS;
          const r = rotateGatewayKey(ctx.db, params.id, grace);
          // the entry names both secrets by their prefixes: the new secret is in the answer only
          return {
            body: { ...spent(r.key), secret: r.secret },
            target: { type: 'gateway_key', id: r.key.id, name: r.key.name },
            details: {
              name: r.key.name,
              previous_prefix: r.previousPrefix,
              new_prefix: r.key.prefix,
              grace_seconds: grace,
              previous_valid_until: r.previousValidUntil,
              ...(r.endedGraces.length ? { ended_grace_of: r.endedGraces } : {}),
            },
          };
        },
      },
      setKeyBudget: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.budget', target: keyTarget },
        run: ({ params, body }, ctx) => {
          // a missing key is a 404 before the appliance's lack of pricing is a 409
          if (gatewayKeyName(ctx.db, params.id) === null) throw notFound(`no gateway key ${params.id}`);
          needsPricing();
          const { key, from } = setGatewayKeyBudget(ctx.db, params.id, body);
          return {
            body: spent(key),
            target: { type: 'gateway_key', id: key.id, name: key.name },
            details: { name: key.name, currency: currencyOf(config), from, to: key.budget },
          };
        },
      },
      usage: {
        allow: 'any role',
        audit: null,
        run: ({ query }, ctx) => {
          if (query.key_id !== undefined && gatewayKeyName(ctx.db, query.key_id) === null)
            throw notFound(`no gateway key ${query.key_id}`);
          return { body: queryUsage(ctx.db, query, Date.now(), currencyOf(config)) };
        },
      },
      spend: {
        allow: 'any role',
        audit: null,
        run: ({ query }, ctx) => {
          if (query.key_id !== undefined && gatewayKeyName(ctx.db, query.key_id) === null)
            throw notFound(`no gateway key ${query.key_id}`);
          const nameOf =
            query.group_by === 'key'
              ? (id: string) => gatewayKeyName(ctx.db, id)
              : query.group_by === 'model'
                ? (id: string) => (id === '' ? null : (catalog.get(id)?.name ?? null))
                : () => null;
          return { body: querySpend(ctx.db, query, Date.now(), { currency: currencyOf(config), nameOf }) };
        },
      },
    },
  };
};
