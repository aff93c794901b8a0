/*
 * db — kgrade's SQLite store: schema, migrations and queries.
 *
 * What the module promises (DESIGN.md, and the service work that builds it):
 * - one database file in WAL mode, with foreign keys and a busy timeout;
 * - numbered migrations in db/migrations/, applied at start in a transaction
 *   and recorded with the schema version;
 * - prepared statements only, never SQL built from input;
 * - users, sessions, API tokens (hashes only), submissions, results,
 *   scoreboards and certificates, with nothing submitted ever lost.
 * It uses SQLite only; never HTTP or the grader.
 *
 * Nothing is declared yet: the store is not built.
 */
#ifndef KGRADE_DB_H
#define KGRADE_DB_H

#endif
