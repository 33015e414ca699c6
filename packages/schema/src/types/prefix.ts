// Prefix: an announced IP prefix in one month (cone prefixes).
import { connectionOf } from './pageInfo';
import { PrefixRef } from './refs';

PrefixRef.implement({
  description: 'An IP prefix announced in one month.',
  fields: (t) => ({
    date: t.exposeString('date'),
    network: t.exposeString('network', { description: 'Network address (IPv4 dotted quad or IPv6).' }),
    length: t.exposeInt('length', { description: 'Prefix length in bits.' }),
  }),
});

export const PrefixConnection = connectionOf('Prefix', PrefixRef, 'A page of prefixes.');
