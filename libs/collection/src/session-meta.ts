import { Injectable } from '@nestjs/common';
import type { ContactMeta, SessionDetails, UtmParams } from '@app/contacts';
import { SessionSummary, SessionSummaryReader } from '@app/metrics';
import { FunnelsService } from '@app/workspaces';

/** What the page says of itself on submission (not an event: no metric reads it). */
export interface PageContext {
  /** The browser's IANA time zone. */
  timezone?: string;
  /** The page ran inside a frame. */
  embed?: boolean;
}

/**
 * The service-managed members a contact takes from the session it converted in, as ingestion
 * stored it (docs/CAPTURING.md): when it was first and last seen, its first and last page (slug
 * and title), its completion and the UTM parameters of its start.
 */
@Injectable()
export class SessionMeta {
  constructor(
    private readonly sessions: SessionSummaryReader,
    private readonly funnels: FunnelsService,
  ) {}

  /** The session's summary, or undefined while no session_start of it is stored. */
  summary(funnelId: string, sessionId: string): Promise<SessionSummary | undefined> {
    return this.sessions.read(funnelId, sessionId);
  }

  /** The funnel's page titles by slug. */
  async pageTitles(funnelId: string): Promise<Map<string, string>> {
    return new Map((await this.funnels.pagesOf(funnelId)).map((p) => [p.slug, p.title]));
  }

  /** `titles`: the funnel's, when read already (beside the summary). */
  async detailsOf(
    funnelId: string,
    summary: SessionSummary | undefined,
    page: PageContext = {},
    titles?: Map<string, string>,
  ): Promise<SessionDetails> {
    const meta: ContactMeta = {};
    if (page.timezone) meta.ps_timezone = page.timezone;
    if (page.embed !== undefined) meta.ps_embed = page.embed;
    if (!summary) return { meta, utmParams: {} };
    titles ??= await this.pageTitles(funnelId);
    if (summary.startedAt) meta.ps_first_seen_at = summary.startedAt.toISOString();
    if (summary.lastSeenAt) meta.ps_last_seen_at = summary.lastSeenAt.toISOString();
    if (summary.firstPage) {
      meta.ps_start_slug = summary.firstPage;
      meta.ps_start_page = titles.get(summary.firstPage) ?? summary.firstPage;
    }
    if (summary.lastPage) {
      meta.ps_end_slug = summary.lastPage;
      meta.ps_result_page = titles.get(summary.lastPage) ?? summary.lastPage;
    }
    if (summary.completedAt) meta.ps_completed_at = summary.completedAt.toISOString();
    const utmParams: UtmParams = {};
    for (const [name, value] of Object.entries(summary.utm))
      utmParams[`utm_${name}` as keyof UtmParams] = value;
    return { meta, utmParams };
  }
}
