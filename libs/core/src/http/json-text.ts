import { Header } from '@nestjs/common';

/**
 * For a handler that answers JSON it already holds as text (kept serialised in memory): sent as
 * it is, with the Content-Type Express's res.json gives the other answers.
 */
export const AnswersJsonText = () => Header('Content-Type', 'application/json; charset=utf-8');
