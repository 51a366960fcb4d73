/**
 * The dashboard's screen names, for the shell completions (completion.ts). `npm run build` writes
 * them into dist/screen-names.json from this module (scripts/build.mjs): completing a screen name
 * then reads a small file instead of loading every screen.
 */
import { screens } from '../../screens/index.js';

export const screenNames = (): string[] => screens.map((s) => s.name);
