import { z } from 'zod';

/** A duration in milliseconds from the environment: a whole number, at least `min`, else `fallback`. */
export const envMs = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);
