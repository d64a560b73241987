import { afterEach, describe, expect, it } from 'vitest';
import * as loopguard from 'loopguard';
import { defineLoopGuardScenarios } from '../../shared/scenarios.js';
import { createSdk3Harness } from './harness.js';

defineLoopGuardScenarios({
  name: 'OpenTelemetry SDK 3.x (TracerProvider, packed loopguard)',
  loopguard,
  createHarness: createSdk3Harness,
  vitest: { describe, it, expect, afterEach },
});
