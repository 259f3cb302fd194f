import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { AutomationsService } from '../automations.service';
import {
  AutomationListResponse,
  AutomationResponse,
  CreateAutomationDto,
  UpdateAutomationDto,
} from './automation.dto';
import {
  CreateAutomationDocs,
  DeleteAutomationDocs,
  ListAutomationsDocs,
  UpdateAutomationDocs,
} from './automations.docs';

/** Message automations managed by an integration, with the checks of the admin CLI. */
@ApiTags('Automations')
@Controller({ path: 'funnels/:funnelId/automations', version: '1' })
export class AutomationsController {
  constructor(private readonly automations: AutomationsService) {}

  @Get()
  @RequirePermissions('crm:write')
  @ListAutomationsDocs()
  async list(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
  ): Promise<AutomationListResponse> {
    return { data: await this.automations.list(funnelId, companyId) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermissions('crm:write')
  @CreateAutomationDocs()
  async create(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: CreateAutomationDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AutomationResponse> {
    const { on, message, subject, template, name, tracking } = body ?? ({} as CreateAutomationDto);
    const { id } = await this.automations.create(
      { funnelId, on, message: message ?? '', subject, template, name, tracking },
      companyId,
    );
    res.setHeader('Location', `/v1/funnels/${funnelId}/automations/${id}`);
    return { data: await this.automations.get(id, { companyId, funnelId }) };
  }

  @Patch(':automationId')
  @RequirePermissions('crm:write')
  @UpdateAutomationDocs()
  async update(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('automationId') automationId: string,
    @Body() body: UpdateAutomationDto,
  ): Promise<AutomationResponse> {
    return {
      data: await this.automations.setEnabled(automationId, body?.enabled, { companyId, funnelId }),
    };
  }

  @Delete(':automationId')
  @HttpCode(204)
  @RequirePermissions('crm:write')
  @DeleteAutomationDocs()
  async delete(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('automationId') automationId: string,
  ): Promise<void> {
    await this.automations.delete(automationId, { companyId, funnelId });
  }
}
