// `node --import ./scripts/ink-frame-register.mjs`: see scripts/ink-frame-hooks.mjs
import { register } from 'node:module';

register('./ink-frame-hooks.mjs', import.meta.url);
