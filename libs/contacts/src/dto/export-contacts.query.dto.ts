import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { EXPORT_FORMATS, type ExportFormat } from '../contacts-export.service';
import { ListContactsQueryDto } from './list-contacts.query.dto';

export class ExportContactsQueryDto extends PickType(ListContactsQueryDto, [
  'email',
  'phone',
  'status',
  'updatedAfter',
  'createdAfter',
] as const) {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'ndjson' })
  @IsOptional()
  @IsString({ message: `format must be ${EXPORT_FORMATS.join(' or ')}` })
  format: ExportFormat = 'ndjson';
}
