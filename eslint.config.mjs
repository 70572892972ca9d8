// ESLint (flat config): Next's rules (core web vitals, React, hooks, a11y, import)
// and typescript-eslint's recommended set over the whole repository. Run by
// `npm run lint`, which `npm test` (and so CI) runs before the tests.
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ['node_modules/**', '.next*/**', 'dist/**', 'lib/generated/**', 'data/**', 'e2e/artifacts/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts'],
  },
  {
    rules: {
      // A `let` that closures read and start-up assigns once later (devnet/server.ts) stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Names starting with _ are deliberately unused (destructuring a field away, a required parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
];

export default config;
