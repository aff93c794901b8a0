/*
 * The functions the CUDA runtime provides to kernels, which NVRTC's PTX
 * declares .extern and calls: vprintf (printf), malloc, free and
 * __assertfail (assert).
 *
 * printf output is gathered per launch, lanes in order within a warp, and
 * written to standard output when the launch ends, with a total cap
 * (CU_LIMIT_PRINTF_FIFO_SIZE) past which it is dropped and a note says so.
 */
#include "exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FORMAT_MAX     4096 /* longest format string read */
#define STRING_ARG_MAX 4096
#define LINE_MAX_BYTES 8192

/* ---------------------------------------------------------- the buffer */

void printf_buffer_init(struct printf_buffer *p, size_t limit)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    p->limit = limit;
}

static void printf_append(struct printf_buffer *p, const char *text, size_t n)
{
    pthread_mutex_lock(&p->lock);
    if (p->used + n > p->limit) {
        n = p->limit > p->used ? p->limit - p->used : 0;
        p->truncated = true;
    }
    if (n > 0 && p->used + n > p->capacity) {
        size_t cap = p->capacity ? p->capacity : 4096;
        while (cap < p->used + n)
            cap *= 2;
        char *grown = realloc(p->data, cap);
        if (grown) {
            p->data = grown;
            p->capacity = cap;
        } else {
            n = 0;
            p->truncated = true;
        }
    }
    if (n > 0) {
        memcpy(p->data + p->used, text, n);
        p->used += n;
    }
    pthread_mutex_unlock(&p->lock);
}

static void write_all(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(STDOUT_FILENO, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

void printf_buffer_flush(struct printf_buffer *p)
{
    fflush(stdout);
    write_all(p->data, p->used);
    if (p->truncated) {
        char note[128];
        int n =
            snprintf(note, sizeof note,
                     "\n[kgrade virtual GPU: printf output truncated at %zu bytes]\n", p->limit);
        write_all(note, (size_t)n);
    }
    p->used = 0;
    p->truncated = false;
}

void printf_buffer_take(struct printf_buffer *to, struct printf_buffer *from)
{
    free(to->data);
    to->data = from->data;
    to->used = from->used;
    to->capacity = from->capacity;
    to->limit = from->limit;
    to->truncated = from->truncated;
    from->data = NULL;
    from->used = from->capacity = 0;
    from->truncated = false;
}

void printf_buffer_free(struct printf_buffer *p)
{
    free(p->data);
    pthread_mutex_destroy(&p->lock);
}

/* ------------------------------------------------------------ arguments */

/* The 64-bit argument `i` of the call for lane l. */
static uint64_t call_arg(const struct frame *f, const struct ptx_insn *insn, int i, uint32_t l)
{
    uint32_t offset = f->fn->call_args[insn->o[1].imm + i];
    uint64_t v;
    memcpy(&v, f->params + (size_t)l * f->fn->call_param_bytes + offset, 8);
    return v;
}

static void set_return(struct frame *f, const struct ptx_insn *insn, uint32_t l, uint64_t v,
                       unsigned bytes)
{
    if (insn->o[2].count != 1)
        return;
    uint32_t offset = f->fn->call_args[insn->o[2].imm];
    memcpy(f->params + (size_t)l * f->fn->call_param_bytes + offset, &v, bytes);
}

/* A NUL-terminated string of device memory, at most `max` bytes. */
static bool read_string(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t l,
                        uint64_t address, char *out, size_t max)
{
    for (size_t i = 0; i + 1 < max; i++) {
        const char *p = mem_resolve(w, f, insn, (int)l, PTX_SPACE_GENERIC, address + i, 1, false);
        if (!p)
            return false;
        out[i] = *p;
        if (*p == '\0')
            return true;
    }
    out[max - 1] = '\0';
    return true;
}

/* ----------------------------------------------------------------- printf */

struct arg_cursor {
    struct warp *w;
    struct frame *f;
    const struct ptx_insn *insn;
    uint32_t lane;
    uint64_t address; /* generic address of the packed arguments */
    uint64_t offset;
    bool ok;
    int arguments; /* read so far: printf's return value */
};

/* The next packed argument of `bytes` bytes (aligned to its size). */
static uint64_t next_arg(struct arg_cursor *c, unsigned bytes)
{
    c->arguments++;
    c->offset = (c->offset + bytes - 1) / bytes * bytes;
    const uint8_t *p = c->ok ? mem_resolve(c->w, c->f, c->insn, (int)c->lane, PTX_SPACE_GENERIC,
                                           c->address + c->offset, bytes, false)
                             : NULL;
    c->offset += bytes;
    if (!p) {
        c->ok = false;
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, p, bytes);
    return v;
}

/* One conversion of the format: spec is "%...X" with its length modifier.
 * The host's snprintf formats it with a format string rebuilt from the
 * flags, width and precision of the spec (digits and "-+ #." only) and the
 * conversion, with the argument cast to the matching type: hence a format
 * that is not a literal. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int format_one(struct arg_cursor *c, const char *spec, size_t len, char *out, size_t size)
{
    char conv = spec[len - 1];
    char fmt[64];
    if (len + 3 >= sizeof fmt) /* room for "ll", the conversion and the NUL */
        return snprintf(out, size, "%.*s", (int)len, spec);
    bool wide = memchr(spec, 'l', len) != NULL && conv != 'c'; /* %ld %lld %lu: 8 bytes */
    /* strip length modifiers, then add the ones the host's printf needs */
    size_t k = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (!strchr("hlLqjzt", spec[i]))
            fmt[k++] = spec[i];
    switch (conv) {
    case 'd':
    case 'i':
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
        uint64_t v = next_arg(c, wide ? 8 : 4);
        memcpy(fmt + k, "ll", 2);
        fmt[k + 2] = conv;
        fmt[k + 3] = '\0';
        if (conv == 'd' || conv == 'i')
            return snprintf(out, size, fmt, wide ? (long long)v : (long long)(int32_t)v);
        return snprintf(out, size, fmt,
                        wide ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
    }
    case 'c':
        fmt[k] = 'c';
        fmt[k + 1] = '\0';
        return snprintf(out, size, fmt, (int)(char)next_arg(c, 4));
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        fmt[k] = conv;
        fmt[k + 1] = '\0';
        return snprintf(out, size, fmt, slot_f64(next_arg(c, 8)));
    case 'p':
        return snprintf(out, size, "0x%" PRIx64, next_arg(c, 8));
    case 's': {
        uint64_t address = next_arg(c, 8);
        char text[STRING_ARG_MAX];
        if (!c->ok || !read_string(c->w, c->f, c->insn, c->lane, address, text, sizeof text)) {
            c->ok = false;
            return 0;
        }
        fmt[k] = 's';
        fmt[k + 1] = '\0';
        return snprintf(out, size, fmt, text);
    }
    default:
        return snprintf(out, size, "%.*s", (int)len, spec);
    }
}

#pragma GCC diagnostic pop

/* Formats one lane's printf into `line`; false after a fault. */
static bool format_line(struct arg_cursor *c, const char *format, char *line, size_t size)
{
    size_t used = 0;
    for (const char *p = format; *p && used + 1 < size;) {
        if (*p != '%') {
            line[used++] = *p++;
            continue;
        }
        if (p[1] == '%') {
            line[used++] = '%';
            p += 2;
            continue;
        }
        size_t len = 1 + strspn(p + 1, "-+ #0123456789.hlLqjzt");
        if (p[len] == '\0')
            break;
        len++;
        int n = format_one(c, p, len, line + used, size - used);
        if (!c->ok)
            return false;
        used += n > 0 ? ((size_t)n < size - used ? (size_t)n : size - used - 1) : 0;
        p += len;
    }
    line[used] = '\0';
    return true;
}

static bool builtin_printf(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    char *format = malloc(FORMAT_MAX), *line = malloc(LINE_MAX_BYTES);
    bool ok = format && line;
    for (uint32_t l = 0; ok && l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        ok = read_string(w, f, insn, l, call_arg(f, insn, 0, l), format, FORMAT_MAX);
        struct arg_cursor c = {w, f, insn, l, call_arg(f, insn, 1, l), 0, true, 0};
        ok = ok && format_line(&c, format, line, LINE_MAX_BYTES);
        if (ok)
            printf_append(&w->block->launch->printf, line, strlen(line));
        set_return(f, insn, l, (uint64_t)c.arguments, 4); /* CUDA: the arguments read */
    }
    free(format);
    free(line);
    return ok;
}

/* ------------------------------------------------------------ the others */

static bool builtin_assert(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    uint32_t l = (uint32_t)__builtin_ctz(m);
    char message[256] = "?", file[256] = "?";
    read_string(w, f, insn, l, call_arg(f, insn, 0, l), message, sizeof message);
    if (!atomic_load(&w->block->launch->stop))
        read_string(w, f, insn, l, call_arg(f, insn, 1, l), file, sizeof file);
    uint32_t line;
    memcpy(&line,
           f->params + (size_t)l * f->fn->call_param_bytes + f->fn->call_args[insn->o[1].imm + 2],
           4);
    launch_fault(w, (int)l, insn, CUDA_ERROR_ASSERT, 0, "failed assert(%s) at %s:%u", message, file,
                 line);
    return false;
}

bool builtin_call(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                  const struct ptx_function *callee, uint32_t m)
{
    struct emu_heap *heap = w->block->launch->cfg->heap;
    switch ((enum ptx_builtin)callee->builtin) {
    case PTX_BUILTIN_VPRINTF:
        return builtin_printf(w, f, insn, m);
    case PTX_BUILTIN_MALLOC:
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            if (m >> l & 1)
                set_return(f, insn, l, heap ? emu_heap_malloc(heap, call_arg(f, insn, 0, l)) : 0,
                           8);
        return true;
    case PTX_BUILTIN_FREE:
        for (uint32_t l = 0; l < WARP_SIZE; l++) {
            if (!(m >> l & 1))
                continue;
            uint64_t p = call_arg(f, insn, 0, l);
            if (p && (!heap || !emu_heap_free(heap, p))) {
                char where[MEM_WHERE_MAX];
                mem_where(w, PTX_SPACE_GENERIC, p, 1, where, sizeof where);
                launch_fault(w, (int)l, insn, CUDA_ERROR_ILLEGAL_ADDRESS, p,
                             "called free() on a pointer malloc did not return (%s)", where);
                return false;
            }
        }
        return true;
    case PTX_BUILTIN_ASSERTFAIL:
        return builtin_assert(w, f, insn, m);
    default:
        return true;
    }
}
