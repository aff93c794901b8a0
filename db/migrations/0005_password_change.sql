-- A password its owner did not choose (the first admin's, one generated at
-- account creation, one an instructor's reset made) must be changed by its
-- owner at the next login: until then the account's credentials reach only
-- GET /api/v1/me, POST /api/v1/me/password and POST /api/v1/logout.

ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;
