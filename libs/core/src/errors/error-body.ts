/** The body of every REST error (product decisions §3). */
export interface ErrorBody {
  error: string;
  status: number;
  details?: string[];
  retryAfter?: number;
}
