import { randomBytes } from 'node:crypto';

/** Fresh random nonces of `size` bytes, drawn from the system's CSPRNG a few hundred at a time rather than one call each. */
export class Nonces {
  private pool = Buffer.alloc(0);
  private next = 0;

  constructor(private readonly size: number) {}

  /** A nonce no other take returns: a slice of the pool, never handed out twice. */
  take(): Buffer {
    if (this.next + this.size > this.pool.length) {
      this.pool = randomBytes(this.size * 256);
      this.next = 0;
    }
    this.next += this.size;
    return this.pool.subarray(this.next - this.size, this.next);
  }
}
