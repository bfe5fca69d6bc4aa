/**
 * The locales of the synthetic clubs: places, street suffixes, phone number formats and tax rate.
 * A club's locale follows its time zone (Europe: UK, America: US, else AU).
 */

export interface Locale {
  readonly code: 'AU' | 'UK' | 'US';
  readonly streetSuffixes: readonly string[];
  readonly places: readonly { suburb: string; state: string; postcode: string }[];
  readonly mobile: (digits: string) => string;
  readonly landline: (digits: string) => string;
  readonly taxRate: number;
}

export const LOCALES: Record<Locale['code'], Locale> = {
  AU: {
    code: 'AU',
    streetSuffixes: ['Street', 'Road', 'Avenue', 'Parade', 'Lane'],
    places: [
      { suburb: 'Bondi', state: 'NSW', postcode: '2026' },
      { suburb: 'Surry Hills', state: 'NSW', postcode: '2010' },
      { suburb: 'Newtown', state: 'NSW', postcode: '2042' },
      { suburb: 'Parramatta', state: 'NSW', postcode: '2150' },
      { suburb: 'Manly', state: 'NSW', postcode: '2095' },
      { suburb: 'Chatswood', state: 'NSW', postcode: '2067' },
    ],
    mobile: (d) => `04${d.slice(0, 2)} ${d.slice(2, 5)} ${d.slice(5, 8)}`,
    landline: (d) => `(02) ${d.slice(0, 4)} ${d.slice(4, 8)}`,
    taxRate: 0.1,
  },
  UK: {
    code: 'UK',
    streetSuffixes: ['Street', 'Road', 'Lane', 'Close', 'Gardens'],
    places: [
      { suburb: 'Camden', state: 'Greater London', postcode: 'NW1 8QP' },
      { suburb: 'Islington', state: 'Greater London', postcode: 'N1 2XF' },
      { suburb: 'Brixton', state: 'Greater London', postcode: 'SW9 8HE' },
      { suburb: 'Hackney', state: 'Greater London', postcode: 'E8 1DY' },
      { suburb: 'Greenwich', state: 'Greater London', postcode: 'SE10 9NF' },
      { suburb: 'Richmond', state: 'Greater London', postcode: 'TW9 1TN' },
    ],
    mobile: (d) => `07${d.slice(0, 3)} ${d.slice(3, 9)}`,
    landline: (d) => `020 ${d.slice(0, 4)} ${d.slice(4, 8)}`,
    taxRate: 0.2,
  },
  US: {
    code: 'US',
    streetSuffixes: ['Street', 'Avenue', 'Boulevard', 'Place', 'Drive'],
    places: [
      { suburb: 'Brooklyn', state: 'NY', postcode: '11201' },
      { suburb: 'Queens', state: 'NY', postcode: '11375' },
      { suburb: 'Manhattan', state: 'NY', postcode: '10001' },
      { suburb: 'Bronx', state: 'NY', postcode: '10451' },
      { suburb: 'Hoboken', state: 'NJ', postcode: '07030' },
      { suburb: 'Yonkers', state: 'NY', postcode: '10701' },
    ],
    mobile: (d) => `(917) 555-${d.slice(0, 4)}`,
    landline: (d) => `(212) 555-${d.slice(0, 4)}`,
    taxRate: 0.08875,
  },
};

export function localeForZone(timeZone: string): Locale {
  if (timeZone.startsWith('Europe/')) return LOCALES.UK;
  if (timeZone.startsWith('America/')) return LOCALES.US;
  return LOCALES.AU;
}
