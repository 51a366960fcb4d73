import { boundary } from './errors.js';

/** Field names that carry content rather than metadata. */
const CONTENT_FIELDS = new Set(['content', 'prompt', 'messages', 'document', 'text']);
const MAX_METADATA_STRING_BYTES = 1024;

interface Node {
  value: unknown;
  key: string | number | null;
  parent: Node | null;
}

/** `a.b[2].c`, at most 200 characters; built only for what is reported */
function nameOf(node: Node): string {
  const keys: (string | number)[] = [];
  for (let n: Node | null = node; n && n.key !== null; n = n.parent) keys.push(n.key);
  return keys
    .reverse()
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`))
    .join('')
    .slice(0, 200);
}

/**
 * The metadata boundary: a mutation body that carries content is refused before any other
 * validation (422 SVC-BOUNDARY-1), so nothing of it is stored. The walk is iterative and goes
 * all the way down: a 64 KiB body can nest thousands of levels deep.
 */
export function assertMetadataOnly(body: unknown): void {
  const found: { name: string; reason: string }[] = [];
  const stack: Node[] = [{ value: body, key: null, parent: null }];
  while (stack.length > 0 && found.length < 10) {
    const node = stack.pop()!;
    if (typeof node.key === 'string' && CONTENT_FIELDS.has(node.key.toLowerCase()))
      found.push({ name: nameOf(node), reason: 'content-bearing field' });
    const v = node.value;
    if (typeof v === 'string') {
      if (Buffer.byteLength(v, 'utf8') > MAX_METADATA_STRING_BYTES) {
        found.push({
          name: nameOf(node) || '(body)',
          reason: `string longer than ${MAX_METADATA_STRING_BYTES} bytes is content, not metadata`,
        });
      }
    } else if (v !== null && typeof v === 'object') {
      // pushed last to first, so that fields are reported in the body's order
      const children: [string | number, unknown][] = Array.isArray(v)
        ? v.map((item, i) => [i, item])
        : Object.entries(v);
      for (let i = children.length - 1; i >= 0; i--)
        stack.push({ value: children[i][1], key: children[i][0], parent: node });
    }
  }
  if (found.length)
    throw boundary('the appliance accepts metadata only; this body carries content', found.slice(0, 10));
}
