// The one Pothos builder of the schema. Every type file imports it and registers its type and root fields.
import SchemaBuilder from '@pothos/core';
import type { AsrankContext } from './context';

export const builder = new SchemaBuilder<{
  Context: AsrankContext;
  // Output fields are non-null unless a field says otherwise; arguments are optional unless required.
  DefaultFieldNullability: false;
}>({ defaultFieldNullability: false });

builder.queryType({
  description: 'AS Rank v2.1: ASNs, organizations, links, locations, monthly datasets and customer cones.',
});
