import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A queued chunk as stored: an encoded ExportTraceServiceRequest and its span count. */
export interface StoredChunk {
  id: number;
  body: Uint8Array;
  spans: number;
}

const FILE_PATTERN = /^(\d{16})-(\d+)\.otlp$/;

/**
 * The persistent forward queue: one file per accepted chunk in a directory,
 * written before the request is acknowledged and removed once the forward
 * endpoint acknowledged it (or refused it for good). Spans acknowledged but not
 * yet forwarded when the process stops are found there at the next start, like
 * the Go Collector's sending queue on `file_storage`. Files are written to a
 * temporary name and renamed, so a crash never leaves a half chunk; there is no
 * fsync, so this survives process restarts, not power loss.
 */
export class FileQueueStore {
  private nextId = 0;

  constructor(private readonly directory: string) {
    mkdirSync(directory, { recursive: true });
  }

  /** What an earlier process left, oldest first; unreadable or foreign files are left alone. */
  load(): StoredChunk[] {
    const chunks: StoredChunk[] = [];
    for (const name of readdirSync(this.directory).sort()) {
      const match = FILE_PATTERN.exec(name);
      if (!match) continue;
      const id = Number(match[1]);
      chunks.push({ id, spans: Number(match[2]), body: readFileSync(join(this.directory, name)) });
      this.nextId = Math.max(this.nextId, id + 1);
    }
    return chunks;
  }

  async write(body: Uint8Array, spans: number): Promise<number> {
    const id = this.nextId++;
    const path = this.pathOf(id, spans);
    await writeFile(`${path}.tmp`, body);
    await rename(`${path}.tmp`, path);
    return id;
  }

  async remove(id: number, spans: number): Promise<void> {
    await unlink(this.pathOf(id, spans)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  private pathOf(id: number, spans: number): string {
    return join(this.directory, `${String(id).padStart(16, '0')}-${spans}.otlp`);
  }
}
