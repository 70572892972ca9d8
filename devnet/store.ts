import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRecord, encodeRecord } from './json';

/**
 * Append-only block log, one JSON line per block, fsynced before the block
 * becomes visible. A crash can only tear the last line; opening the log drops
 * such a tail, so a restart keeps every block that was ever served.
 */
export class BlockLog<T> {
  private readonly path: string;
  private fd: number | null = null;
  private end = 0;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'blocks.jsonl');
  }

  /** Reads every complete record and opens the log for appending. */
  open(): T[] {
    const records: T[] = [];
    let validBytes = 0;
    if (existsSync(this.path)) {
      const text = readFileSync(this.path);
      let start = 0;
      for (let nl = text.indexOf(10, start); nl !== -1; nl = text.indexOf(10, start)) {
        try {
          records.push(decodeRecord<T>(text.subarray(start, nl).toString('utf8')));
        } catch {
          break;
        }
        start = nl + 1;
        validBytes = start;
      }
    }
    this.fd = openSync(this.path, existsSync(this.path) ? 'r+' : 'w+');
    ftruncateSync(this.fd, validBytes);
    this.end = validBytes;
    return records;
  }

  append(record: T): void {
    if (this.fd === null) throw new Error('block log is not open');
    const line = Buffer.from(encodeRecord(record) + '\n', 'utf8');
    writeSync(this.fd, line, 0, line.length, this.end);
    fsyncSync(this.fd);
    this.end += line.length;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
