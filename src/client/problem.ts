import { sanitize } from '../text/sanitize.js';
import { ApiError, type InvalidParam } from './errors.js';
import { headerOf } from './response-body.js';

/** An error answer in words: the appliance's problem+json, or a proxy's page in its place. */

type Headers = Record<string, string | string[] | undefined>;

export function looksLikeHtml(headers: Headers, text: string): boolean {
  return /html/i.test(headerOf(headers, 'content-type') ?? '') || /^\s*</.test(text);
}

/** "502 Bad Gateway" out of a proxy's error page: its title, else its first words. */
export function htmlSummary(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  const text = (title ?? html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/&[a-z#0-9]+;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return sanitize(text || 'an empty page', 120);
}

/** Decodes a problem+json (tolerantly) or any other error body into an ApiError. */
export function problemFrom(status: number, headers: Headers, text: string, requestId?: string): ApiError {
  let p: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) p = parsed as Record<string, unknown>;
  } catch {
    /* not JSON: fall through to the status words */
  }
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? sanitize(v, 500) : undefined);
  const nestedError = p.error && typeof p.error === 'object' ? (p.error as Record<string, unknown>) : {};
  const code = str(p.code) ?? str(nestedError.code) ?? `HTTP-${status}`;
  const title = str(p.title) ?? `HTTP ${status}`;
  const html = Object.keys(p).length === 0 && looksLikeHtml(headers, text);
  const fromText = html
    ? `${htmlSummary(text)} (an HTML page from a proxy, not the appliance's answer)`
    : text && !text.trimStart().startsWith('{')
      ? sanitize(text, 200)
      : undefined;
  const detail = str(p.detail) ?? str(p.message) ?? str(p.error) ?? str(nestedError.message) ?? fromText;
  const rawParams = p.invalid_params ?? p.invalidParams;
  const invalid: InvalidParam[] = Array.isArray(rawParams)
    ? rawParams.slice(0, 20).map((x) => ({
        name: sanitize((x as InvalidParam)?.name, 100),
        reason: sanitize((x as InvalidParam)?.reason, 200),
      }))
    : [];
  const retry = Number(headerOf(headers, 'retry-after'));
  return new ApiError(
    status,
    code,
    title,
    detail,
    str(p.request_id) ?? str(p.requestId) ?? requestId,
    invalid,
    Number.isFinite(retry) ? retry : undefined,
  );
}
