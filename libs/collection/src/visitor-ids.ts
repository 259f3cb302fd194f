import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlPool } from '@app/core';

// The first replica to need a day's salt makes it; the others read the same one. Salts of other
// days are deleted at once, so an id cannot be recomputed once its day is over.
const SALT_SQL = `
  WITH made AS (
    INSERT INTO collection_salts (day, salt) VALUES ($1::date, $2) ON CONFLICT (day) DO NOTHING RETURNING salt
  ), gone AS (
    DELETE FROM collection_salts WHERE day <> $1::date
  )
  SELECT salt FROM made UNION ALL SELECT salt FROM collection_salts WHERE day = $1::date LIMIT 1`;

/**
 * Visitor ids of browser collection: a hash of the day's salt, the funnel, the client address
 * and the user agent (Plausible's scheme). A visitor keeps its id for a day on a funnel; no
 * identifier is stored in the browser, and none outlives its day.
 */
@Injectable()
export class VisitorIds {
  private current?: { day: string; salt: Promise<Buffer> };

  constructor(private readonly dataSource: DataSource) {}

  async visitorId(funnelId: string, parts: string[]): Promise<string> {
    const salt = await this.saltOf(new Date().toISOString().slice(0, 10));
    const hash = createHash('sha256').update(salt);
    for (const part of [funnelId.toLowerCase(), ...parts]) hash.update('\0').update(part);
    return hash.digest('hex').slice(0, 32);
  }

  private saltOf(day: string): Promise<Buffer> {
    if (this.current?.day !== day) {
      const salt = this.readSalt(day);
      this.current = { day, salt };
      // A failed read is tried again by the next request.
      salt.catch(() => {
        if (this.current?.salt === salt) this.current = undefined;
      });
    }
    return this.current.salt;
  }

  private async readSalt(day: string): Promise<Buffer> {
    const { rows } = await sqlPool(this.dataSource).query<{ salt: Buffer }>({
      name: 'collection_salt',
      text: SALT_SQL,
      values: [day, randomBytes(32)],
    });
    // Another replica made it after this statement's snapshot was taken: the next one sees it.
    return rows[0]?.salt ?? this.readSalt(day);
  }
}
