/**
 * The "Was this page helpful?" form under a published page (a Quire extension; the route that takes it is
 * feedback.ts). A plain form, so it works without JavaScript (the pages' CSP allows `form-action 'self'`): the reader
 * may write a comment, then presses one of three buttons, which sends the form with that button's `rating`. The answer
 * leads back to the page at FEEDBACK_THANKS_ID, which CSS (`:target`) shows. A static export has no server to send it
 * to: its pages leave the form out (no action, no form).
 */
import { escapeHtml } from '../../../content/html-text.js';
import { PAGE_FEEDBACK_COMMENT_MAX } from '../../../domain/sites/page-feedback.js';

/** Where a site takes feedback, below the site's base. */
export const FEEDBACK_PATH = '~quire/feedback';

/** The anchor of the page a form's answer leads back to, where the thanks show. */
export const FEEDBACK_THANKS_ID = 'feedback-thanks';

/** The form's action on a site served at `siteHref` (the layout's `siteHref`). */
export function feedbackAction(siteHref: string): string {
  return `${siteHref}/${FEEDBACK_PATH}`;
}

const BUTTONS = [
  { rating: 'good', emoji: '👍', label: 'Yes' },
  { rating: 'ok', emoji: '😐', label: 'Partly' },
  { rating: 'bad', emoji: '👎', label: 'No' },
] as const;

/**
 * The form for the page `pageId`, sent to `action` (feedbackAction); '' without an action (a static export). The
 * comment comes before the buttons: pressing one sends the form.
 */
export function feedbackHtml(pageId: string, action: string | undefined): string {
  if (action === undefined) return '';
  const buttons = BUTTONS.map(
    (button) => `<button type="submit" name="rating" value="${button.rating}"><span aria-hidden="true">${button.emoji}</span> ${button.label}</button>`,
  ).join('');
  return (
    `<form class="page-feedback" method="post" action="${escapeHtml(action)}"><fieldset><legend>Was this page helpful?</legend>` +
    `<input type="hidden" name="pageId" value="${escapeHtml(pageId)}">` +
    `<label for="page-feedback-comment">Comment (optional, sent with your answer)</label>` +
    `<textarea id="page-feedback-comment" name="comment" rows="2" maxlength="${PAGE_FEEDBACK_COMMENT_MAX}"></textarea>` +
    `<div class="page-feedback-ratings">${buttons}</div></fieldset>` +
    `<p id="${FEEDBACK_THANKS_ID}" class="page-feedback-thanks" role="status">Thank you for your feedback.</p></form>`
  );
}
