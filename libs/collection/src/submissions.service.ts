import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfigService, isStorableText, ValidationError } from '@app/core';
import { ContactCaptureService } from '@app/contacts';
import { EVENT_LIMITS, parseEventBatch } from '@app/metrics';
import { BrowserRequest } from './browser-request';
import { browserBody, CollectService } from './collect.service';
import { CollectionDoor } from './collection-door';
import { PageContext, SessionMeta } from './session-meta';

/** A lead form's submission as the tracker sends it (docs/CAPTURING.md). */
interface Submission {
  sessionId: string;
  fields: Record<string, unknown>;
  answers: { questionId: string; answers: string[] }[];
  page: PageContext;
  /** The honeypot input's value: filled only by a bot. */
  trap?: string;
}

const MEMBERS = ['sessionId', 'fields', 'answers', 'page', 'trap'];
const MAX_ANSWERS = 50;
const QUESTION_ID = /^question_\d{1,9}$/;
const MAX_TIMEZONE_LENGTH = 100;

/**
 * Lead forms of funnel pages: from an allowed origin, within the limits, past the spam checks (a
 * filled honeypot, a session that began too recently or never), the lead creates or fills its
 * contact (ContactCaptureService) with `ps_source: funnel` and its session's meta, its answers
 * as properties `question_<n>` (the session's details by SessionMeta, as a conversion of the
 * events API links them); then the session's conversion, with the contact's id, is handed to the
 * events API's ingestion after the answer (CollectService.storeAfterAnswer). The page learns
 * nothing of the contact: every outcome but a refusal of the request itself is the same 202.
 */
@Injectable()
export class SubmissionsService {
  constructor(
    private readonly door: CollectionDoor,
    private readonly collector: CollectService,
    private readonly sessionMeta: SessionMeta,
    private readonly capture: ContactCaptureService,
    @Inject(ConfigService) private readonly config: AppConfigService,
  ) {}

  async submit(funnelId: string, browser: BrowserRequest, rawBody: unknown): Promise<void> {
    const funnel = await this.door.admit('submit', funnelId, browser);
    if (browser.bot) return;
    const submission = readSubmission(browserBody(rawBody));
    if (submission.trap) return;
    // The page's last events, sent just before its form, are part of the session read below.
    await this.collector.sessionWritten(funnel.id, submission.sessionId);
    const [summary, titles] = await Promise.all([
      this.sessionMeta.summary(funnel.id, submission.sessionId),
      this.sessionMeta.pageTitles(funnel.id),
    ]);
    const minimumMs = this.config.get('SUBMIT_MIN_SECONDS') * 1000;
    if (!summary?.startedAt || Date.now() - summary.startedAt.getTime() < minimumMs) return;

    const details = await this.sessionMeta.detailsOf(funnel.id, summary, submission.page, titles);
    // The session's answers as tracked, and the form's own over them.
    const answers = {
      ...summary.answers,
      ...Object.fromEntries(submission.answers.map((a) => [a.questionId, a.answers])),
    };
    const properties = Object.fromEntries(
      Object.entries(answers).map(([questionId, values]) => [questionId, values.join(', ')]),
    );
    const { contactId } = await this.capture.capture(funnel.companyId, funnel.id, {
      fields: submission.fields,
      meta: { ps_source: 'funnel', ...details.meta },
      utmParams: details.utmParams,
      properties,
    });
    // The contact has the session's details already: stored as checked, without linking again.
    const conversion = parseEventBatch({
      events: [
        {
          type: 'conversion',
          sessionId: submission.sessionId,
          occurredAt: new Date().toISOString(),
          contactId,
        },
      ],
    });
    // Written after the answer, as the tracker's events are.
    await this.collector.storeAfterAnswer(funnel.id, conversion);
  }
}

function readSubmission(body: unknown): Submission {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError('the body must be a JSON object {"sessionId", "fields", "answers"}');
  const raw = body as Record<string, unknown>;
  const problems = Object.keys(raw)
    .filter((k) => !MEMBERS.includes(k))
    .map((k) => `${k} is not a recognised field`);
  const { sessionId, fields, answers = [], page = {}, trap } = raw;
  if (
    typeof sessionId !== 'string' ||
    !sessionId ||
    sessionId.length > EVENT_LIMITS.idLength ||
    !isStorableText(sessionId)
  )
    problems.push(`sessionId must be a string of 1 to ${EVENT_LIMITS.idLength} characters`);
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    problems.push('fields must be an object');
  if (!Array.isArray(answers) || answers.length > MAX_ANSWERS || !answers.every(isAnswer))
    problems.push(
      `answers must be at most ${MAX_ANSWERS} objects {"questionId": "question_<n>", "answers": [1 to ${EVENT_LIMITS.answers} strings of 1 to ${EVENT_LIMITS.textLength} characters]}`,
    );
  const context = page as PageContext;
  if (
    typeof page !== 'object' ||
    page === null ||
    Object.keys(page).some((k) => k !== 'timezone' && k !== 'embed') ||
    (context.timezone !== undefined && !isTimeZone(context.timezone)) ||
    (context.embed !== undefined && typeof context.embed !== 'boolean')
  )
    problems.push('page must be {"timezone": an IANA time zone, "embed": true or false}');
  if (trap !== undefined && typeof trap !== 'string') problems.push('trap must be a string');
  if (problems.length) throw new ValidationError(problems[0], problems);
  return {
    sessionId: sessionId as string,
    fields: fields as Record<string, unknown>,
    answers: answers as Submission['answers'],
    page: context,
    trap: trap as string | undefined,
  };
}

function isAnswer(value: unknown): boolean {
  const a = value as { questionId?: unknown; answers?: unknown; questionTitle?: unknown };
  return (
    typeof a === 'object' &&
    a !== null &&
    Object.keys(a).every((k) => k === 'questionId' || k === 'answers' || k === 'questionTitle') &&
    typeof a.questionId === 'string' &&
    QUESTION_ID.test(a.questionId) &&
    Array.isArray(a.answers) &&
    a.answers.length >= 1 &&
    a.answers.length <= EVENT_LIMITS.answers &&
    a.answers.every(
      (x) =>
        typeof x === 'string' && x.length >= 1 && x.length <= EVENT_LIMITS.textLength && isStorableText(x),
    )
  );
}

function isTimeZone(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > MAX_TIMEZONE_LENGTH) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
