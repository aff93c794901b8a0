/*
 * Internal to db/: the migrations embedded in the binary
 * (db/embed-migrations.sh writes their definition from db/migrations).
 */
#ifndef KGRADE_DB_MIGRATIONS_H
#define KGRADE_DB_MIGRATIONS_H

struct db_migration {
    int version;      /* NNNN of NNNN_what.sql */
    const char *name; /* NNNN_what */
    const char *sql;
};

extern const struct db_migration db_migrations[];
extern const int db_n_migrations;

#endif
