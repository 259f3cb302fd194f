import { Global, Module } from '@nestjs/common';
import { AutomationTrigger } from './automation-trigger';
import { AutomationsService } from './automations.service';

/**
 * Global so the contacts domain can inject the `AutomationTrigger` contract without importing
 * this module (and without a dependency cycle).
 */
@Global()
@Module({
  providers: [AutomationsService, { provide: AutomationTrigger, useExisting: AutomationsService }],
  exports: [AutomationsService, AutomationTrigger],
})
export class AutomationsModule {}
