-- Trials, and the submission that earned each certificate.
--
-- trials: a student's kernel graded at the exercise's correctness sizes
-- ("Try at small n") without being recorded. A table of its own, so that
-- no list of submissions, scoreboard, gradebook, export or certificate can
-- ever count one: none of them reads this table. A trial is kept until an
-- hour after it finished (deleted then, by the next trial's arrival or the
-- server's start), so a reload or a second tab still finds its result,
-- and its owner never races its deletion.
--
-- The queue is fair across both: queue_jobs is every submission and trial
-- as a job (kind, id, user, status, queued_at), and queue_users (migration
-- 0004), the one rule that the claim and the queue positions read, now
-- counts a user's trials with their submissions, running and waiting.
--
-- certificates.earned_by: the submission whose passing result completed
-- the course and had the certificate issued (NULL for those issued before).

CREATE TABLE trials (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    exercise    TEXT NOT NULL,
    language    TEXT NOT NULL DEFAULT 'cuda',
    source      BLOB NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done')),
    created_at  INTEGER NOT NULL,
    queued_at   INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER,
    worker      TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    verdict     TEXT,
    result_json TEXT
);
CREATE INDEX trials_by_status_user ON trials(status, user_id, queued_at, id);

CREATE VIEW queue_jobs AS
SELECT 'submission' AS kind, id, user_id, status, queued_at FROM submissions
UNION ALL
SELECT 'trial' AS kind, id, user_id, status, queued_at FROM trials;

DROP VIEW queue_users;
CREATE VIEW queue_users AS
SELECT user_id, waiting,
       row_number() OVER (ORDER BY running, served, first_queued_at, user_id) AS turn
FROM (SELECT q.user_id AS user_id, count(*) AS waiting, min(q.queued_at) AS first_queued_at,
             (SELECT count(*) FROM queue_jobs r
              WHERE r.status = 'running' AND r.user_id = q.user_id) AS running,
             max(t.turn) AS served
      FROM queue_jobs q LEFT JOIN queue_turns t ON t.user_id = q.user_id
      WHERE q.status = 'queued'
      GROUP BY q.user_id);

ALTER TABLE certificates ADD COLUMN earned_by INTEGER REFERENCES submissions(id);
