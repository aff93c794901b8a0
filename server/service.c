/*
 * The service's shared state: one database connection per thread (SQLite
 * connections are not shared between threads), and the queue's wake-up.
 */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>

static pthread_key_t db_key;
static pthread_once_t db_key_once = PTHREAD_ONCE_INIT;

static void close_thread_db(void *db)
{
    db_close(db);
}

static void make_db_key(void)
{
    pthread_key_create(&db_key, close_thread_db);
}

struct db *service_db(struct service *service)
{
    pthread_once(&db_key_once, make_db_key);
    struct db *db = pthread_getspecific(db_key);
    if (db)
        return db;
    char error[512];
    db = db_open(service->config.db_path, error, sizeof error);
    if (!db)
        fprintf(stderr, "kgrade serve: %s\n", error);
    pthread_setspecific(db_key, db);
    return db;
}

void service_db_close(void)
{
    pthread_once(&db_key_once, make_db_key);
    db_close(pthread_getspecific(db_key));
    pthread_setspecific(db_key, NULL);
}

void service_wake_workers(struct service *service)
{
    pthread_mutex_lock(&service->queue_lock);
    pthread_cond_signal(&service->queue_ready);
    pthread_mutex_unlock(&service->queue_lock);
}
