// Loads a bundle through requireWithCodeCache in a process of its own (V8 keeps scripts it compiled
// in memory, so only a fresh process shows whether a cache on disk was used) and prints the outcome.
// Arguments: FILE CACHE_DIR [save]
import { requireWithCodeCache } from '../../src/cli/code-cache.js';

const [file, dir, save] = process.argv.slice(2);
const loaded = requireWithCodeCache<{ answer?(): number; text?: string }>(file, dir);
if (save === 'save') loaded.save();
const { answer, text } = loaded.exports;
process.stdout.write(JSON.stringify({ cache: loaded.cache, answer: answer?.(), text }));
