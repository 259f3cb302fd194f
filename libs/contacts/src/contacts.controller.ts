import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { AnswersJsonText } from '@app/core';
import {
  BatchContactsDocs,
  CreateContactDocs,
  EraseContactDocs,
  GetContactDocs,
  ListContactsDocs,
  PatchContactDocs,
  UpdateContactValueDocs,
} from './contacts.docs';
import { ContactsService } from './contacts.service';
import { BatchContactsResponse } from './dto/batch-contacts.dto';
import { ContactResponse, ContactValuesResponse } from './dto/contact.dto';
import { CreateContactDto } from './dto/create-contact.dto';
import { ListContactsQueryDto } from './dto/list-contacts.query.dto';
import { UpdateContactValueDto } from './dto/update-contact-value.dto';

@ApiTags('Contacts')
@Controller({ path: 'funnels/:funnelId/contacts', version: '1' })
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  // The reads answer the JSON text of a ContactListResponse and a ContactResponse.
  @Get()
  @RequirePermissions('crm:read')
  @ListContactsDocs()
  @AnswersJsonText()
  list(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Query() query: ListContactsQueryDto,
  ): Promise<string> {
    return this.contacts.listJson(companyId, funnelId, query);
  }

  @Post()
  @HttpCode(201)
  @RequirePermissions('crm:write')
  @CreateContactDocs()
  async create(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: CreateContactDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContactResponse> {
    const { contact, replayed } = await this.contacts.create(companyId, funnelId, body, { idempotencyKey });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.setHeader('Location', `/v1/funnels/${funnelId}/contacts/${contact.id}`);
    return { data: contact };
  }

  // The items are checked one by one by the service (a bad item does not refuse the others), so
  // the body is taken as sent.
  @Post('batch')
  @HttpCode(200)
  @RequirePermissions('crm:write')
  @BatchContactsDocs()
  async batch(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BatchContactsResponse> {
    const {
      status,
      body: answer,
      replayed,
    } = await this.contacts.batch(companyId, funnelId, body, {
      idempotencyKey,
    });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(status);
    return answer;
  }

  @Get(':contactId')
  @RequirePermissions('crm:read')
  @GetContactDocs()
  @AnswersJsonText()
  get(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
  ): Promise<string> {
    return this.contacts.getJson(companyId, funnelId, contactId);
  }

  @Put(':contactId/values')
  @RequirePermissions('crm:write')
  @UpdateContactValueDocs()
  async updateValue(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
    @Body() body: UpdateContactValueDto,
  ): Promise<ContactValuesResponse> {
    return { data: await this.contacts.updateValue(companyId, funnelId, contactId, body) };
  }

  // Checked by the service, which takes `null` (clear a field, remove a property) where a DTO would not.
  @Patch(':contactId')
  @RequirePermissions('crm:write')
  @PatchContactDocs()
  async patch(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
    @Body() body: unknown,
  ): Promise<ContactResponse> {
    return { data: await this.contacts.patch(companyId, funnelId, contactId, body) };
  }

  @Delete(':contactId')
  @HttpCode(204)
  @RequirePermissions('crm:write')
  @EraseContactDocs()
  async erase(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
  ): Promise<void> {
    await this.contacts.erase(companyId, funnelId, contactId);
  }
}
