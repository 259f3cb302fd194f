import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery } from '@nestjs/swagger';
import { ApiErrorResponses, LONG_WORK_REFUSED } from '@app/core';
import { ApiFunnelIdParam, FUNNEL_NOT_FOUND } from '@app/workspaces';
import { ContactSearchResponse, SearchContactsDto } from './dto/search-contacts.dto';
import { MAX_FILTER_GROUPS, MAX_FILTERS_PER_GROUP } from './contacts-search.query';

export const SearchContactsDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Search contacts',
      description:
        `Contacts meeting any of up to ${MAX_FILTER_GROUPS} filter groups (OR), each of up to ` +
        `${MAX_FILTERS_PER_GROUP} filters that must all hold (AND), sorted like the list and paged by cursor. ` +
        'Custom properties compare by their type when they have a definition, else as text. `total` counts ' +
        'the matching contacts.',
    }),
    ApiFunnelIdParam(),
    ApiBody({ type: SearchContactsDto }),
    ApiOkResponse({ type: ContactSearchResponse, description: 'One page of matching contacts' }),
    ApiErrorResponses({
      429: LONG_WORK_REFUSED,
      400: {
        description:
          'An unknown field or operator, an operator the field does not take, a value of the wrong type',
        examples: [
          'filterGroups[0].filters[0].field: "nickname" is not a searchable field: use a Contact field (email, status, address.city, ...), createdAt, updatedAt, meta.ps_*, utmParams.utm_* or properties.<name>',
          'filterGroups[0].filters[0].operator: contains does not apply to createdAt (datetime); use one of eq, neq, lt, lte, gt, gte, in, not_in, exists, not_exists',
          'filterGroups[0].filters[0].value: createdAt takes an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
        ],
      },
      404: FUNNEL_NOT_FOUND,
    }),
  );

export const ExportContactsDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Export contacts',
      description:
        'Every contact of the funnel under the list’s filters, from one consistent snapshot, streamed as it ' +
        'is read: NDJSON (one Contact per line, as the API shows it) or CSV (a header row, dotted columns ' +
        'such as address.city, meta.ps_source, properties.plan). gzip when the request accepts it. ' +
        '`X-Export-Count` gives the number of contacts up front; a failure after the first byte cuts the ' +
        'connection before the end of the body, so a complete body is a successful export.',
    }),
    ApiFunnelIdParam(),
    ApiQuery({ name: 'format', enum: ['ndjson', 'csv'], required: false, description: 'Default ndjson' }),
    ApiProduces('application/x-ndjson', 'text/csv'),
    ApiOkResponse({
      description: 'The contacts',
      headers: {
        'X-Export-Count': {
          description: 'How many contacts the body holds',
          schema: { type: 'integer' },
        },
      },
      content: {
        'application/x-ndjson': { schema: { type: 'string' } },
        'text/csv': { schema: { type: 'string' } },
      },
    }),
    ApiErrorResponses({
      429: LONG_WORK_REFUSED,
      400: {
        description: 'An unknown format or an invalid filter',
        examples: ['format must be ndjson or csv'],
      },
      404: FUNNEL_NOT_FOUND,
    }),
  );
