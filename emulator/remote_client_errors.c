/*
 * The remote driver's client: cuGetErrorName and cuGetErrorString, asked
 * of the server (whose driver has the table) and kept: cuda.h promises
 * strings that live as long as the process.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "remote_client.h"

/* CUresult codes are below CUDA_ERROR_UNKNOWN (999). */
#define ERRORS_MAX 1024

static struct {
    pthread_mutex_t lock;
    char *texts[2][ERRORS_MAX]; /* [0]: names, [1]: descriptions */
} errors = {.lock = PTHREAD_MUTEX_INITIALIZER};

static CUresult error_text(CUresult error, enum remote_op op, const char **pStr)
{
    if (pStr == NULL || (unsigned)error >= ERRORS_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    char **kept = &errors.texts[op == REMOTE_GET_ERROR_STRING][error];
    pthread_mutex_lock(&errors.lock);
    CUresult rc = CUDA_SUCCESS;
    if (*kept == NULL) {
        char text[REMOTE_STRING_MAX] = "";
        struct remote_message req = client_request(op), reply;
        req.arg[0] = (uint64_t)error;
        struct client_transfer t = {.reply_data = text, .reply_capacity = sizeof text - 1};
        rc = client_call(&req, &t, &reply);
        if (rc == CUDA_SUCCESS && (*kept = strdup(text)) == NULL)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pStr = rc == CUDA_SUCCESS ? *kept : NULL;
    pthread_mutex_unlock(&errors.lock);
    return rc;
}

CLIENT_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    return error_text(error, REMOTE_GET_ERROR_NAME, pStr);
}

CLIENT_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    return error_text(error, REMOTE_GET_ERROR_STRING, pStr);
}
