import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { sendProblem } from '../http/reply.js';
import { GatewayCallResult, type GatewayKey } from '../../contract/index.js';
import { findKeyBySecret, hasExpired } from './keys.js';
import { meterCall, recordRejection, recordUnknownWorkload } from './metering.js';
import { routingEntry } from '../models/routing.js';
import { currencyOf, priceOf } from './pricing.js';

const GATEWAY_PATH = '/v1/gateway/:workload';
export const GATEWAY_BODY_LIMIT = 1024 * 1024;
/** A call's output estimate is its `max_tokens`, capped so one call cannot claim a day's quota. */
const MAX_OUTPUT_TOKENS = 4096;

/**
 * The refusal of a key that cannot be used. An unknown key learns nothing; a caller that presents a
 * real secret of an expired key or one a rotation replaced is told which, so that its owner knows
 * what to fix (a holder of that secret learns nothing it could not have known).
 */
const unauthorized = (detail = 'missing, unknown or revoked gateway key') =>
  new ApiError(401, detail, {
    headers: { 'WWW-Authenticate': 'Bearer realm="appliance-gateway"' },
  });

const isJson = (contentType: string | undefined) => /^application\/([\w.+-]*\+)?json\b/i.test(contentType ?? '');

/** Estimates: input from the request size (~4 bytes a token), output from the body's max_tokens. */
function estimateTokens(req: FastifyRequest): { input_tokens: number; output_tokens: number } {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  let output_tokens = 0;
  if (raw.length > 0 && isJson(req.headers['content-type'])) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw badRequest('malformed JSON body'); // the parser's message would quote the content
    }
    const max =
      parsed !== null && typeof parsed === 'object' ? (parsed as { max_tokens?: unknown }).max_tokens : undefined;
    if (max !== undefined && max !== null) {
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) {
        throw badRequest('max_tokens must be a whole number >= 0', [
          { name: 'max_tokens', reason: 'must be a whole number >= 0' },
        ]);
      }
      output_tokens = Math.min(max, MAX_OUTPUT_TOKENS);
    }
  }
  return { input_tokens: Math.ceil(raw.length / 4), output_tokens };
}

/**
 * The gateway's front door: authenticates a gateway key, enforces its quota, resolves the
 * workload's model and meters the call. A revoked or expired key's call (401), a secret a rotation
 * replaced once its grace ended (401) and a call to an unknown workload (404) count as the key's
 * rejections by that cause (the latter also under the name asked for); an unknown secret has no key
 * to count against. It runs no model (`served: false`). It carries content by
 * design, so the admin metadata boundary does not apply; the body is never stored or logged.
 */
export function registerFrontDoor(app: FastifyInstance, db: Db, config: ServerConfig): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: GATEWAY_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
      if (err instanceof ApiError) return sendProblem(reply, err);
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        return sendProblem(reply, new ApiError(413, `request body exceeds ${GATEWAY_BODY_LIMIT} bytes`));
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
        return sendProblem(reply, new ApiError(400, 'a request body needs a Content-Type header'));
      if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
        return sendProblem(reply, new ApiError(err.statusCode, err.message));
      req.log.error({ err }, 'unhandled gateway error');
      return sendProblem(reply, new ApiError(500, 'internal error; see the server log with the request id'));
    });

    const keyOf = (req: FastifyRequest) => {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      return m ? findKeyBySecret(db, m[1]) : undefined;
    };
    /**
     * 401 for a missing or unknown key; a revoked or expired key's call, and one with a secret a
     * rotation replaced after its grace, is also counted against the key, by cause.
     */
    const refuseUnusable = (found: ReturnType<typeof keyOf>): GatewayKey => {
      if (!found) throw unauthorized();
      const { key, replaced } = found;
      const now = Date.now();
      if (key.status === 'revoked') {
        recordRejection(db, key.id, 'revoked', now);
        throw unauthorized();
      }
      if (hasExpired(key, now)) {
        recordRejection(db, key.id, 'expired', now);
        throw unauthorized('gateway key expired');
      }
      if (replaced && replaced.validUntilMs <= now) {
        recordRejection(db, key.id, 'rotated', now);
        throw unauthorized('this gateway key secret was replaced by a rotation and its grace has ended');
      }
      return key;
    };
    // a caller without a usable key is refused before its body (up to 1 MiB) is read
    const onRequest = async (req: FastifyRequest) => {
      refuseUnusable(keyOf(req));
    };

    scope.post(
      GATEWAY_PATH,
      { bodyLimit: GATEWAY_BODY_LIMIT, onRequest },
      async (req: FastifyRequest, reply: FastifyReply) => {
        const { workload } = req.params as { workload: string };
        // again: the key may have been revoked while the body arrived
        const key = refuseUnusable(keyOf(req));
        // the catch-all parser also takes a body sent with no Content-Type at all
        if (Buffer.isBuffer(req.body) && req.body.length > 0 && !req.headers['content-type'])
          throw badRequest('a request body needs a Content-Type header');

        // the same resolution GET /routing shows: the workload's model, or null following the active one
        const route = routingEntry(db, config, workload);
        if (!route) {
          recordUnknownWorkload(db, key.id, workload, Date.now());
          throw notFound(`no workload ${workload}`);
        }
        const model_id = route.effective_model_id;

        const tokens = estimateTokens(req);
        // no await since the key lookup: nothing can revoke, expire or rotate it or change its quota in between
        const verdict = meterCall(db, key.id, key.quota, tokens, Date.now(), {
          workload,
          model_id,
          price: priceOf(config, model_id),
          currency: currencyOf(config),
        });
        if (!verdict.ok) {
          req.log.info({ key_id: key.id, workload, limit: verdict.limit }, 'gateway call throttled');
          // no Retry-After for a call this quota never lets through: retrying would not help
          throw new ApiError(
            429,
            verdict.detail,
            verdict.retryAfterSeconds === null ? {} : { headers: { 'Retry-After': String(verdict.retryAfterSeconds) } },
          );
        }
        req.log.debug({ key_id: key.id, workload, model_id, ...tokens }, 'gateway call metered');
        const result = GatewayCallResult.parse({
          workload,
          model_id,
          key_id: key.id,
          served: false,
          metered: { requests: 1, ...tokens },
        });
        return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(result));
      },
    );
  });
}
