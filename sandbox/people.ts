/** Synthetic people: names, contact details and addresses in the club's locale. */

import type { Locale } from './locales';
import type { SeededRandom } from './sandbox-random';
import { EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES, STREET_NAMES } from './vocabulary';

export interface ApiContact {
  Email: string;
  OptOutEmail: boolean;
  Mobile: string | null;
  OptOutSms: boolean;
  Home: string | null;
  Work: string | null;
  Address: string | null;
  Suburb: string | null;
  State: string | null;
  Postcode: string | null;
}

export interface Person {
  firstName: string;
  lastName: string;
  contact: ApiContact;
}

export function makePerson(rng: SeededRandom, locale: Locale, uniqueNumber: number): Person {
  const firstName = rng.pick(FIRST_NAMES);
  const lastName = rng.pick(LAST_NAMES);
  const place = rng.pick(locale.places);
  const local = `${firstName}.${lastName}`.toLowerCase().replace(/[^a-z.]/g, '');
  return {
    firstName,
    lastName,
    contact: {
      Email: `${local}${uniqueNumber}@${rng.pick(EMAIL_DOMAINS)}`,
      OptOutEmail: rng.chance(0.15),
      Mobile: rng.chance(0.95) ? locale.mobile(rng.chars(9)) : null,
      OptOutSms: rng.chance(0.25),
      Home: rng.chance(0.2) ? locale.landline(rng.chars(8)) : null,
      Work: rng.chance(0.05) ? locale.landline(rng.chars(8)) : null,
      Address: `${rng.int(1, 240)} ${rng.pick(STREET_NAMES)} ${rng.pick(locale.streetSuffixes)}`,
      Suburb: place.suburb,
      State: place.state,
      Postcode: place.postcode,
    },
  };
}

/** "12 George Street, Bondi NSW 2026": the debt-collection record's single-string address. */
export function oneLineAddress(contact: ApiContact): string {
  return [contact.Address, [contact.Suburb, contact.State, contact.Postcode].filter(Boolean).join(' ')]
    .filter((part) => part && part.length > 0)
    .join(', ');
}
