-- A counter that moves whenever anything a scoreboard shows may have
-- changed: a submission's newest result or its hidden flag, a user's
-- names, results themselves. The server caches rendered scoreboards under
-- it, so a read of one integer tells whether a cached one is still true;
-- the triggers bump it inside the very transaction that changes the data.

CREATE TABLE scoreboard_version (n INTEGER NOT NULL);
INSERT INTO scoreboard_version (n) VALUES (0);

CREATE TRIGGER scoreboard_results_inserted AFTER INSERT ON results
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
CREATE TRIGGER scoreboard_results_updated AFTER UPDATE ON results
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
CREATE TRIGGER scoreboard_results_deleted AFTER DELETE ON results
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
CREATE TRIGGER scoreboard_submission_shown AFTER UPDATE OF result_id, hidden, user_id, exercise
    ON submissions
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
CREATE TRIGGER scoreboard_submission_deleted AFTER DELETE ON submissions
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
CREATE TRIGGER scoreboard_user_renamed AFTER UPDATE OF name, display_name ON users
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
CREATE TRIGGER scoreboard_user_deleted AFTER DELETE ON users
BEGIN UPDATE scoreboard_version SET n = n + 1; END;
