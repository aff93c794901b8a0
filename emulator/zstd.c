/*
 * Zstandard decoding (RFC 8878), for the PTX that nvcc compresses into a
 * fatbinary by default.
 *
 * A frame is a header and blocks: raw, one byte repeated (RLE), or
 * compressed. A compressed block holds literals (raw, RLE, or Huffman
 * coded in one or four streams, with a table given or the previous one)
 * and sequences (literal length, match length, offset; each field coded
 * with a finite-state-entropy (FSE) table: predefined, one symbol, given,
 * or the previous one). Executing a sequence copies its literals, then a
 * match from `offset` bytes back in the output (three recent offsets can
 * be named by 1 to 3). The whole output is one buffer, so every match
 * refers into it; no window is kept apart.
 *
 * Entropy-coded streams are read backwards from their last byte, whose
 * highest set bit marks the start. Reading past the first byte yields
 * zero bits, as the format allows at the end of an FSE weight stream.
 *
 * Every read and write is checked against the buffers' ends: bad input is
 * -1, never a crash. Speed matters little (a PTX module is kilobytes).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decompress.h"

#define ZSTD_MAGIC          0xFD2FB528u
#define ZSTD_SKIPPABLE_MASK 0xFFFFFFF0u
#define ZSTD_SKIPPABLE      0x184D2A50u
#define ZSTD_BLOCK_MAX      (128 * 1024)
#define FSE_LOG_MAX         9 /* sequences' tables; Huffman weights use 6 */
#define FSE_SYMBOLS_MAX     53
#define HUF_LOG_MAX         11
#define HUF_SYMBOLS         256
#define LL_CODES            36
#define ML_CODES            53
#define OF_CODES            32

/* ------------------------------------------------------------ bit streams */

/* A stream read backwards: `bits` is how many remain; it may go below 0. */
struct back_bits {
    const uint8_t *src;
    long long bits;
};

static bool back_init(struct back_bits *b, const uint8_t *src, size_t size)
{
    if (size == 0 || src[size - 1] == 0)
        return false;
    int top = 7;
    while (!(src[size - 1] >> top & 1))
        top--;
    b->src = src;
    b->bits = (long long)(size - 1) * 8 + top;
    return true;
}

/* The next `n` (≤ 32) bits, the most significant first read. */
static uint32_t back_read(struct back_bits *b, int n)
{
    uint32_t value = 0;
    for (int i = n - 1; i >= 0; i--) {
        long long at = b->bits - n + i;
        uint32_t bit = at >= 0 ? (uint32_t)(b->src[at / 8] >> (at % 8)) & 1 : 0;
        value = value << 1 | bit;
    }
    b->bits -= n;
    return value;
}

/* A stream read forwards, for table descriptions. */
struct fwd_bits {
    const uint8_t *src;
    size_t size;
    size_t bit;
};

static bool fwd_read(struct fwd_bits *f, int n, uint32_t *value)
{
    *value = 0;
    for (int i = 0; i < n; i++, f->bit++) {
        if (f->bit / 8 >= f->size)
            return false;
        *value |= (uint32_t)(f->src[f->bit / 8] >> (f->bit % 8) & 1) << i;
    }
    return true;
}

/* ------------------------------------------------------------ FSE tables */

struct fse_cell {
    uint8_t symbol;
    uint8_t bits;
    uint16_t base;
};

struct fse_table {
    int log;
    struct fse_cell cells[1 << FSE_LOG_MAX];
};

static int highest_bit(uint32_t v)
{
    int n = -1;
    while (v) {
        v >>= 1;
        n++;
    }
    return n;
}

/* Builds the decoding table of `n` symbols with normalized counts `count`
 * (-1: less than one). */
static bool fse_build(struct fse_table *t, const short *count, int n, int log)
{
    int size = 1 << log, high = size - 1;
    uint16_t next[FSE_SYMBOLS_MAX];
    for (int s = 0; s < n; s++) {
        if (count[s] == -1) {
            t->cells[high--].symbol = (uint8_t)s;
            next[s] = 1;
        } else
            next[s] = (uint16_t)count[s];
    }
    int step = (size >> 1) + (size >> 3) + 3, pos = 0;
    for (int s = 0; s < n; s++)
        for (int i = 0; i < count[s]; i++) {
            t->cells[pos].symbol = (uint8_t)s;
            do
                pos = (pos + step) & (size - 1);
            while (pos > high);
        }
    if (pos != 0)
        return false; /* the counts do not add up to the table */
    for (int u = 0; u < size; u++) {
        struct fse_cell *c = &t->cells[u];
        int state = next[c->symbol]++;
        c->bits = (uint8_t)(log - highest_bit((uint32_t)state));
        c->base = (uint16_t)((state << c->bits) - size);
    }
    t->log = log;
    return true;
}

/* Reads a table description (RFC 8878 4.1.1) at `src`; `used` gets its bytes. */
static bool fse_read(struct fse_table *t, const uint8_t *src, size_t size, int max_log,
                     int max_symbols, size_t *used)
{
    struct fwd_bits f = {src, size, 0};
    uint32_t v;
    if (!fwd_read(&f, 4, &v) || (int)v + 5 > max_log)
        return false;
    int log = (int)v + 5, remaining = (1 << log) + 1, threshold = 1 << log, bits = log + 1;
    short count[FSE_SYMBOLS_MAX] = {0};
    int s = 0;
    while (remaining > 1) {
        if (s >= max_symbols)
            return false;
        int max = 2 * threshold - 1 - remaining;
        uint32_t low;
        if (!fwd_read(&f, bits - 1, &low))
            return false;
        int value;
        if ((int)low < max)
            value = (int)low;
        else {
            uint32_t top;
            if (!fwd_read(&f, 1, &top))
                return false;
            value = (int)(low | top << (bits - 1));
            if (value >= threshold)
                value -= max;
        }
        count[s++] = (short)(value - 1);
        remaining -= value == 0 ? 1 : value - 1;
        while (remaining < threshold && threshold > 1) {
            bits--;
            threshold >>= 1;
        }
        if (value == 1) { /* a count of 0: runs of further zeros follow */
            uint32_t repeat;
            do {
                if (!fwd_read(&f, 2, &repeat))
                    return false;
                for (uint32_t i = 0; i < repeat; i++, s++)
                    if (s >= max_symbols)
                        return false;
            } while (repeat == 3);
        }
    }
    if (remaining != 1)
        return false;
    *used = (f.bit + 7) / 8;
    return fse_build(t, count, s, log);
}

static void fse_single(struct fse_table *t, uint8_t symbol)
{
    t->log = 0;
    t->cells[0] = (struct fse_cell){.symbol = symbol, .bits = 0, .base = 0};
}

static uint8_t fse_peek(const struct fse_table *t, uint32_t state)
{
    return t->cells[state].symbol;
}

static void fse_update(const struct fse_table *t, uint32_t *state, struct back_bits *b)
{
    const struct fse_cell *c = &t->cells[*state];
    *state = c->base + back_read(b, c->bits);
}

/* -------------------------------------------------------- Huffman tables */

struct huf_table {
    int log; /* 0: none yet */
    uint8_t symbol[1 << HUF_LOG_MAX];
    uint8_t bits[1 << HUF_LOG_MAX];
};

/* The weights of the Huffman description at `src`, FSE-coded: two states
 * take turns until the stream runs out. */
static bool huf_fse_weights(const uint8_t *src, size_t size, uint8_t *weights, int *n)
{
    struct fse_table table;
    size_t used;
    if (!fse_read(&table, src, size, 6, 16, &used) || used > size)
        return false;
    struct back_bits b;
    if (!back_init(&b, src + used, size - used))
        return false;
    uint32_t s1 = back_read(&b, table.log), s2 = back_read(&b, table.log);
    *n = 0;
    for (;;) {
        if (*n >= HUF_SYMBOLS - 1)
            return false;
        weights[(*n)++] = fse_peek(&table, s1);
        fse_update(&table, &s1, &b);
        if (b.bits < 0) {
            weights[(*n)++] = fse_peek(&table, s2);
            return true;
        }
        if (*n >= HUF_SYMBOLS - 1)
            return false;
        weights[(*n)++] = fse_peek(&table, s2);
        fse_update(&table, &s2, &b);
        if (b.bits < 0) {
            if (*n >= HUF_SYMBOLS - 1)
                return false;
            weights[(*n)++] = fse_peek(&table, s1);
            return true;
        }
    }
}

/* Builds the table from `n` weights, the last symbol's implied. */
static bool huf_build(struct huf_table *h, uint8_t *weights, int n)
{
    uint32_t sum = 0;
    for (int i = 0; i < n; i++) {
        if (weights[i] > HUF_LOG_MAX)
            return false;
        sum += weights[i] ? 1u << (weights[i] - 1) : 0;
    }
    if (sum == 0)
        return false;
    int log = highest_bit(sum) + 1;
    uint32_t left = (1u << log) - sum;
    if (log > HUF_LOG_MAX || left == 0 || (left & (left - 1)) != 0)
        return false;
    weights[n++] = (uint8_t)(highest_bit(left) + 1);
    int rank[HUF_LOG_MAX + 2] = {0};
    for (int i = 0; i < n; i++)
        if (weights[i])
            rank[log + 1 - weights[i]]++;
    int start[HUF_LOG_MAX + 2] = {0};
    for (int bits = log; bits >= 1; bits--)
        start[bits - 1] = start[bits] + rank[bits] * (1 << (log - bits));
    for (int i = 0; i < n; i++) {
        if (!weights[i])
            continue;
        int bits = log + 1 - weights[i], cells = 1 << (log - bits);
        for (int k = 0; k < cells; k++) {
            h->symbol[start[bits] + k] = (uint8_t)i;
            h->bits[start[bits] + k] = (uint8_t)bits;
        }
        start[bits] += cells;
    }
    h->log = log;
    return true;
}

/* Reads a Huffman description at `src`; `used` gets its bytes. */
static bool huf_read(struct huf_table *h, const uint8_t *src, size_t size, size_t *used)
{
    uint8_t weights[HUF_SYMBOLS + 1];
    int n;
    if (size < 1)
        return false;
    int header = src[0];
    if (header < 128) {
        if ((size_t)header + 1 > size || !huf_fse_weights(src + 1, (size_t)header, weights, &n))
            return false;
        *used = (size_t)header + 1;
    } else {
        n = header - 127;
        *used = 1 + ((size_t)n + 1) / 2;
        if (*used > size)
            return false;
        for (int i = 0; i < n; i++)
            weights[i] = i % 2 == 0 ? src[1 + i / 2] >> 4 : src[1 + i / 2] & 15;
    }
    return huf_build(h, weights, n);
}

/* Decodes exactly `count` symbols from one stream. */
static bool huf_stream(const struct huf_table *h, const uint8_t *src, size_t size, uint8_t *out,
                       size_t count)
{
    struct back_bits b;
    if (!back_init(&b, src, size))
        return false;
    uint32_t mask = (1u << h->log) - 1, state = back_read(&b, h->log);
    for (size_t i = 0; i < count; i++) {
        out[i] = h->symbol[state];
        int bits = h->bits[state];
        state = ((state << bits) | back_read(&b, bits)) & mask;
    }
    return b.bits == -h->log; /* every bit used, the state's included */
}

/* ------------------------------------------------------------- a frame */

struct zstd_frame {
    uint8_t *dst;
    size_t dst_size, out;
    uint8_t literals[ZSTD_BLOCK_MAX];
    size_t n_literals;
    struct huf_table huf;
    struct fse_table ll, of, ml;
    uint32_t rep[3];
};

static uint32_t le(const uint8_t *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Huffman-coded literals: one stream, or four behind a jump table. */
static bool literals_huffman(struct zstd_frame *z, const uint8_t *src, size_t size, bool four)
{
    if (!four)
        return huf_stream(&z->huf, src, size, z->literals, z->n_literals);
    if (size < 6)
        return false;
    size_t part = (z->n_literals + 3) / 4, at = 6, done = 0;
    for (int i = 0; i < 4; i++) {
        size_t length = i < 3 ? le(src + 2 * i, 2) : size - at;
        size_t count = i < 3 ? part : z->n_literals - done;
        if (length > size - at || count > z->n_literals - done ||
            !huf_stream(&z->huf, src + at, length, z->literals + done, count))
            return false;
        at += length;
        done += count;
    }
    return true;
}

/* The literals section; `used` gets its bytes. */
static bool read_literals(struct zstd_frame *z, const uint8_t *src, size_t size, size_t *used)
{
    if (size < 1)
        return false;
    int type = src[0] & 3, format = src[0] >> 2 & 3;
    if (type < 2) { /* raw or RLE */
        int header = format == 1 ? 2 : format == 3 ? 3 : 1;
        if ((size_t)header > size)
            return false;
        z->n_literals = le(src, header) >> (header == 1 ? 3 : 4);
        size_t stored = type == 0 ? z->n_literals : 1;
        if (z->n_literals > ZSTD_BLOCK_MAX || stored > size - (size_t)header)
            return false;
        if (type == 0)
            memcpy(z->literals, src + header, z->n_literals);
        else
            memset(z->literals, src[header], z->n_literals);
        *used = (size_t)header + stored;
        return true;
    }
    int header = format < 2    ? 3
                 : format == 2 ? 4
                               : 5,
        field = format < 2    ? 10
                : format == 2 ? 14
                              : 18;
    if ((size_t)header > size)
        return false;
    uint64_t h = 0;
    for (int i = header - 1; i >= 0; i--)
        h = h << 8 | src[i];
    z->n_literals = (size_t)(h >> 4 & ((1u << field) - 1));
    size_t compressed = (size_t)(h >> (4 + field) & ((1u << field) - 1));
    if (z->n_literals > ZSTD_BLOCK_MAX || compressed > size - (size_t)header)
        return false;
    const uint8_t *p = src + header;
    size_t table = 0;
    if (type == 2 && !huf_read(&z->huf, p, compressed, &table))
        return false;
    if (z->huf.log == 0 || table > compressed)
        return false; /* treeless literals without a table before them */
    *used = (size_t)header + compressed;
    return literals_huffman(z, p + table, compressed - table, format != 0);
}

static const short ll_default[LL_CODES] = {4, 3, 2, 2, 2, 2, 2, 2, 2,  2,  2,  2,
                                           2, 1, 1, 1, 2, 2, 2, 2, 2,  2,  2,  2,
                                           2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
static const short ml_default[ML_CODES] = {
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  1,  1,  1,  1,  1,  1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
static const short of_default[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1,  1,  1,  1,  1, 1,
                                     1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

/* One of the sequence tables, by its mode: predefined, RLE, given, repeat. */
static bool read_table(struct fse_table *t, int mode, const short *defaults, int n_defaults,
                       int default_log, int max_log, int max_symbols, const uint8_t *src,
                       size_t size, size_t *used)
{
    *used = 0;
    switch (mode) {
    case 0:
        return fse_build(t, defaults, n_defaults, default_log);
    case 1:
        if (size < 1 || src[0] >= max_symbols)
            return false;
        fse_single(t, src[0]);
        *used = 1;
        return true;
    case 2:
        return fse_read(t, src, size, max_log, max_symbols, used);
    default:
        return t->log >= 0; /* the previous block's */
    }
}

static const uint32_t ll_base[LL_CODES] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,   9,   10,  11,   12,   13,   14,   15,    16,    18,
    20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
static const uint8_t ll_bits[LL_CODES] = {0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0,
                                          0, 0, 0, 0, 1, 1,  1,  1,  2,  2,  3,  3,
                                          4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint32_t ml_base[ML_CODES] = {
    3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,   14,   15,   16,   17,    18,    19,   20,
    21, 22, 23, 24, 25, 26, 27, 28,  29,  30,  31,   32,   33,   34,   35,    37,    39,   41,
    43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
static const uint8_t ml_bits[ML_CODES] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0, 0,
    0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* The offset a sequence names, the recent offsets updated. */
static uint32_t sequence_offset(struct zstd_frame *z, uint32_t value, uint32_t literals)
{
    if (value > 3) {
        z->rep[2] = z->rep[1];
        z->rep[1] = z->rep[0];
        return z->rep[0] = value - 3;
    }
    uint32_t index = value - 1 + (literals == 0);
    if (index == 0)
        return z->rep[0];
    uint32_t offset = index == 3 ? z->rep[0] - 1 : z->rep[index];
    if (index > 1)
        z->rep[2] = z->rep[1];
    z->rep[1] = z->rep[0];
    return z->rep[0] = offset;
}

/* Copies the next `count` literals to the output. */
static bool copy_literals(struct zstd_frame *z, size_t *lit, size_t count)
{
    if (count > z->n_literals - *lit || count > z->dst_size - z->out)
        return false;
    memcpy(z->dst + z->out, z->literals + *lit, count);
    z->out += count;
    *lit += count;
    return true;
}

/* Copies `literals` literals, then `match` bytes from `offset` back. */
static bool sequence_run(struct zstd_frame *z, size_t *lit, uint32_t literals, uint32_t offset,
                         uint32_t match)
{
    if (!copy_literals(z, lit, literals))
        return false;
    if (offset == 0 || offset > z->out || match > z->dst_size - z->out)
        return false;
    for (uint32_t i = 0; i < match; i++, z->out++) /* may overlap what it copies */
        z->dst[z->out] = z->dst[z->out - offset];
    return true;
}

static bool run_sequences(struct zstd_frame *z, long n, const uint8_t *src, size_t size)
{
    struct back_bits b;
    if (!back_init(&b, src, size))
        return false;
    uint32_t ll = back_read(&b, z->ll.log), of = back_read(&b, z->of.log),
             ml = back_read(&b, z->ml.log);
    size_t lit = 0;
    for (long i = 0; i < n; i++) {
        uint8_t of_code = fse_peek(&z->of, of), ll_code = fse_peek(&z->ll, ll),
                ml_code = fse_peek(&z->ml, ml);
        if (of_code >= OF_CODES || ll_code >= LL_CODES || ml_code >= ML_CODES)
            return false;
        uint32_t offset = (1u << of_code) + back_read(&b, of_code);
        uint32_t match = ml_base[ml_code] + back_read(&b, ml_bits[ml_code]);
        uint32_t literals = ll_base[ll_code] + back_read(&b, ll_bits[ll_code]);
        if (i + 1 < n) {
            fse_update(&z->ll, &ll, &b);
            fse_update(&z->ml, &ml, &b);
            fse_update(&z->of, &of, &b);
        }
        if (b.bits < 0 ||
            !sequence_run(z, &lit, literals, sequence_offset(z, offset, literals), match))
            return false;
    }
    return b.bits == 0 && copy_literals(z, &lit, z->n_literals - lit);
}

/* The number of sequences (1 to 3 bytes); `at` moves past it. */
static bool sequence_count(const uint8_t *src, size_t size, size_t *at, long *n)
{
    if (*at >= size)
        return false;
    *n = src[(*at)++];
    if (*n < 128)
        return true;
    if (*n < 255) {
        if (*at >= size)
            return false;
        *n = ((*n - 128) << 8) + src[(*at)++];
        return true;
    }
    if (size - *at < 2)
        return false;
    *n = src[*at] + (src[*at + 1] << 8) + 0x7F00;
    *at += 2;
    return true;
}

static bool compressed_block(struct zstd_frame *z, const uint8_t *src, size_t size)
{
    size_t at;
    long n;
    if (!read_literals(z, src, size, &at) || !sequence_count(src, size, &at, &n))
        return false;
    if (n == 0) {
        size_t lit = 0;
        return at == size && copy_literals(z, &lit, z->n_literals);
    }
    if (at >= size)
        return false;
    int modes = src[at++];
    size_t used;
    if (!read_table(&z->ll, modes >> 6 & 3, ll_default, LL_CODES, 6, 9, LL_CODES, src + at,
                    size - at, &used))
        return false;
    at += used;
    if (!read_table(&z->of, modes >> 4 & 3, of_default, 29, 5, 8, OF_CODES, src + at, size - at,
                    &used))
        return false;
    at += used;
    if (!read_table(&z->ml, modes >> 2 & 3, ml_default, ML_CODES, 6, 9, ML_CODES, src + at,
                    size - at, &used))
        return false;
    at += used;
    return at <= size && run_sequences(z, n, src + at, size - at);
}

/* The frame header; `at` moves past it. */
static bool frame_header(const uint8_t *src, size_t size, size_t *at, bool *checksum)
{
    if (size - *at < 1)
        return false;
    uint8_t d = src[(*at)++];
    int fcs = d >> 6, single = d >> 5 & 1, dict = d & 3;
    if (d & 8 || dict != 0)
        return false; /* reserved bit, or a dictionary we do not have */
    *checksum = d >> 2 & 1;
    size_t skip = (size_t)(single ? 0 : 1) + (size_t)(fcs == 0 ? single : 1 << fcs);
    if (size - *at < skip)
        return false;
    *at += skip;
    return true;
}

static bool frame_blocks(struct zstd_frame *z, const uint8_t *src, size_t size, size_t *at)
{
    for (bool last = false; !last;) {
        if (size - *at < 3)
            return false;
        uint32_t h = le(src + *at, 3);
        *at += 3;
        last = h & 1;
        int type = h >> 1 & 3;
        size_t length = h >> 3, stored = type == 1 ? 1 : length;
        if (type == 3 || length > ZSTD_BLOCK_MAX || stored > size - *at)
            return false;
        if (type < 2 && length > z->dst_size - z->out)
            return false;
        if (type == 0)
            memcpy(z->dst + z->out, src + *at, length);
        else if (type == 1)
            memset(z->dst + z->out, src[*at], length);
        else if (!compressed_block(z, src + *at, length))
            return false;
        if (type < 2)
            z->out += length;
        *at += stored;
    }
    return true;
}

long emu_zstd_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size)
{
    struct zstd_frame *z = malloc(sizeof *z);
    if (z == NULL)
        return -1;
    size_t at = 0, out = 0;
    bool ok = true;
    while (ok && at < src_size) {
        if (src_size - at < 4)
            ok = false;
        else if ((le(src + at, 4) & ZSTD_SKIPPABLE_MASK) == ZSTD_SKIPPABLE) {
            uint32_t skip = src_size - at >= 8 ? le(src + at + 4, 4) : UINT32_MAX;
            ok = skip <= src_size - at - 8;
            at += 8 + (size_t)skip;
        } else if (le(src + at, 4) != ZSTD_MAGIC)
            ok = false;
        else {
            memset(z, 0, sizeof *z);
            z->dst = dst + out;
            z->dst_size = dst_size - out;
            z->rep[0] = 1, z->rep[1] = 4, z->rep[2] = 8;
            z->ll.log = z->of.log = z->ml.log = -1;
            bool checksum = false;
            at += 4;
            ok = frame_header(src, src_size, &at, &checksum) &&
                 frame_blocks(z, src, src_size, &at) && (!checksum || src_size - at >= 4);
            at += checksum ? 4 : 0;
            out += z->out;
        }
    }
    free(z);
    return ok ? (long)out : -1;
}
