/**
 * What the domain tells the processes serving a change request's readers: something changed on it (a comment, a
 * review, its branch or status). The domain only publishes, through the port the container provides (src/events/:
 * in this process, or through Redis to every process); the event names what changed, never its content, so a
 * reader reads it again through the API, with its own permissions.
 */

export type ChangeRequestEventKind = 'comment' | 'review' | 'change-request';

export interface ChangeRequestEvent {
  spaceId: string;
  changeRequestId: string;
  kind: ChangeRequestEventKind;
  /**
   * What happened: for a comment `posted`, `edited`, `deleted`, `resolved`, `reopened`, `reacted`, `replied`,
   * `reply-edited`, `reply-deleted`; for a review `submitted`, `reviewers-requested`, `reviewer-removed`; for the
   * change request `updated`, `pushed`, `merged`, `updated-from-main`.
   */
  action: string;
  /** The comment concerned (comment events). */
  commentId?: string;
}

/** The domain's way to publish: never waits, never fails the operation that changed something. */
export interface EventPublisher {
  publish(event: ChangeRequestEvent): void;
}
