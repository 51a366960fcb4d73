import type { GroupFactory, Target } from '../http/route-kit.js';
import { notFound } from '../errors.js';
import {
  createGatewayKey,
  getGatewayKey,
  listGatewayKeys,
  revokeGatewayKey,
  rotateGatewayKey,
  setGatewayKeyExpiry,
  setGatewayKeyQuota,
} from '../gateway/keys.js';
import { DEFAULT_GRACE_SECONDS } from '../../contract/index.js';
import { queryUsage } from '../gateway/usage.js';
import { registerFrontDoor } from '../gateway/front-door.js';

export const gatewayGroup: GroupFactory = ({ app, db, config }) => {
  registerFrontDoor(app, db, config);
  /** An attempt on a key that failed or was denied: the key named as it is, if it exists. */
  const keyTarget = ({ params }: { params: Record<string, string> }): Target => {
    const id = params.id ?? null;
    return { type: 'gateway_key', id, name: id === null ? null : (getGatewayKey(db, id)?.name ?? null) };
  };
  const newKeyTarget = ({ body }: { body: unknown }): Target => {
    const name = body && typeof body === 'object' ? (body as Record<string, unknown>).name : undefined;
    return { type: 'gateway_key', id: null, name: typeof name === 'string' ? name.slice(0, 200) : null };
  };
  return {
    handlers: {
      listKeys: {
        allow: 'any role',
        audit: null,
        run: ({ query }, ctx) => ({ body: listGatewayKeys(ctx.db, query) }),
      },
      createKey: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.create', target: newKeyTarget },
        run: ({ body }, ctx) => {
          const { key, secret } = createGatewayKey(ctx.db, {
            name: body.name,
            quota: body.quota,
            expires_at: body.expires_at,
            created_by: ctx.principal.subject,
          });
          return {
            status: 201,
            body: { ...key, secret },
            target: { type: 'gateway_key', id: key.id, name: key.name },
            details: { name: key.name, quota: key.quota, ...(key.expires_at ? { expires_at: key.expires_at } : {}) },
          };
        },
      },
      revokeKey: {
        allow: 'mutating roles',
        audit: { action: 'gateway.key.revoke', target: keyTarget },
        run: ({ params }, ctx) => {
          const { key, alreadyRevoked } = revokeGatewayKey(ctx.db, params.id);
          return {
            body: key,
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
            body: key,
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
            body: key,
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
            body: { ...r.key, secret: r.secret },
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
      usage: {
        allow: 'any role',
        audit: null,
        run: ({ query }, ctx) => {
          if (query.key_id !== undefined && !getGatewayKey(ctx.db, query.key_id))
            throw notFound(`no gateway key ${query.key_id}`);
          return { body: queryUsage(ctx.db, query, Date.now()) };
        },
      },
    },
  };
};
