// ESLint: typescript-eslint's recommended rules with type information, React's hook rules, and
// import cycles (import-x). Formatting is Prettier's (`npm run format`), so no style rules here.
// Unused exports are found by knip (knip.json), which sees the whole module graph.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

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
    // the audit chain's scheme is imported by the server, the CLI and the dashboard, and imports only the
    // contract and the text utilities below it (issue 36; issue 38 draws the other rooms)
    files: ['src/audit-chain/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/audit-chain',
              from: './src',
              except: ['./audit-chain', './contract', './text'],
              message: 'src/audit-chain imports only src/contract and src/text',
            },
            { target: './src/audit-chain', from: './screens', message: 'src/audit-chain imports no screen' },
          ],
        },
      ],
    },
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
