import type { GroupFactory, Target } from '../http/route-kit.js';
import { pageArray } from '../http/paging.js';
import { notFound } from '../errors.js';
import { createGatewayKey, getGatewayKey, listGatewayKeys, revokeGatewayKey, setGatewayKeyQuota } from '../gateway/keys.js';
import { queryUsage } from '../gateway/usage.js';
import { registerFrontDoor } from '../gateway/front-door.js';

const keyTarget = ({ params }: { params: Record<string, string> }): Target => ({ type: 'gateway_key', id: params.id ?? null });

export const gatewayGroup: GroupFactory = ({ app, db, config }) => {
  registerFrontDoor(app, db, config);
  return {
    handlers: {
      listKeys: {
        run: ({ query }, ctx) => ({ body: pageArray(listGatewayKeys(ctx.db), query, (k) => k.id) }),
      },
      createKey: {
        target: keyTarget,
        run: ({ body }, ctx) => {
          const { key, secret } = createGatewayKey(ctx.db, { name: body.name, quota: body.quota, created_by: ctx.principal.subject });
          return { status: 201, body: { ...key, secret }, target: { type: 'gateway_key', id: key.id }, details: { name: key.name, quota: key.quota } };
        },
      },
      revokeKey: {
        target: keyTarget,
        run: ({ params }, ctx) => {
          const { key, alreadyRevoked } = revokeGatewayKey(ctx.db, params.id);
          return { body: key, target: { type: 'gateway_key', id: key.id }, details: { name: key.name, already_revoked: alreadyRevoked } };
        },
      },
      setQuota: {
        target: keyTarget,
        run: ({ params, body }, ctx) => {
          const { key, from } = setGatewayKeyQuota(ctx.db, params.id, body);
          return { body: key, target: { type: 'gateway_key', id: key.id }, details: { from, to: key.quota } };
        },
      },
      usage: {
        run: ({ query }, ctx) => {
          if (query.key_id !== undefined && !getGatewayKey(ctx.db, query.key_id)) throw notFound(`no gateway key ${query.key_id}`);
          return { body: queryUsage(ctx.db, query, Date.now()) };
        },
      },
    },
  };
};
