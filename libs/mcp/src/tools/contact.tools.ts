import type { ContactsService } from '@app/contacts';
import { registerContactReadTools } from './contact-read.tools';
import { registerContactWriteTools } from './contact-write.tools';
import type { ToolContext } from './tool-context';

export { registerContactSearchTool } from './contact-search.tool';

/** The contact tools over ContactsService, in the order a host lists them. */
export function registerContactTools(context: ToolContext, contacts: ContactsService): void {
  registerContactReadTools(context, contacts);
  registerContactWriteTools(context, contacts);
}
