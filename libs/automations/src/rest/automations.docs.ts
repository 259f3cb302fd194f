import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import { ApiFunnelIdParam, FUNNEL_NOT_FOUND } from '@app/workspaces';
import {
  AutomationListResponse,
  AutomationResponse,
  CreateAutomationDto,
  UpdateAutomationDto,
} from './automation.dto';

const ApiAutomationIdParam = () =>
  ApiParam({ name: 'automationId', format: 'uuid', description: 'The automation id' });

const AUTOMATION_NOT_FOUND: ErrorResponseDoc = {
  description: 'The funnel or automation does not exist, or belongs to another funnel or company',
  examples: ['Funnel not found', 'Automation not found'],
};
const NOT_A_MESSAGE_AUTOMATION =
  'only message automations are managed here; webhooks through /v1/funnels/{funnelId}/webhooks or the admin CLI';

export const ListAutomationsDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: "List the funnel's automations",
      description: 'Oldest first; never a webhook secret.',
    }),
    ApiFunnelIdParam(),
    ApiOkResponse({ type: AutomationListResponse }),
    ApiErrorResponses({
      // Every text the API reads must be storable: a funnel id holding a NUL byte is refused first.
      400: { description: 'The funnel id holds a character no text may (a NUL byte)' },
      404: FUNNEL_NOT_FOUND,
    }),
  );

export const CreateAutomationDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Create a message automation',
      description:
        'On a contact change, send an email (or record an SMS) rendered from the template. The checks are ' +
        'the admin CLI’s `automation create` (their messages name its options: `--subject`, `--template`, …). ' +
        'In production without SMTP_URL an email automation is refused.',
    }),
    ApiFunnelIdParam(),
    ApiBody({ type: CreateAutomationDto }),
    ApiCreatedResponse({
      type: AutomationResponse,
      headers: { Location: { description: 'The automation’s address', schema: { type: 'string' } } },
    }),
    ApiErrorResponses({
      400: {
        description: 'The automation is not valid',
        examples: ['unknown contact field in template: {{firstname}}', '--message must be email or sms'],
      },
      404: FUNNEL_NOT_FOUND,
    }),
  );

export const UpdateAutomationDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Enable or disable a message automation',
      description: 'A disabled automation records no runs; runs already pending still deliver.',
    }),
    ApiFunnelIdParam(),
    ApiAutomationIdParam(),
    ApiBody({ type: UpdateAutomationDto }),
    ApiOkResponse({ type: AutomationResponse }),
    ApiErrorResponses({
      400: {
        description: 'enabled is not a boolean, or the automation is a webhook',
        examples: ['enabled must be true or false', NOT_A_MESSAGE_AUTOMATION],
      },
      404: AUTOMATION_NOT_FOUND,
    }),
  );

export const DeleteAutomationDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Delete a message automation',
      description: 'With its runs, pending ones included.',
    }),
    ApiFunnelIdParam(),
    ApiAutomationIdParam(),
    ApiNoContentResponse({ description: 'Deleted' }),
    ApiErrorResponses({
      400: { description: 'The automation is a webhook', examples: [NOT_A_MESSAGE_AUTOMATION] },
      404: AUTOMATION_NOT_FOUND,
    }),
  );
