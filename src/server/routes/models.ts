import type { GroupFactory } from '../http/route-kit.js';
import { notFound, unprocessable } from '../errors.js';
import { pageArray } from '../http/paging.js';
import { modelCatalog, notPresentMessage, type CatalogModel } from '../models/catalog.js';
import { activeModelId, storeActiveModel } from '../models/active.js';
import { currencyOf, priceOf } from '../gateway/pricing.js';
import type { ServerConfig } from '../config.js';
import { isWorkload, routingEntries, routingEntry, seedRouting, storeRouting } from '../models/routing.js';

const toWire = (m: CatalogModel, activeId: string | null, config: ServerConfig) => ({
  id: m.id,
  name: m.name,
  family: m.family,
  parameters: m.parameters,
  quantization: m.quantization,
  size_bytes: m.size_bytes,
  state: m.state,
  active: m.id === activeId,
  price: priceOf(config, m.id),
  currency: currencyOf(config),
});

export const modelsGroup: GroupFactory = ({ db, config }) => {
  const catalog = modelCatalog(config);
  seedRouting(db, config);

  /** A change may only point at a present model; checked against the disk as it is now. */
  const requirePresent = (model: CatalogModel): void => {
    if (model.state !== 'present') {
      throw unprocessable(notPresentMessage(model.id), [{ name: 'model_id', reason: 'model files are missing' }]);
    }
  };

  return {
    handlers: {
      listModels: {
        allow: 'any role',
        audit: null,
        run: ({ query }) => {
          const models = catalog.list();
          const active = activeModelId(db, config, models);
          return {
            body: pageArray(
              models.map((m) => toWire(m, active, config)),
              query,
              (m) => m.id,
            ),
          };
        },
      },

      activateModel: {
        allow: 'mutating roles',
        audit: {
          action: 'model.activate',
          target: ({ body }) => {
            const id = (body as { model_id?: unknown } | undefined)?.model_id;
            if (typeof id !== 'string' || id.length > 200) return { type: 'model', id: null };
            return { type: 'model', id, name: catalog.get(id)?.name ?? null };
          },
        },
        run: ({ body }, { principal }) => {
          const model = catalog.get(body.model_id, { fresh: true });
          if (!model) throw notFound(`unknown model ${body.model_id}`);
          requirePresent(model);
          const previous = activeModelId(db, config, catalog.list());
          storeActiveModel(db, body.model_id, principal.subject);
          return {
            body: { model_id: body.model_id, active: true, previous_model_id: previous },
            target: { type: 'model', id: body.model_id, name: model.name },
            details: { previous_model_id: previous },
          };
        },
      },

      listRouting: {
        allow: 'any role',
        audit: null,
        run: ({ query }) => {
          return { body: pageArray(routingEntries(db, config), query, (e) => e.workload) };
        },
      },

      setRouting: {
        allow: 'mutating roles',
        audit: {
          action: 'routing.update',
          target: ({ params }) => ({ type: 'routing', id: params.workload ?? null, name: params.workload ?? null }),
        },
        run: ({ params, body }, { principal }) => {
          if (!isWorkload(config, params.workload)) throw notFound(`unknown workload ${params.workload}`);
          if (body.model_id !== null) {
            // As for activation: an unknown model is 404; a known one missing on disk is 422 (requirePresent).
            const model = catalog.get(body.model_id, { fresh: true });
            if (!model) throw notFound(`unknown model ${body.model_id}`);
            requirePresent(model);
          }
          const from = routingEntry(db, config, params.workload)!.model_id;
          storeRouting(db, params.workload, body.model_id, principal.subject);
          return {
            body: routingEntry(db, config, params.workload),
            // a workload is known by its id alone
            target: { type: 'routing', id: params.workload, name: params.workload },
            details: { from, to: body.model_id },
          };
        },
      },
    },
  };
};
