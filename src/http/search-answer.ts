import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context } from 'hono';
import { parseAccept } from 'hono/utils/accept';
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

/** A search's answer as sent: its JSON, and each encoding of it once asked for. */
interface Packed {
  json: Uint8Array<ArrayBuffer>;
  encoded: Partial<Record<keyof typeof compressors, Promise<Uint8Array<ArrayBuffer>>>>;
}

/** The answers made from each search result (the domain's, kept while the search layer keeps its supplier answer). */
const answers = new WeakMap<object, Packed>();

/**
 * A search's answer: `render`ed from `found` and serialised once per result, and when the
 * client accepts it and the answer is large enough, compressed once per encoding (off the
 * event loop, in libuv's pool); a result the search layer serves again is sent as it was
 * made. `X-Search-Cache` says how the search layer served it.
 */
export async function searchAnswer(c: Context, found: object, render: () => unknown): Promise<Response> {
  let packed = answers.get(found);
  if (!packed) {
    const json = Buffer.from(JSON.stringify(render()));
    packed = { json: new Uint8Array(json.buffer as ArrayBuffer, json.byteOffset, json.length), encoded: {} };
    answers.set(found, packed);
  }
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Vary: 'Accept-Encoding' };
  const served = searchServed();
  if (served) headers[SEARCH_CACHE_HEADER] = served;
  const encoding = packed.json.length >= COMPRESS_FROM_BYTES ? chooseEncoding(c.req.header('accept-encoding')) : null;
  if (!encoding) return c.body(packed.json, 200, headers);
  const kept = packed;
  const encoded = (kept.encoded[encoding] ??= compressors[encoding](Buffer.from(kept.json.buffer, kept.json.byteOffset, kept.json.length)).then(
    (b) => new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.length),
  ));
  encoded.catch(() => delete kept.encoded[encoding]);
  return c.body(await encoded, 200, { ...headers, 'Content-Encoding': encoding });
}
