// The few places where SQLite and PostgreSQL differ, kept together so the rest of the code is one path.
import { sql, type CreateTableBuilder, type RawBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Composite-key tables are stored WITHOUT ROWID on SQLite: the primary key is the table's
 * clustered order, which halves the size of link and cone tables and makes key range scans sequential.
 * PostgreSQL has no such option (and needs none).
 */
export function clusteredByPrimaryKey<T extends string, C extends string>(
  dialect: DialectName,
  builder: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C> {
  return dialect === 'sqlite' ? builder.modifyEnd(sql`without rowid`) : builder;
}

/** `count(*)` comes back as a string from pg (int8) and a number from SQLite. */
export function toCount(value: string | number | bigint | null | undefined): number {
  return value == null ? 0 : Number(value);
}

/** A LIKE pattern that matches `text` literally as a substring (escapes %, _ and the escape char). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** `column LIKE pattern ESCAPE '\'`, written the same on both dialects. */
export function likeEscaped(column: RawBuilder<unknown> | string, pattern: string): RawBuilder<boolean> {
  const ref = typeof column === 'string' ? sql.ref(column) : column;
  return sql<boolean>`${ref} like ${pattern} escape '\\'`;
}
