// Alias limit. Every aliased field is its own resolver call and, for root fields, its own database query,
// so a document of hundreds of cheap aliases stays under the cost limit yet costs seconds and tens of MB
// (docs/reliability.md). A validation rule sees the document once (Mercurius caches validation per query
// text), so counting here costs nothing on repeated queries.
import { GraphQLError, type ASTVisitor, type ValidationContext, type ValidationRule } from 'graphql';

/** A rule refusing documents with more than `maxAliases` fields carrying an alias (fragments included). */
export function aliasLimitRule(maxAliases: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let aliasCount = 0;
    return {
      Field(node) {
        if (node.alias) aliasCount += 1;
      },
      Document: {
        leave() {
          if (aliasCount <= maxAliases) return;
          context.reportError(
            new GraphQLError(
              `query refused: it has ${aliasCount} aliased fields, more than the alias limit of ${maxAliases} ` +
                '(each alias is answered separately; split the request or ask for a larger page instead)',
              { extensions: { code: 'QUERY_TOO_COMPLEX', aliases: aliasCount, maxAliases } },
            ),
          );
        },
      },
    };
  };
}
