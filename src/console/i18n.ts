import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { en, type MessageKey } from './messages/en';
import { fa } from './messages/fa';

/** The console's languages, each with its reading direction (docs/decisions/consoles.md). */
export const LOCALES = {
  en: { name: 'English', dir: 'ltr', messages: en as Partial<Record<MessageKey, string>> },
  fa: { name: 'فارسی', dir: 'rtl', messages: fa },
} as const;
export type Locale = keyof typeof LOCALES;
export const LOCALE_COOKIE = 'tbe_lang';

const isLocale = (value: string | undefined): value is Locale => value !== undefined && Object.hasOwn(LOCALES, value);

/** The language a request asks for: `?lang=`, else the cookie the language switch set, else English. */
export function localeOf(c: Context): Locale {
  const asked = c.req.query('lang');
  if (isLocale(asked)) return asked;
  const kept = getCookie(c, LOCALE_COOKIE);
  return isLocale(kept) ? kept : 'en';
}

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/** The words of `locale`, English where it has none yet, with `{name}` filled in from `vars`. */
export function translator(locale: Locale): Translate {
  const messages = LOCALES[locale].messages;
  return (key, vars) => {
    const text = messages[key] ?? en[key];
    return vars ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole)) : text;
  };
}
