import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import type { Response } from 'express';
import { REDIRECT_URIS_ERROR } from './oauth-documents';

/** The registration 400: the spec fixes its body, so it bypasses the usual `{error, status}` shape. */
export class ClientRegistrationError extends HttpException {
  constructor() {
    super({ error: REDIRECT_URIS_ERROR }, HttpStatus.BAD_REQUEST);
  }
}

@Catch(ClientRegistrationError)
export class ClientRegistrationErrorFilter implements ExceptionFilter {
  catch(exception: ClientRegistrationError, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<Response>().status(exception.getStatus()).json(exception.getResponse());
  }
}
