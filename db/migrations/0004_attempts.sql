-- Gradings tried again once, and a queue fair between users.
--
-- attempts: how many times a worker has taken the submission since it was
-- queued by its student or by a regrade. A grading that the death of its
-- worker or of the server interrupted is tried again once; the second
-- interruption is final (internal_error), so a job that kills the server
-- every time is not retried for ever.
--
-- queue_turns: per user, the number of the claim that last served them (a
-- counter, not a time: two claims in one millisecond stay ordered). The
-- queue serves the user with the fewest running jobs, then the one served
-- least recently (never served first), then the one waiting longest, and
-- takes that user's oldest queued submission: round-robin between users,
-- so one student's many submissions delay another's by one job at most.

ALTER TABLE submissions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;

CREATE TABLE queue_turns (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    turn    INTEGER NOT NULL UNIQUE                  -- the claim's number
);

CREATE INDEX submissions_by_status_user ON submissions(status, user_id, queued_at, id);

-- The users with queued submissions, `waiting` each, in the order the
-- queue serves them (`turn` 1 is next): the one rule that both the claim
-- and the queue positions read.
CREATE VIEW queue_users AS
SELECT user_id, waiting,
       row_number() OVER (ORDER BY running, served, first_queued_at, user_id) AS turn
FROM (SELECT q.user_id AS user_id, count(*) AS waiting, min(q.queued_at) AS first_queued_at,
             (SELECT count(*) FROM submissions r
              WHERE r.status = 'running' AND r.user_id = q.user_id) AS running,
             max(t.turn) AS served
      FROM submissions q LEFT JOIN queue_turns t ON t.user_id = q.user_id
      WHERE q.status = 'queued'
      GROUP BY q.user_id);
