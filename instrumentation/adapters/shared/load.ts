import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

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

/** Modules loaded before any adapter was enabled (undefined: not installed). */
const preloaded = new Map<string, Record<string, unknown> | undefined>();

/**
 * Imports the framework modules the adapters patch, once, before the
 * application runs (loopguard's entry awaits it): an ESM module can only be
 * imported asynchronously, and an agent started right after `register()`
 * would otherwise run before its framework is patched.
 */
export async function preloadModules(specifiers: readonly string[]): Promise<void> {
  await Promise.all(
    specifiers.map(async (specifier) => {
      if (!preloaded.has(specifier)) preloaded.set(specifier, await loadIfInstalled(specifier));
    }),
  );
}

/**
 * Hands `use` the module: synchronously when it was preloaded, else once it
 * is imported. The promise settles when `use` has run (or the module turned
 * out not to be installed).
 */
export function withModule(specifier: string, use: (moduleExports: Record<string, unknown>) => void): Promise<void> {
  if (preloaded.has(specifier)) {
    const m = preloaded.get(specifier);
    if (m) use(m);
    return Promise.resolve();
  }
  return loadIfInstalled(specifier).then((m) => {
    if (m) use(m);
  });
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

/**
 * Names the application installs `pkg` under besides its own
 * (`"ai-v6": "npm:ai@^6"` in its package.json), so those copies are
 * preloaded too. Read from the working directory's package.json; none when
 * there is none.
 */
export function aliasesOf(pkg: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as Record<string, unknown>;
    const names: string[] = [];
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      const deps = manifest[field];
      if (typeof deps !== 'object' || deps === null) continue;
      for (const [name, spec] of Object.entries(deps as Record<string, unknown>)) {
        if (typeof spec === 'string' && spec.startsWith(`npm:${pkg}@`)) names.push(name);
      }
    }
    return names;
  } catch {
    return [];
  }
}
