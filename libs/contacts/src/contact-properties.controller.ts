import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import {
  CreatePropertyDocs,
  DeletePropertyDocs,
  GetPropertyDocs,
  ListPropertiesDocs,
  UpdatePropertyDocs,
} from './contact-properties.docs';
import { ContactPropertiesService } from './contact-properties.service';
import { PropertyDefinitionListResponse, PropertyDefinitionResponse } from './dto/contact-property.dto';

// Bodies are checked by the service (its messages are the API's), so they are taken as sent.
@ApiTags('Contact properties')
@Controller({ path: 'funnels/:funnelId/properties', version: '1' })
export class ContactPropertiesController {
  constructor(private readonly properties: ContactPropertiesService) {}

  @Get()
  @RequirePermissions('crm:read')
  @ListPropertiesDocs()
  async list(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
  ): Promise<PropertyDefinitionListResponse> {
    return { data: await this.properties.list(companyId, funnelId) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermissions('crm:write')
  @CreatePropertyDocs()
  async create(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PropertyDefinitionResponse> {
    const definition = await this.properties.create(companyId, funnelId, body);
    res.setHeader('Location', `/v1/funnels/${funnelId}/properties/${encodeURIComponent(definition.name)}`);
    return { data: definition };
  }

  @Get(':name')
  @RequirePermissions('crm:read')
  @GetPropertyDocs()
  async get(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('name') name: string,
  ): Promise<PropertyDefinitionResponse> {
    return { data: await this.properties.get(companyId, funnelId, name) };
  }

  @Patch(':name')
  @RequirePermissions('crm:write')
  @UpdatePropertyDocs()
  async update(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('name') name: string,
    @Body() body: unknown,
  ): Promise<PropertyDefinitionResponse> {
    return { data: await this.properties.update(companyId, funnelId, name, body) };
  }

  @Delete(':name')
  @HttpCode(204)
  @RequirePermissions('crm:write')
  @DeletePropertyDocs()
  async remove(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('name') name: string,
  ): Promise<void> {
    await this.properties.remove(companyId, funnelId, name);
  }
}
