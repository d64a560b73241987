import { createRequire } from 'node:module';

/**
 * Loads a framework module the way the application will, so a prototype can
 * be patched without loader hooks: ESM modules are singletons per resolved
 * file, and patching the class's prototype reaches every importer of that
 * file. Resolution starts from this file, which in an installed app is the
 * app's own node_modules. A framework that is not installed is not an error.
 */
export async function loadIfInstalled(specifier: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const requireHere = createRequire(import.meta.url);

/** The CommonJS counterpart, for packages whose CJS copy the require hook cannot see. */
export function requireIfInstalled(specifier: string): Record<string, unknown> | undefined {
  try {
    return requireHere(specifier) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
