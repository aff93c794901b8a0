/*
 * JIT options: the log buffers a caller hands cuModuleLoadDataEx and the
 * cuLink* calls (CU_JIT_INFO_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER and their
 * _SIZE_BYTES), the only options that mean something to a driver without
 * a compiler; the others are accepted and ignored.
 *
 * A log is written in place, never past the size the caller gave (the
 * terminator included), and the size option's value becomes the bytes
 * used, terminator included (0 for an empty log), as cuda.h's CUjit_option
 * says. Messages accumulate, one a line, as a link's logs do.
 */
#include <string.h>

#include "driver.h"

static void jit_log_start(struct driver_jit_log *log, char *buffer, void **size_value)
{
    log->buffer = buffer;
    log->size_value = size_value;
    log->capacity = size_value != NULL ? (size_t)(uintptr_t)*size_value : 0;
    log->length = 0;
    if (log->buffer == NULL || log->capacity == 0)
        return;
    log->buffer[0] = '\0';
    *log->size_value = 0;
}

CUresult driver_jit_options(unsigned n, CUjit_option *options, void **values,
                            struct driver_jit_logs *logs)
{
    memset(logs, 0, sizeof *logs);
    if (n > 0 && (options == NULL || values == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    char *error_buffer = NULL, *info_buffer = NULL;
    void **error_size = NULL, **info_size = NULL;
    for (unsigned i = 0; i < n; i++) {
        if ((unsigned)options[i] >= CU_JIT_NUM_OPTIONS)
            return CUDA_ERROR_INVALID_VALUE;
        if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
            error_buffer = values[i];
        else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            error_size = &values[i];
        else if (options[i] == CU_JIT_INFO_LOG_BUFFER)
            info_buffer = values[i];
        else if (options[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
            info_size = &values[i];
    }
    jit_log_start(&logs->error, error_buffer, error_size);
    jit_log_start(&logs->info, info_buffer, info_size);
    return CUDA_SUCCESS;
}

void driver_jit_log_append(struct driver_jit_log *log, const char *text)
{
    if (log->buffer == NULL || log->capacity == 0 || text[0] == '\0')
        return;
    size_t room = log->capacity - 1 - log->length; /* the terminator's byte kept */
    if (log->length > 0 && room > 0) {
        log->buffer[log->length++] = '\n';
        room--;
    }
    size_t n = strlen(text);
    n = n < room ? n : room;
    memcpy(log->buffer + log->length, text, n);
    log->length += n;
    log->buffer[log->length] = '\0';
    *log->size_value = (void *)(uintptr_t)(log->length > 0 ? log->length + 1 : 0);
}
