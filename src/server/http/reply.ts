import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { ApiError } from '../errors.js';

export const etagOf = (text: string) => `"${createHash('sha1').update(text).digest('base64url')}"`;

export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export function sendProblem(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.options.headers ?? {})) reply.header(k, v);
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(err.toProblem(String(reply.request.id)));
}
