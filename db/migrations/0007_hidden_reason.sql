-- Why a submission is hidden from the scoreboards, by whom and when: the
-- instructor gives a reason, which the submission's owner and instructors
-- read (never other students, who cannot see the submission at all).
-- Showing it again clears the three. NULL for submissions hidden before.

ALTER TABLE submissions ADD COLUMN hidden_reason TEXT;
ALTER TABLE submissions ADD COLUMN hidden_by INTEGER REFERENCES users(id);
ALTER TABLE submissions ADD COLUMN hidden_at INTEGER;
