/**
 * The checks borrowed from packages (docs/tokenize.md says why each): validator's card and IBAN
 * checks, libphonenumber-js's numbering plans. Required when a tokenizer is made, never when
 * tokenize is off, as the Redis client and OpenTelemetry are: the server's bundle leaves them out.
 */
import { createRequire } from 'node:module';
import type * as PhoneNumbers from 'libphonenumber-js/core';

/** validator's isCreditCard and isIBAN, as called here: a whole string in, yes or no out. */
type StringCheck = (text: string) => boolean;

export interface Libraries {
  readonly isCreditCard: StringCheck;
  readonly isIban: StringCheck;
  /** libphonenumber-js's functions, each given `phoneMetadata`: Google's full plans ("max"). */
  readonly phoneNumbers: typeof PhoneNumbers;
  readonly phoneMetadata: PhoneNumbers.MetadataJson;
}

let loaded: Libraries | undefined;

export function loadLibraries(): Libraries {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  loaded = {
    isCreditCard: require('validator/lib/isCreditCard') as StringCheck,
    // isIBAN's module exports its locales beside the function, so it is not the module itself.
    isIban: (require('validator/lib/isIBAN') as { default: StringCheck }).default,
    phoneNumbers: require('libphonenumber-js/core') as typeof PhoneNumbers,
    phoneMetadata: require('libphonenumber-js/max/metadata') as PhoneNumbers.MetadataJson,
  };
  return loaded;
}
