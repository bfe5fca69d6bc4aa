/**
 * zod schemas of the protocol around the records: the token endpoint's answer and the page
 * envelope of every list operation. The records' own schemas are in ./schemas.ts.
 */
import { z } from 'zod';

export const TokenResponseSchema = z.looseObject({
  AccessToken: z.string().min(1),
  ExpiresIn: z.number().int(),
  TokenType: z.string(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

/** The page envelope of every list operation. `data` items are validated one by one by the caller. */
export const PageEnvelopeSchema = z.looseObject({
  href: z.string().nullish(),
  next: z.string().nullish(),
  data: z.array(z.unknown()),
});
export type PageEnvelope = z.infer<typeof PageEnvelopeSchema>;
