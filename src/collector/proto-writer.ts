/**
 * Builds one protobuf message into one buffer in two steps: fields are first
 * recorded as a flat list of operations (a sub-message is an `open`/`close`
 * pair whose length is known once it closes), then `finish` allocates the
 * exact size and writes them. No buffer per field and no concatenation; and
 * `mark`/`reset` take back what was recorded since a point, so a span that
 * fails half-way leaves nothing behind. Varints are minimal, as protobufjs
 * writes them, so output is byte-for-byte what protobufjs would give.
 */

const OPEN = 0;
const RAW = 1;
const BYTES = 2;
const STRING = 3;
const VARINT = 4;
const FIXED64 = 5;
const DOUBLE = 6;

/** Bytes of a varint of `lo` + `hi` × 2^32 (both unsigned 32-bit). */
function varintSize(lo: number, hi = 0): number {
  if (hi === 0) return lo < 0x80 ? 1 : lo < 0x4000 ? 2 : lo < 0x200000 ? 3 : lo < 0x10000000 ? 4 : 5;
  let size = 5;
  for (let rest = hi >>> 3; rest !== 0; rest >>>= 7) size++;
  return size;
}

export interface WriterMark {
  readonly ops: number;
  readonly size: number;
  readonly depth: number;
}

/** Strings shorter than this that are all ASCII are copied by a loop here: cheaper than a call into Buffer's native writer. */
const SHORT_STRING = 64;

const EMPTY: WriterMark = { ops: 0, size: 0, depth: 0 };

export class ProtoWriter {
  private ops = 0;
  private kind = new Uint8Array(256);
  /** The field tag (wire type included) of each op; unused by RAW. */
  private tag = new Uint32Array(256);
  /** Length (OPEN, STRING), low 32 bits (VARINT, FIXED64) or the value (DOUBLE). */
  private x = new Float64Array(256);
  /** High 32 bits of VARINT and FIXED64. */
  private y = new Uint32Array(256);
  private ref: (Uint8Array | string | undefined)[] = [];
  /** Ops of the sub-messages still open, and the size recorded when each opened. */
  private readonly openOps: number[] = [];
  private readonly openSizes: number[] = [];
  /** Bytes recorded so far, headers of open sub-messages not yet included. */
  private size = 0;

  private push(kind: number, tag: number, x: number, y: number, ref: Uint8Array | string | undefined): void {
    const i = this.ops++;
    if (i === this.kind.length) this.grow();
    this.kind[i] = kind;
    this.tag[i] = tag;
    this.x[i] = x;
    this.y[i] = y;
    this.ref[i] = ref;
  }

  private grow(): void {
    const capacity = this.kind.length * 2;
    const copy = <T extends Uint8Array | Uint32Array | Float64Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.kind = copy(this.kind, new Uint8Array(capacity));
    this.tag = copy(this.tag, new Uint32Array(capacity));
    this.x = copy(this.x, new Float64Array(capacity));
    this.y = copy(this.y, new Uint32Array(capacity));
  }

  /** Starts length-delimited field `field`; what is recorded until `close` is its payload. */
  open(field: number): void {
    this.openOps.push(this.ops);
    this.openSizes.push(this.size);
    this.push(OPEN, field * 8 + 2, 0, 0, undefined);
  }

  close(): void {
    const op = this.openOps.pop()!;
    const length = this.size - this.openSizes.pop()!;
    this.x[op] = length;
    this.size += varintSize(this.tag[op]!) + varintSize(length);
  }

  /** Bytes copied as they are (an already encoded part of the current message). */
  raw(bytes: Uint8Array): void {
    this.push(RAW, 0, 0, 0, bytes);
    this.size += bytes.length;
  }

  bytesField(field: number, bytes: Uint8Array): void {
    const tag = field * 8 + 2;
    this.push(BYTES, tag, 0, 0, bytes);
    this.size += varintSize(tag) + varintSize(bytes.length) + bytes.length;
  }

  stringField(field: number, value: string): void {
    const tag = field * 8 + 2;
    const length = Buffer.byteLength(value, 'utf8');
    this.push(STRING, tag, length, 0, value);
    this.size += varintSize(tag) + varintSize(length) + length;
  }

  /** A varint field of `lo` + `hi` × 2^32 (unsigned 32-bit halves). */
  varintField(field: number, lo: number, hi = 0): void {
    const tag = field * 8;
    this.push(VARINT, tag, lo, hi, undefined);
    this.size += varintSize(tag) + varintSize(lo, hi);
  }

  fixed64Field(field: number, lo: number, hi: number): void {
    const tag = field * 8 + 1;
    this.push(FIXED64, tag, lo, hi, undefined);
    this.size += varintSize(tag) + 8;
  }

  doubleField(field: number, value: number): void {
    const tag = field * 8 + 1;
    this.push(DOUBLE, tag, value, 0, undefined);
    this.size += varintSize(tag) + 8;
  }

  mark(): WriterMark {
    return { ops: this.ops, size: this.size, depth: this.openOps.length };
  }

  /** Forgets everything recorded since `mark` (sub-messages opened since then included). */
  reset(mark: WriterMark): void {
    this.ops = mark.ops;
    this.ref.length = mark.ops;
    this.openOps.length = mark.depth;
    this.openSizes.length = mark.depth;
    this.size = mark.size;
  }

  /** Forgets everything recorded: the writer can be reused for another message. */
  clear(): void {
    this.reset(EMPTY);
  }

  /** The message; every `open` must have been closed. The writer is cleared (and holds no reference to the parts). */
  finish(): Buffer {
    if (this.openOps.length > 0) throw new Error('ProtoWriter: a sub-message was left open');
    const buf = Buffer.allocUnsafe(this.size);
    let pos = 0;
    const { ops, kind, tag, x, y, ref } = this;
    for (let i = 0; i < ops; i++) {
      const k = kind[i]!;
      if (k === RAW) {
        const bytes = ref[i] as Uint8Array;
        buf.set(bytes, pos);
        pos += bytes.length;
        continue;
      }
      pos = writeVarint(buf, pos, tag[i]!, 0);
      switch (k) {
        case OPEN:
          pos = writeVarint(buf, pos, x[i]!, 0);
          break;
        case BYTES: {
          const bytes = ref[i] as Uint8Array;
          pos = writeVarint(buf, pos, bytes.length, 0);
          buf.set(bytes, pos);
          pos += bytes.length;
          break;
        }
        case STRING: {
          const text = ref[i] as string;
          const length = x[i]!;
          pos = writeVarint(buf, pos, length, 0);
          // A UTF-8 length equal to the UTF-16 length means every character is ASCII.
          if (length === text.length && length < SHORT_STRING) {
            for (let c = 0; c < length; c++) buf[pos + c] = text.charCodeAt(c);
            pos += length;
          } else pos += buf.write(text, pos, length, 'utf8');
          break;
        }
        case VARINT:
          pos = writeVarint(buf, pos, x[i]!, y[i]!);
          break;
        case FIXED64:
          buf.writeUInt32LE(x[i]!, pos);
          buf.writeUInt32LE(y[i]!, pos + 4);
          pos += 8;
          break;
        case DOUBLE:
          buf.writeDoubleLE(x[i]!, pos);
          pos += 8;
          break;
      }
    }
    this.clear();
    return buf;
  }
}

function writeVarint(buf: Buffer, pos: number, lo: number, hi: number): number {
  while (hi !== 0) {
    buf[pos++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  while (lo > 0x7f) {
    buf[pos++] = (lo & 0x7f) | 0x80;
    lo >>>= 7;
  }
  buf[pos++] = lo;
  return pos;
}
