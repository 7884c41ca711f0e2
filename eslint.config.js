// Lint rules of the tree: typescript-eslint's recommended set; formatting is prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The scrubbers and decoders match control characters on purpose.
      'no-control-regex': 'off',
      // `{}` is the identity of an intersection in the declared-table types.
      '@typescript-eslint/no-empty-object-type': [
        'error',
        { allowInterfaces: 'always', allowObjectTypes: 'always' },
      ],
    },
  },
  {
    // Lines of src/ at most 120 characters (prettier wraps code at 110; long strings and SQL by hand).
    files: ['src/**/*.ts'],
    rules: { 'max-len': ['error', { code: 120, ignoreUrls: true }] },
  },
  {
    // Tests read loosely typed replies and rows.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { Buffer: 'readonly', setTimeout: 'readonly' } },
  },
);
