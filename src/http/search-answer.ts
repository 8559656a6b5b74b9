import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants, gunzip, gzip } from 'node:zlib';
import type { Context } from 'hono';
import { parseAccept } from 'hono/utils/accept';
import { madeAlready, madeOnce, type MadeBytes, type Sold } from '../domain/search/derived';
import { searchServed } from '../platform/request-context';

/** The header that says how a search was served (src/domain/search/layer.ts): fresh, stale, coalesced or miss. */
export const SEARCH_CACHE_HEADER = 'X-Search-Cache';

/** Answers smaller than this go as they are: compressing them saves less than it costs. */
const COMPRESS_FROM_BYTES = 1024;

const compressors = {
  // Most of a search answer's bytes are sealed codes, which no quality compresses: brotli's
  // lowest quality gives the same size as its higher ones at a fraction of their cost.
  br: promisify((input: Buffer, done: (err: Error | null, out: Buffer) => void) =>
    brotliCompress(input, { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: input.length } }, done),
  ),
  gzip: promisify((input: Buffer, done: (err: Error | null, out: Buffer) => void) => gzip(input, { level: 6 }, done)),
};

/** The encoding to answer with: brotli or gzip as the client accepts them (its preference first, brotli on a tie), else none. */
export function chooseEncoding(acceptEncoding: string | undefined): keyof typeof compressors | null {
  if (!acceptEncoding) return null;
  const accepts = parseAccept(acceptEncoding);
  const q = (name: string) => accepts.find((a) => a.type.toLowerCase() === name)?.q ?? accepts.find((a) => a.type === '*')?.q ?? 0;
  const br = q('br');
  const gz = q('gzip');
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

/** A form of a search's answer as sent: its body, and its encoding (none when too small to compress). */
interface Form extends MadeBytes {
  encoding: keyof typeof compressors | null;
}

const FORMS = ['identity', 'br', 'gzip'] as const;
const decompressors = { br: promisify(brotliDecompress), gzip: promisify(gunzip) };

/** The JSON of sold answers being made, by `Sold` id, while a form of it is made. */
const rendering = new Map<string, { json: Promise<Buffer>; users: number }>();

/**
 * `use` with the JSON of `sold`: decoded from a form of it already kept, else made once
 * (priced, rendered, serialised) for every form made at the same time, so each encoding of
 * an answer carries the same sealed codes.
 */
async function withJson<T, R>(sold: Sold<T>, render: (made: T) => unknown, use: (json: Buffer) => Promise<R>): Promise<R> {
  for (const name of FORMS) {
    const kept = madeAlready<Form>(`${sold.id}|${name}`);
    if (kept) {
      const bytes = Buffer.from(kept.bytes.buffer, kept.bytes.byteOffset, kept.bytes.length);
      return use(kept.encoding ? await decompressors[kept.encoding](bytes) : bytes);
    }
  }
  let made = rendering.get(sold.id);
  if (!made) {
    made = { json: Promise.resolve().then(() => Buffer.from(JSON.stringify(render(sold.make())))), users: 0 };
    rendering.set(sold.id, made);
  }
  made.users++;
  try {
    return await use(await made.json);
  } finally {
    if (--made.users === 0 && rendering.get(sold.id) === made) rendering.delete(sold.id);
  }
}

const asBody = (b: Buffer) => new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.length);

/**
 * A search's answer: made from `sold` (priced, `render`ed, serialised) and, when the client
 * accepts it and the answer is large enough, compressed (off the event loop, in libuv's
 * pool), once per sold answer and encoding, and kept as those bytes (madeOnce): a search the
 * search layer serves again is sent as it was made. `X-Search-Cache` says how the search
 * layer served it.
 */
export async function searchAnswer<T>(c: Context, sold: Sold<T>, render: (made: T) => unknown): Promise<Response> {
  const wanted = chooseEncoding(c.req.header('accept-encoding'));
  const form = await madeOnce<Form>(`${sold.id}|${wanted ?? 'identity'}`, sold.until, () =>
    withJson(sold, render, async (json) => {
      if (!wanted || json.length < COMPRESS_FROM_BYTES) return { bytes: asBody(json), encoding: null };
      return { bytes: asBody(await compressors[wanted](json)), encoding: wanted };
    }),
  );
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Vary: 'Accept-Encoding' };
  const served = searchServed();
  if (served) headers[SEARCH_CACHE_HEADER] = served;
  if (form.encoding) headers['Content-Encoding'] = form.encoding;
  return c.body(form.bytes as Uint8Array<ArrayBuffer>, 200, headers);
}
