import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { LoopGuardConfigError, isPlainObject, type DetectionOptions } from '../options.js';

/** Reads detection options from a JSON or YAML file (by extension; YAML otherwise, which also reads JSON). */
export async function loadOptionsFile(path: string): Promise<DetectionOptions> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new LoopGuardConfigError('--config', 'a readable file', `${path} (${(err as Error).message})`);
  }
  let value: unknown;
  try {
    value = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new LoopGuardConfigError('--config', 'valid JSON or YAML', `${path}: ${(err as Error).message}`);
  }
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) throw new LoopGuardConfigError('--config', 'a mapping of detection options', value);
  // A collector config file nests them under `detection:`; accept both shapes.
  const detection = isPlainObject(value.detection) ? value.detection : value;
  return detection as DetectionOptions;
}
