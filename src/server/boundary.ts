import { boundary } from './errors.js';

/** Field names that carry content rather than metadata. */
export const CONTENT_FIELDS = new Set(['content', 'prompt', 'messages', 'document', 'text']);
export const MAX_METADATA_STRING_BYTES = 1024;

/**
 * The metadata boundary: a mutation body that carries content is refused before any other
 * validation (422 SVC-BOUNDARY-1), so nothing of it is stored.
 */
export function assertMetadataOnly(body: unknown): void {
  const found: { name: string; reason: string }[] = [];
  const walk = (v: unknown, path: string, depth: number) => {
    if (found.length >= 10 || depth > 32) return;
    if (typeof v === 'string') {
      if (Buffer.byteLength(v, 'utf8') > MAX_METADATA_STRING_BYTES) {
        found.push({ name: path || '(body)', reason: `string longer than ${MAX_METADATA_STRING_BYTES} bytes is content, not metadata` });
      }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const name = path ? `${path}.${k}` : k;
        if (CONTENT_FIELDS.has(k.toLowerCase())) found.push({ name: name.slice(0, 200), reason: 'content-bearing field' });
        walk(item, name, depth + 1);
      }
    }
  };
  walk(body, '', 0);
  if (found.length) throw boundary('the appliance accepts metadata only; this body carries content', found);
}
