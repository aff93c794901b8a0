/*
 * Internal to server/: the service's configuration file (the data
 * folder's config.json), read over the defaults.
 */
#ifndef KGRADE_SERVER_SERVICE_CONFIG_H
#define KGRADE_SERVER_SERVICE_CONFIG_H

#include "service.h"

/* Applies <config->data>/config.json when there is one. False with a
 * sentence naming the file, the key and what is wrong. */
bool service_config_load(struct service_config *config, char *error, size_t size);

#endif
