import { isStorableText, UNSTORABLE_TEXT_RULE } from '@app/core';
import { AB_VARIANTS, DEVICES, EventFields, EventType, UTM_FIELDS } from './event-types';
import { isObject, oneOf, pattern, Problems, text, uuid } from './event-field-checks';

export const EVENT_LIMITS = {
  idLength: 128,
  textLength: 200,
  titleLength: 500,
  answers: 20,
  answersTotalLength: 500,
  maxTimeOnPageMs: 86_400_000,
  earliest: Date.UTC(2000, 0, 1),
  /** Clocks drift: an event may be stamped up to a day ahead of the server. */
  futureToleranceMs: 86_400_000,
} as const;

export const SLUG = /^[a-z0-9][a-z0-9-_]{0,199}$/i;
export const QUESTION_ID = /^question_\d{1,9}$/;
type Reader = (raw: Record<string, unknown>, at: string, problems: Problems) => EventFields;

/** The event's pageSlug, checked the same way wherever a type carries one. */
const readPageSlug = (raw: Record<string, unknown>, at: string, problems: Problems) =>
  pattern(
    raw,
    'pageSlug',
    at,
    problems,
    SLUG,
    'a page slug (letters, digits, - and _; at most 200)',
  ) as string;

// Each reader returns the members in a fixed order; undefined members are dropped by JSON.
export const READERS: Record<EventType, { fields: string[]; read: Reader }> = {
  session_start: {
    fields: ['visitorId', 'device', 'utm', 'abVariant'],
    read: (raw, at, problems) => {
      const visitorId = text(raw, 'visitorId', at, problems, EVENT_LIMITS.idLength);
      const device = oneOf(raw, 'device', at, problems, DEVICES, true);
      let utm: Record<string, string> | undefined;
      if (raw.utm !== undefined) {
        if (!isObject(raw.utm)) problems.push(`${at}.utm must be an object`);
        else {
          for (const key of Object.keys(raw.utm)) {
            if (!UTM_FIELDS.includes(key as never))
              problems.push(`${at}.utm.${key} is not a recognised field`);
          }
          const present = UTM_FIELDS.filter(
            (f) => raw.utm && (raw.utm as Record<string, unknown>)[f] !== undefined,
          );
          utm = {};
          for (const f of present) {
            const value = text(raw.utm, f, `${at}.utm`, problems, EVENT_LIMITS.textLength);
            if (value !== undefined) utm[f] = value;
          }
          if (!present.length) utm = undefined;
        }
      }
      const abVariant = oneOf(raw, 'abVariant', at, problems, AB_VARIANTS, false);
      return { visitorId: visitorId as string, device: device as never, utm, abVariant };
    },
  },
  page_view: {
    fields: ['pageSlug', 'timeOnPageMs'],
    read: (raw, at, problems) => {
      const pageSlug = readPageSlug(raw, at, problems);
      const ms = raw.timeOnPageMs;
      if (
        ms !== undefined &&
        !(Number.isInteger(ms) && (ms as number) >= 0 && (ms as number) <= EVENT_LIMITS.maxTimeOnPageMs)
      ) {
        problems.push(`${at}.timeOnPageMs must be an integer from 0 to ${EVENT_LIMITS.maxTimeOnPageMs}`);
      }
      return { pageSlug, timeOnPageMs: ms as number | undefined };
    },
  },
  button_click: {
    fields: ['pageSlug', 'buttonId', 'buttonLabel'],
    read: (raw, at, problems) => ({
      pageSlug: readPageSlug(raw, at, problems),
      buttonId: text(raw, 'buttonId', at, problems, EVENT_LIMITS.textLength) as string,
      buttonLabel: text(raw, 'buttonLabel', at, problems, EVENT_LIMITS.textLength, false),
    }),
  },
  answer: {
    fields: ['questionId', 'questionTitle', 'answers'],
    read: (raw, at, problems) => {
      const questionId = pattern(raw, 'questionId', at, problems, QUESTION_ID, 'question_<n>');
      const questionTitle = text(raw, 'questionTitle', at, problems, EVENT_LIMITS.titleLength);
      const answers = raw.answers;
      const valid =
        Array.isArray(answers) &&
        answers.length >= 1 &&
        answers.length <= EVENT_LIMITS.answers &&
        answers.every((a) => typeof a === 'string' && a.length >= 1 && a.length <= EVENT_LIMITS.textLength) &&
        (answers as string[]).join('').length <= EVENT_LIMITS.answersTotalLength;
      if (answers === undefined) problems.push(`${at}.answers is required`);
      else if (!valid) {
        problems.push(
          `${at}.answers must be 1 to ${EVENT_LIMITS.answers} strings of 1 to ${EVENT_LIMITS.textLength} characters, ${EVENT_LIMITS.answersTotalLength} characters in total`,
        );
      } else if ((answers as string[]).some((a) => !isStorableText(a))) {
        problems.push(`${at}.answers ${UNSTORABLE_TEXT_RULE}`);
      }
      return {
        questionId: questionId as string,
        questionTitle: questionTitle as string,
        answers: answers as string[],
      };
    },
  },
  conversion: {
    fields: ['contactId'],
    read: (raw, at, problems) => ({ contactId: uuid(raw, 'contactId', at, problems, false) }),
  },
  completion: { fields: [], read: () => ({}) },
  message_delivered: {
    fields: ['messageId'],
    read: (raw, at, problems) => ({ messageId: uuid(raw, 'messageId', at, problems, true) as string }),
  },
  message_opened: {
    fields: ['messageId'],
    read: (raw, at, problems) => ({ messageId: uuid(raw, 'messageId', at, problems, true) as string }),
  },
};
