import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Response } from 'express';

/**
 * An error of the token or registration endpoint in the shape OAuth clients parse (RFC 6749 §5.2,
 * RFC 7591 §3.2.2): `{"error": "<code>", "error_description": "..."}`, never cached.
 */
export class OAuthProtocolError extends HttpException {
  constructor(
    readonly code: string,
    readonly description: string,
    status = 400,
  ) {
    super({ error: code, error_description: description }, status);
  }
}

@Catch(OAuthProtocolError)
export class OAuthProtocolErrorFilter implements ExceptionFilter {
  catch(exception: OAuthProtocolError, host: ArgumentsHost): void {
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(exception.getStatus())
      .setHeader('Cache-Control', 'no-store')
      .json(exception.getResponse());
  }
}
