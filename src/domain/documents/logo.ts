import { Resvg } from '@resvg/resvg-js';
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import { PNG } from 'pngjs';
import { validation } from '../errors';

/** The largest logo accepted, in bytes: the request body limit of the interfaces too. */
export const MAX_LOGO_BYTES = 256 * 1024;
/** The largest side of a PNG logo, in pixels. */
export const MAX_LOGO_SIDE = 2000;
/** The height an SVG logo is drawn at for the PDFs, in pixels. */
const SVG_RASTER_HEIGHT = 240;

export const LOGO_TYPES = ['image/png', 'image/svg+xml'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** A logo as accepted: what is kept (the PNG as sent, the SVG as made safe) and the PNG the PDFs draw. */
export interface CheckedLogo {
  type: LogoType;
  stored: Buffer;
  png: Buffer;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function checkPng(bytes: Buffer): CheckedLogo {
  if (bytes.length < PNG_SIGNATURE.length || !bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
    throw validation('logo', 'is not a PNG image (its signature is wrong)');
  }
  let decoded: { width: number; height: number };
  try {
    decoded = PNG.sync.read(bytes);
  } catch {
    throw validation('logo', 'is not a readable PNG image');
  }
  if (decoded.width > MAX_LOGO_SIDE || decoded.height > MAX_LOGO_SIDE) {
    throw validation('logo', `is ${decoded.width}x${decoded.height} pixels; at most ${MAX_LOGO_SIDE}x${MAX_LOGO_SIDE}`);
  }
  return { type: 'image/png', stored: bytes, png: bytes, width: decoded.width, height: decoded.height };
}

/** Elements whose presence makes an SVG refused rather than cleaned: they run code or embed other documents. */
const ACTIVE_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'object', 'embed', 'handler', 'listener']);
/** A reference out of the image: an href, or a CSS url(), to anything but a fragment of the image itself. */
const EXTERNAL_URL = /url\s*\(\s*['"]?\s*(?!#)/i;

let window: JSDOM | undefined;
/** DOMPurify in a jsdom window of its own, made on the first SVG: a process that never sees one never builds it. */
const purifierOf = () => createDOMPurify((window ??= new JSDOM('')).window as unknown as Parameters<typeof createDOMPurify>[0]);

/**
 * An SVG made safe with DOMPurify (its SVG profile, in jsdom): what it drops of an editor's
 * extras is dropped quietly; an active part (a script, an event handler, an embedded
 * document) or a reference outside the image refuses the whole upload, so that nobody keeps
 * a logo that looks other than what was sent.
 */
export function sanitizeSvg(text: string): string {
  const external: string[] = [];
  const purifier = purifierOf();
  purifier.addHook('uponSanitizeAttribute', (_node, data) => {
    const value = data.attrValue.trim();
    const isHref = /^(xlink:)?href$/i.test(data.attrName);
    if ((isHref && !value.startsWith('#')) || EXTERNAL_URL.test(value)) {
      external.push(data.attrName);
      data.keepAttr = false;
    }
  });
  let clean: string;
  try {
    clean = purifier.sanitize(text, { USE_PROFILES: { svg: true, svgFilters: true }, FORBID_TAGS: ['style'] });
  } finally {
    purifier.removeAllHooks();
  }
  const active = purifier.removed.flatMap((r) => {
    if ('element' in r && r.element && ACTIVE_ELEMENTS.has(r.element.nodeName.toLowerCase())) return [`<${r.element.nodeName}>`];
    if ('attribute' in r && r.attribute && /^on/i.test(r.attribute.name)) return [`${r.attribute.name}=`];
    return [];
  });
  if (active.length) throw validation('logo', `the SVG has active content (${[...new Set(active)].join(', ')}); send it without`);
  if (external.length) throw validation('logo', `the SVG refers to something outside itself (${[...new Set(external)].join(', ')}); embed it or leave it out`);
  if (!/^<svg[\s>]/i.test(clean.trim())) throw validation('logo', 'is not an SVG image (no <svg> element)');
  return clean.trim();
}

function checkSvg(bytes: Buffer): CheckedLogo {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw validation('logo', 'is not UTF-8 text');
  }
  const clean = sanitizeSvg(text);
  let png: Buffer;
  let width: number;
  let height: number;
  try {
    const image = new Resvg(clean, { fitTo: { mode: 'height', value: SVG_RASTER_HEIGHT }, font: { loadSystemFonts: false } }).render();
    png = image.asPng();
    ({ width, height } = image);
  } catch {
    throw validation('logo', 'is an SVG image that cannot be drawn');
  }
  if (width < 1 || height < 1 || width > 8 * SVG_RASTER_HEIGHT) throw validation('logo', `is ${width}x${height} once drawn; at most 8 times wider than high`);
  return { type: 'image/svg+xml', stored: Buffer.from(clean, 'utf8'), png, width, height };
}

/** A logo upload checked by its declared type: PNG (signature, decodable, dimensions) or SVG (parsed and made safe, then drawn). */
export function checkLogo(contentType: string | undefined, bytes: Buffer): CheckedLogo {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(LOGO_TYPES as readonly string[]).includes(type)) throw validation('content-type', 'must be image/png or image/svg+xml');
  if (bytes.length === 0) throw validation('logo', 'is empty');
  if (bytes.length > MAX_LOGO_BYTES) throw validation('logo', `is ${bytes.length} bytes; at most ${MAX_LOGO_BYTES}`);
  return type === 'image/png' ? checkPng(bytes) : checkSvg(bytes);
}
