/** Polling helpers: real services become ready and ingest data asynchronously. */

export interface WaitOptions {
  /** What is awaited, for the timeout message. */
  description: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `probe` until it returns a value other than `undefined`/`false`, and
 * returns it. Errors thrown by `probe` count as "not yet"; the last one is
 * reported when the time is up.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { description, timeoutMs = 30_000, intervalMs = 200 }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${cause}`);
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, intervalMs));
  }
}

/** True when GET `url` answers 2xx within a second. */
export async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** GET `url` and parse JSON; throws with the status and body on a non-2xx answer. */
export async function getJson<T>(url: string, timeoutMs = 10_000): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 500)}`);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`GET ${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}
