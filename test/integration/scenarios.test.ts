import { afterEach, describe, expect, it } from 'vitest';
import * as loopguard from '../../instrumentation/index.js';
import { defineLoopGuardScenarios } from '../shared/scenarios.js';
import { createHarness } from '../support/harness.js';

// The scenarios the SDK 3.x compat suite runs too (test/compat/sdk3), here on SDK 2.x from source.
defineLoopGuardScenarios({ name: 'OpenTelemetry SDK 2.x', loopguard, createHarness, vitest: { describe, it, expect, afterEach } });
