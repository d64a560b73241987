import { defineConfig } from 'vitest/config';

// End-to-end tests against real Jaeger, OpenTelemetry Collector and Prometheus
// binaries installed by scripts/e2e/install.sh. One fork, files in sequence:
// the services are heavy on a 2-core machine and each test picks its own ports.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
  },
});
