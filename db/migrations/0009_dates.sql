-- Opening times, deadlines and extensions; lateness computed when read.
--
-- file_dates: what the course and exercise files say (their "opens" and
-- "deadline", Unix ms, NULL where a file has none), one row per loadable
-- course and exercise, rewritten by the server whenever the files change.
-- date_overrides: an instructor's dates for a course or an exercise,
-- stored; while one is there it wins over the file, whatever the file
-- later says (both of its dates: NULL means "none at this level"), until
-- the instructor clears it. extensions: a later deadline for one student,
-- on one exercise or on every exercise of a course.
--
-- An exercise's dates are its own (override, else file), each missing one
-- taken from its course's. A submission is late when it was created after
-- its student's deadline: the exercise's, pushed later by the student's
-- extensions. Nothing about lateness is stored: a moved deadline or a new
-- extension changes it for past submissions too. The views below are the
-- one definition every query that counts reads (submission_lateness.late,
-- counted_best, exercise_standing).

CREATE TABLE file_dates (
    scope    TEXT NOT NULL CHECK (scope IN ('course', 'exercise')),
    name     TEXT NOT NULL,
    course   TEXT,                                   -- an exercise's course
    opens    INTEGER,
    deadline INTEGER,
    PRIMARY KEY (scope, name)
);

CREATE TABLE date_overrides (
    scope    TEXT NOT NULL CHECK (scope IN ('course', 'exercise')),
    name     TEXT NOT NULL,
    opens    INTEGER,
    deadline INTEGER,
    set_by   INTEGER REFERENCES users(id),
    set_at   INTEGER NOT NULL,
    PRIMARY KEY (scope, name)
);

CREATE TABLE extensions (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    scope      TEXT NOT NULL CHECK (scope IN ('course', 'exercise')),
    name       TEXT NOT NULL,
    deadline   INTEGER NOT NULL,
    granted_by INTEGER REFERENCES users(id),
    granted_at INTEGER NOT NULL,
    UNIQUE (user_id, scope, name)
);

-- Each course's and exercise's dates at its own level.
CREATE VIEW level_dates AS
SELECT f.scope, f.name, f.course,
       CASE WHEN o.name IS NULL THEN f.opens ELSE o.opens END AS opens,
       CASE WHEN o.name IS NULL THEN f.deadline ELSE o.deadline END AS deadline,
       o.name IS NOT NULL AS overridden
FROM file_dates f LEFT JOIN date_overrides o ON o.scope = f.scope AND o.name = f.name;

-- Each exercise's effective dates: its own, each missing one its course's.
CREATE VIEW exercise_dates AS
SELECT e.name AS exercise, e.course, coalesce(e.opens, c.opens) AS opens,
       coalesce(e.deadline, c.deadline) AS deadline
FROM level_dates e LEFT JOIN level_dates c ON c.scope = 'course' AND c.name = e.course
WHERE e.scope = 'exercise';

-- Each submission's deadline for its student and whether it came late
-- (0 or 1): "counted" is late = 0.
CREATE VIEW submission_lateness AS
SELECT id AS submission_id, deadline, coalesce(created_at > deadline, 0) AS late
FROM (SELECT s.id, s.created_at,
             CASE WHEN d.deadline IS NULL THEN NULL
                  ELSE max(d.deadline, coalesce((SELECT max(x.deadline) FROM extensions x
                                                 WHERE x.user_id = s.user_id
                                                   AND ((x.scope = 'exercise' AND x.name = s.exercise)
                                                        OR (x.scope = 'course' AND x.name = d.course))),
                                                d.deadline)) END AS deadline
      FROM submissions s LEFT JOIN exercise_dates d ON d.exercise = s.exercise);

-- Each user's best counted result of each exercise: passed at the
-- assessment size, not late; the lowest ratio, then the first.
CREATE VIEW counted_best AS
SELECT user_id, exercise, submission_id, ratio, created_at
FROM (SELECT s.user_id, s.exercise, s.id AS submission_id, r.ratio, s.created_at,
             row_number() OVER (PARTITION BY s.user_id, s.exercise ORDER BY r.ratio, s.id) AS n
      FROM submissions s JOIN results r ON r.id = s.result_id
      JOIN submission_lateness l ON l.submission_id = s.id
      WHERE r.verdict = 'passed' AND r.assessment = 1 AND l.late = 0)
WHERE n = 1;

-- Each user's standing on each exercise they tried: how many submissions
-- and graded, the best counted one, the first and newest, and late_mark:
-- only late attempts, or a late pass better than the best counted one.
CREATE VIEW exercise_standing AS
SELECT s.user_id, s.exercise, count(*) AS submissions, count(r.id) AS graded,
       b.submission_id AS best_submission, b.ratio AS best_ratio, b.created_at AS best_at,
       min(s.created_at) AS first_at, max(s.id) AS newest_submission,
       coalesce(max(l.late) = 1 AND (min(l.late) = 1 OR
                coalesce(min(CASE WHEN l.late = 1 AND r.verdict = 'passed' AND r.assessment = 1
                                  THEN r.ratio END) < coalesce(b.ratio, 1e308), 0)), 0) AS late_mark
FROM submissions s JOIN submission_lateness l ON l.submission_id = s.id
LEFT JOIN results r ON r.id = s.result_id
LEFT JOIN counted_best b ON b.user_id = s.user_id AND b.exercise = s.exercise
GROUP BY s.user_id, s.exercise;
