import { afterAll, afterEach } from 'vitest';
import { describeLog, type ServiceHandle } from '../support/index.js';

interface Running {
  service: ServiceHandle;
  stop(): Promise<void>;
}

/**
 * The real services a scenario file starts: all of them are stopped when the
 * file is done, or at once when a later one fails to start, and their logs
 * are printed when a test fails. Registers its hooks where it is called.
 */
export function trackServices(logLines = 60) {
  const running: Running[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all(running.map((instance) => instance.stop()));
  };
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') for (const { service } of running) console.error(describeLog(service, logLines));
  });
  afterAll(stopAll);
  return {
    add<T extends Running>(instance: T): T {
      running.push(instance);
      return instance;
    },
    async starting(start: () => Promise<void>): Promise<void> {
      try {
        await start();
      } catch (error) {
        await stopAll();
        throw error;
      }
    },
  };
}
