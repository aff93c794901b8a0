-- A submission's language: 'cuda' (CUDA C++, every submission before
-- Numba) or 'numba' (Numba CUDA Python). The API checks the name; a
-- regrade keeps it, since it is the submission's, not its result's.

ALTER TABLE submissions ADD COLUMN language TEXT NOT NULL DEFAULT 'cuda';
