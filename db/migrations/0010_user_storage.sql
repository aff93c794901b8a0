-- What each user's submissions hold in the database, so that one user
-- cannot fill the server's disk: the bytes of their sources and of every
-- result of them (a regrade adds one). The server refuses a submission
-- that would take a user past their budget (413 storage_full); it reads
-- one row here, kept by the triggers below in the very transaction that
-- adds or removes a source or a result. Trials are not counted: one at a
-- time per user, deleted an hour after they finish. A result counts at
-- most 16384 bytes (SERVICE_RESULT_STORED_MAX, what the server stores of
-- one now), so results stored whole before this migration do not put
-- their students over budget at once.

CREATE TABLE user_storage (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    bytes   INTEGER NOT NULL                         -- sources and results, in bytes
);

INSERT INTO user_storage (user_id, bytes)
SELECT user_id, sum(bytes) FROM (
    SELECT user_id, length(CAST(source AS BLOB)) AS bytes FROM submissions
    UNION ALL
    SELECT s.user_id, min(length(CAST(r.result_json AS BLOB)), 16384)
    FROM results r JOIN submissions s ON s.id = r.submission_id)
GROUP BY user_id;

CREATE TRIGGER storage_submission_inserted AFTER INSERT ON submissions
BEGIN
    INSERT INTO user_storage (user_id, bytes) VALUES (new.user_id, length(CAST(new.source AS BLOB)))
    ON CONFLICT (user_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;
CREATE TRIGGER storage_submission_deleted AFTER DELETE ON submissions
BEGIN
    UPDATE user_storage SET bytes = bytes - length(CAST(old.source AS BLOB))
    WHERE user_id = old.user_id;
END;
CREATE TRIGGER storage_result_inserted AFTER INSERT ON results
BEGIN
    UPDATE user_storage SET bytes = bytes + min(length(CAST(new.result_json AS BLOB)), 16384)
    WHERE user_id = (SELECT user_id FROM submissions WHERE id = new.submission_id);
END;
CREATE TRIGGER storage_result_deleted AFTER DELETE ON results
BEGIN
    UPDATE user_storage SET bytes = bytes - min(length(CAST(old.result_json AS BLOB)), 16384)
    WHERE user_id = (SELECT user_id FROM submissions WHERE id = old.submission_id);
END;
