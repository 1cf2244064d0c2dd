import { defineConfig } from 'vitest/config';

// Two projects: fast unit/HTTP/chain tests (`npm test`) and real-Chromium page tests
// (`npm run test:browser`), so CI can install Chromium only for the second.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/**/*.browser.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
    ],
  },
});
