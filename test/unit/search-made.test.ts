import { boundDerived, madeAlready, madeOnce } from '../../src/domain/search/derived';

/** What is made from a kept search answer (src/domain/search/derived.ts): made once, kept as bytes within its bound. */
const bytes = (n: number, fill = 1) => ({ bytes: new Uint8Array(n).fill(fill) });
let n = 0;
const id = () => `answer#${++n}|a:m-`;
const later = () => Date.now() + 60_000;

beforeEach(() => boundDerived(1024));

describe('what is made from a kept search answer', () => {
  it('is made once for the searches that ask while it is made, and kept for the next', async () => {
    const key = id();
    let makes = 0;
    const make = async () => {
      makes++;
      await new Promise((r) => setTimeout(r, 20));
      return bytes(10);
    };
    const [a, b] = await Promise.all([madeOnce(key, later(), make), madeOnce(key, later(), make)]);
    expect(a).toBe(b);
    expect(await madeOnce(key, later(), make)).toBe(a);
    expect(makes).toBe(1);
    expect(madeAlready(key)).toBe(a);
  });

  it('keeps no failure: the next search makes it again', async () => {
    const key = id();
    let makes = 0;
    const failing = async () => {
      makes++;
      throw new Error('no rate for IRR');
    };
    await expect(madeOnce(key, later(), failing)).rejects.toThrow('no rate for IRR');
    await expect(madeOnce(key, later(), failing)).rejects.toThrow('no rate for IRR');
    expect(makes).toBe(2);
    expect(madeAlready(key)).toBeUndefined();
  });

  it('keeps nothing made from an answer that is not kept, nor past its bound', async () => {
    const unkept = id();
    await madeOnce(unkept, 0, async () => bytes(10));
    expect(madeAlready(unkept)).toBeUndefined();
    const past = id();
    await madeOnce(past, Date.now() - 1, async () => bytes(10));
    expect(madeAlready(past)).toBeUndefined();
  });

  it('keeps within its memory bound, counting the bytes made, the least used first out', async () => {
    const [first, second, third] = [id(), id(), id()];
    await madeOnce(first, later(), async () => bytes(400));
    await madeOnce(second, later(), async () => bytes(400));
    await madeOnce(first, later(), async () => bytes(400, 2));
    await madeOnce(third, later(), async () => bytes(400));
    expect(madeAlready(first)?.bytes[0]).toBe(1);
    expect(madeAlready(second)).toBeUndefined();
    expect(madeAlready(third)).toBeDefined();
    const huge = id();
    await madeOnce(huge, later(), async () => bytes(2048));
    expect(madeAlready(huge)).toBeUndefined();
    expect(madeAlready(first)).toBeDefined();
  });
});
