/** Free TCP ports on 127.0.0.1 for the services a test starts. */
import { createServer, type Server } from 'node:net';

function listenOnEphemeralPort(): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolvePromise(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolvePromise) => server.close(() => resolvePromise()));
}

/**
 * `count` distinct ports the kernel reported free. All are held open together
 * so they differ from each other; another process may still take one before
 * the service binds it, which then fails to start with a clear log.
 */
export async function freePorts(count: number): Promise<number[]> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`freePorts: count must be a positive integer, got ${count}`);
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnEphemeralPort());
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('freePorts: server has no TCP address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map(close));
  }
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
