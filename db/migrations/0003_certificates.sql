-- Certificates: one per student and course, issued when the student has
-- passed every assessment of the course at the assessment size, with the
-- submissions that earned it. The signed payload and its signature are
-- kept exactly as issued; a revoked certificate is kept too, with who
-- revoked it, when and why.

CREATE TABLE certificates (
    id             TEXT PRIMARY KEY,                -- 128 random bits, base32
    user_id        INTEGER NOT NULL REFERENCES users(id),
    course         TEXT NOT NULL,
    payload        TEXT NOT NULL,                   -- the canonical JSON signed
    signature      TEXT NOT NULL,                   -- Ed25519, base64
    issued_at      INTEGER NOT NULL,
    revoked_at     INTEGER,
    revoked_by     INTEGER REFERENCES users(id),
    revoked_reason TEXT,
    UNIQUE (user_id, course)
);

CREATE TABLE certificate_assessments (
    certificate_id TEXT NOT NULL REFERENCES certificates(id),
    exercise       TEXT NOT NULL,
    submission_id  INTEGER NOT NULL REFERENCES submissions(id),
    verdict        TEXT NOT NULL,
    ratio          REAL,
    PRIMARY KEY (certificate_id, exercise)
);
