-- The first schema: accounts, sessions, API tokens, submissions and their
-- results, the audit log. Times are Unix milliseconds.

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,              -- the login name
    display_name  TEXT NOT NULL,                     -- what scoreboards show
    role          TEXT NOT NULL CHECK (role IN ('student', 'instructor', 'admin')),
    password_hash TEXT,                              -- crypto_pwhash_str; NULL: no password
    created_at    INTEGER NOT NULL
);

CREATE TABLE sessions (
    id         INTEGER PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,                 -- BLAKE2b of the cookie's value
    csrf       TEXT NOT NULL,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   BLOB NOT NULL UNIQUE,               -- BLAKE2b of the token
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);

CREATE TABLE submissions (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id),
    exercise        TEXT NOT NULL,
    source          BLOB NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done')),
    idempotency_key TEXT,
    created_at      INTEGER NOT NULL,
    queued_at       INTEGER NOT NULL,                -- moves on a regrade
    started_at      INTEGER,
    finished_at     INTEGER,
    worker          TEXT,
    hidden          INTEGER NOT NULL DEFAULT 0,
    result_id       INTEGER REFERENCES results(id),  -- the newest result
    UNIQUE (user_id, idempotency_key)
);
CREATE INDEX submissions_by_status ON submissions(status, queued_at, id);
CREATE INDEX submissions_by_user ON submissions(user_id, exercise, id);

CREATE TABLE results (
    id               INTEGER PRIMARY KEY,
    submission_id    INTEGER NOT NULL REFERENCES submissions(id),
    verdict          TEXT NOT NULL,
    result_json      TEXT NOT NULL,
    student_ms       REAL,
    ratio            REAL,
    assessment       INTEGER NOT NULL,
    exercise_version TEXT NOT NULL,
    created_at       INTEGER NOT NULL
);
CREATE INDEX results_by_submission ON results(submission_id, id);

CREATE TABLE audit_log (
    id       INTEGER PRIMARY KEY,
    actor_id INTEGER REFERENCES users(id),
    action   TEXT NOT NULL,
    target   TEXT NOT NULL,
    detail   TEXT,
    at       INTEGER NOT NULL
);
