// ESLint: typescript-eslint's recommended rules with type information, React's hook rules, and
// import cycles (import-x). Formatting is Prettier's (`npm run format`), so no style rules here.
// Unused exports are found by knip (knip.json), which sees the whole module graph.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// The house's rooms and which rooms each may import (docs/contributing.md draws them): arrows run
// one way, down. A room always imports itself; a room not listed under another's may not be
// imported by it, and `npm run lint` fails naming both.
const ROOMS = {
  'src/text': [],
  'src/contract': ['src/text'],
  'src/audit-chain': ['src/contract', 'src/text'],
  'src/config': ['src/contract', 'src/text'],
  'src/client': ['src/contract', 'src/text'],
  'src/server': ['src/audit-chain', 'src/contract', 'src/text'],
  // the kit names the intents a screen's action may declare (src/config/key-bindings.ts)
  'src/dashboard/kit': ['src/audit-chain', 'src/client', 'src/config', 'src/contract', 'src/text'],
  'src/dashboard/terminal': ['src/text'],
  'src/dashboard/widgets': ['src/dashboard/kit', 'src/dashboard/terminal', 'src/text'],
  'src/dashboard/state': ['src/dashboard/kit', 'src/client', 'src/contract', 'src/text'],
  'src/dashboard/rules': ['src/dashboard/kit', 'src/contract', 'src/text'],
  'src/dashboard/history': ['src/dashboard/kit', 'src/audit-chain', 'src/client', 'src/contract', 'src/text'],
  'src/dashboard/audit-trail': ['src/dashboard/kit', 'src/audit-chain', 'src/client', 'src/contract', 'src/text'],
  'src/dashboard/triage': ['src/dashboard/audit-trail', 'src/dashboard/kit', 'src/contract', 'src/text'],
  // a screen declares what it shows with the kit, the dashboard's domain rules and the contract's types
  screens: [
    'src/dashboard/kit',
    'src/dashboard/rules',
    'src/dashboard/history',
    'src/dashboard/audit-trail',
    'src/dashboard/triage',
    'src/contract',
    'src/text',
  ],
  'src/dashboard/shell': [
    'screens',
    'src/dashboard/kit',
    'src/dashboard/state',
    'src/dashboard/widgets',
    'src/dashboard/terminal',
    'src/dashboard/rules',
    'src/dashboard/history',
    'src/dashboard/audit-trail',
    'src/dashboard/triage',
    'src/audit-chain',
    'src/config',
    'src/client',
    'src/contract',
    'src/text',
  ],
};
// src/cli is on top: it may import every room, and no room imports it.
const LAYER_ZONES = Object.entries(ROOMS).flatMap(([room, allowed]) => {
  const inSrc = (r) => r.startsWith('src/');
  const zones = [
    {
      target: `./${room}`,
      from: './src',
      except: [room, ...allowed].filter(inSrc).map((r) => `./${r.slice(4)}`),
      message: `${room} may import only ${allowed.join(', ') || 'itself'} (docs/contributing.md, "The rooms")`,
    },
  ];
  if (room !== 'screens' && !allowed.includes('screens'))
    zones.push({ target: `./${room}`, from: './screens', message: `${room} imports no screen` });
  return zones;
});

export default tseslint.config(
  {
    ignores: ['dist/**', 'dist.*/**', 'node_modules/**', 'test/bench/out/**', 'bin/**', 'test/contract/.generated/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      // the two classic hook rules; the React Compiler's rules (refs, purity…) are for code the compiler
      // rewrites, and this project does not use the compiler
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // finding and removing control characters (ESC, BEL, C0) in outside text is this program's job
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'screens/**/*.{ts,tsx}'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: LAYER_ZONES }] },
  },
  {
    // tests read JSON answers whose shape the assertions themselves check
    files: ['test/**/*.{ts,tsx}'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
      },
    },
  },
);
