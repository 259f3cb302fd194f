import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc, LONG_WORK_REFUSED } from '@app/core';
import { ApiFunnelIdParam, FUNNEL_NOT_FOUND } from '@app/workspaces';
import {
  CreatePropertyDefinitionDto,
  PropertyDefinitionListResponse,
  PropertyDefinitionResponse,
  UpdatePropertyDefinitionDto,
} from './dto/contact-property.dto';

const ApiPropertyNameParam = () =>
  ApiParam({ name: 'name', description: 'The property name; without a definition: 404', example: 'plan' });

const PROPERTY_NOT_FOUND: ErrorResponseDoc = {
  description: 'The funnel does not exist or belongs to another company, or the property has no definition',
  examples: ['Funnel not found', 'Property not found'],
};
const BAD_DEFINITION = [
  'type must be one of: string, number, boolean, date, enum',
  'options are required for an enum property',
  'email is a standard field, not a custom property',
  'ps_source is a reserved system field',
];
const MISFITS: ErrorResponseDoc = {
  description:
    'Values already stored do not fit the definition (the body says how many: `misfits`, and why: `details`); ' +
    'for a creation, also a property that is already defined',
  examples: ['3 existing values of plan do not fit the definition', 'property plan is already defined'],
};

export const ListPropertiesDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'List property definitions',
      description: 'The funnel’s typed custom properties, by name.',
    }),
    ApiFunnelIdParam(),
    ApiOkResponse({ type: PropertyDefinitionListResponse }),
    ApiErrorResponses({
      400: { description: 'funnelId is not a UUID', examples: ['funnelId must be a UUID'] },
      404: FUNNEL_NOT_FOUND,
    }),
  );

export const GetPropertyDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'Get a property definition' }),
    ApiFunnelIdParam(),
    ApiPropertyNameParam(),
    ApiOkResponse({ type: PropertyDefinitionResponse }),
    ApiErrorResponses({
      400: { description: 'funnelId is not a UUID', examples: ['funnelId must be a UUID'] },
      404: PROPERTY_NOT_FOUND,
    }),
  );

export const CreatePropertyDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Define a custom property',
      description:
        'Gives a custom property a type (and optionally uniqueness). From then on every write of its value (PUT ' +
        '…/values, PATCH, batch, MCP) is checked against it (400 naming the property) and stored as the type; a ' +
        'unique property refuses a second contact with the same value (409) and can key a batch upsert. Values ' +
        'already stored are checked first: if any does not fit, nothing changes (409 with their count); the others ' +
        'are stored as the type ("42" becomes 42).',
    }),
    ApiFunnelIdParam(),
    ApiBody({ type: CreatePropertyDefinitionDto }),
    ApiCreatedResponse({ type: PropertyDefinitionResponse }),
    ApiErrorResponses({
      429: LONG_WORK_REFUSED,
      400: {
        description: 'An invalid definition or funnelId',
        examples: ['name is required', ...BAD_DEFINITION],
      },
      404: FUNNEL_NOT_FOUND,
      409: MISFITS,
    }),
  );

export const UpdatePropertyDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Change a property definition',
      description:
        'Changes the given members (the name stays). A new type, options or uniqueness is checked against the ' +
        'stored values first, as on creation.',
    }),
    ApiFunnelIdParam(),
    ApiPropertyNameParam(),
    ApiBody({ type: UpdatePropertyDefinitionDto }),
    ApiOkResponse({ type: PropertyDefinitionResponse }),
    ApiErrorResponses({
      429: LONG_WORK_REFUSED,
      400: {
        description: 'An invalid change or funnelId',
        examples: ['name cannot be changed', ...BAD_DEFINITION],
      },
      404: PROPERTY_NOT_FOUND,
      409: MISFITS,
    }),
  );

export const DeletePropertyDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Remove a property definition',
      description: 'The values stay on the contacts, as untyped properties (no longer unique).',
    }),
    ApiFunnelIdParam(),
    ApiPropertyNameParam(),
    ApiNoContentResponse({ description: 'Removed' }),
    ApiErrorResponses({
      400: { description: 'funnelId is not a UUID', examples: ['funnelId must be a UUID'] },
      404: PROPERTY_NOT_FOUND,
    }),
  );
