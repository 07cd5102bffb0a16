import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', '.test-build/', 'node_modules/', 'test/fixtures/', 'examples/', '.redline/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    // One writer of the seal: every path that seals a run (the loop, recovery, the AI SDK adapter) goes through RunRecorder.seal.
    files: ['src/**/*.ts'],
    ignores: ['src/run/run-recorder.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='type'][value.value='run.sealed']",
          message: 'Only RunRecorder (src/run/run-recorder.ts) writes a run.sealed record: call recorder.seal().',
        },
      ],
    },
  },
);
