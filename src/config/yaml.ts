import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { sanitize } from '../text/sanitize.js';

/** At most this many aliases (`*name`) in a config file. */
export const CONFIG_MAX_ALIASES = 16;
/** An alias may stand for at most this many values (scalars, lists and maps, as written out). */
export const CONFIG_MAX_ALIAS_VALUES = 1000;
/** Lists and maps nested at most this deep. */
export const CONFIG_MAX_DEPTH = 32;

type Fail = (where: string, what: string) => Error;

/**
 * The config file's YAML as a document, refused through `fail` (where, what: one line each) when
 * it has a syntax error or a warning (an unknown tag, `!foo` or one of YAML 1.1's such as
 * `!!binary`, is one), a key that is not a plain value, a key twice in one map, more than
 * CONFIG_MAX_ALIASES aliases or one standing for more than CONFIG_MAX_ALIAS_VALUES values, an
 * alias inside what it names, or nesting deeper than CONFIG_MAX_DEPTH. Linear in the text (the
 * parser's own check for repeated keys compares each key with every one before it: 40,000 keys
 * took 26 s, so keys are checked here instead).
 */
export function parseConfigYaml(text: string, fail: Fail): Document.Parsed {
  const lines = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, resolveKnownTags: false });
  } catch (err) {
    throw fail('YAML', firstLine(err));
  }
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const at = problem.linePos?.[0];
    throw fail(at ? `line ${at.line}, column ${at.col}` : 'YAML', problemText(problem.code, problem.message));
  }
  checkNodes(doc, (offset, what) => {
    const at = lines.linePos(offset);
    return fail(`line ${at.line}, column ${at.col}`, what);
  });
  return doc;
}

/** The document as plain values, once parseConfigYaml has accepted it. */
export function configYamlValue(doc: Document.Parsed, fail: Fail): unknown {
  try {
    // the aliases were counted and sized by checkNodes: the library's own guard is not needed
    return doc.toJS({ maxAliasCount: -1 });
  } catch (err) {
    throw fail('YAML', firstLine(err));
  }
}

const firstLine = (err: unknown) => sanitize(String((err as Error)?.message ?? err).split('\n')[0], 200);

/** The first line of the parser's words, without the lines of the file it quotes after them. */
function problemText(code: string, message: string): string {
  const what = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  if (code === 'TAG_RESOLVE_FAILED')
    return `unknown tag ${sanitize(what.replace(/^Unresolved tag: /, ''), 60)} (plain values, lists and maps only)`;
  // the parser goes into each list and map by calling itself, and says so when it runs out of stack
  if (/Maximum call stack size exceeded/.test(what)) return `nested more than ${CONFIG_MAX_DEPTH} levels deep`;
  return sanitize(what, 200);
}

/** One pass over the nodes in document order: keys, depth, aliases and what they stand for. */
function checkNodes(doc: Document.Parsed, fail: (offset: number, what: string) => Error): void {
  // an anchor's size in values once its node is read; 'open' while it is (an alias there is inside it)
  const anchors = new Map<string, number | 'open'>();
  let aliases = 0;
  const start = (node: unknown) => (node as { range?: [number] } | null)?.range?.[0] ?? 0;

  const walk = (node: unknown, depth: number): number => {
    if (node === null || node === undefined) return 0;
    if (isAlias(node)) {
      const name = sanitize(node.source, 40);
      if (++aliases > CONFIG_MAX_ALIASES)
        throw fail(
          start(node),
          `more than ${CONFIG_MAX_ALIASES} aliases (*${name}): a config file may have at most ${CONFIG_MAX_ALIASES}`,
        );
      const size = anchors.get(node.source);
      if (size === 'open') throw fail(start(node), `the alias *${name} is inside the value it names`);
      if (size !== undefined && size > CONFIG_MAX_ALIAS_VALUES)
        throw fail(start(node), `the alias *${name} stands for more than ${CONFIG_MAX_ALIAS_VALUES} values`);
      return size ?? 1;
    }
    if (depth > CONFIG_MAX_DEPTH) throw fail(start(node), `nested more than ${CONFIG_MAX_DEPTH} levels deep`);
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, 'open');
    let size = 1;
    const pair = (key: unknown, value: unknown, seen: Set<string>) => {
      if (!isScalar(key)) throw fail(start(key), 'a key must be a plain value, not a list, a map or an alias');
      // as the plain object will have it (the library's toJS): null is '', 1.0 is '1'
      const name = key.value === null ? '' : String(key.value);
      if (seen.has(name)) throw fail(start(key), 'Map keys must be unique');
      seen.add(name);
      size += walk(key, depth + 1) + walk(value, depth + 1);
    };
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const item of node.items) pair(item.key, item.value, seen);
    } else if (isSeq(node)) {
      for (const item of node.items)
        if (isPair(item)) pair(item.key, item.value, new Set());
        else size += walk(item, depth + 1);
    }
    if (anchor) anchors.set(anchor, size);
    return size;
  };
  walk(doc.contents, 1);
}
