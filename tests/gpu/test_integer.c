/*
 * Integer arithmetic and bit operations on the virtual GPU, element by
 * element against the host.
 *
 * One table (INT_OPS) lists each operation twice: as CUDA C, which becomes
 * a line of the kernel, and as the host's C for the same value, compiled
 * into the reference. Most lines are the same text on both sides; CUDA's
 * intrinsics (__mulhi, __popc, __byte_perm, __funnelshift_l, ...) have host
 * versions written from the CUDA Math API's definitions, and the PTX
 * instructions whose edge cases C leaves undefined (shifts by the width or
 * more, bfe/bfi past the msb, prmt's sign replication) are reached with
 * inline PTX and checked against the PTX ISA's pseudocode.
 * Inputs: every pair of edge values (0, ±1, INT_MIN, INT_MAX, byte and
 * half-word boundaries, alternating bits), shift amounts of 0..256 and
 * beyond, and random values; 8- and 16-bit values are loaded from byte and
 * half-word arrays so that the sign or zero extension of the load is
 * exercised, and a second kernel stores bytes and half-words next to each
 * other.
 */
#include <limits.h>

#include "gpu_test.h"

#define THREADS  128
#define N_RANDOM 16384
#define SHOW     4

/* ------------------------------------------------------------- helpers */

/* Host versions of CUDA's intrinsics (CUDA Math API, "Integer Intrinsics"). */
static int imin(int a, int b)
{
    return a < b ? a : b;
}
static int imax(int a, int b)
{
    return a > b ? a : b;
}
static unsigned umin(unsigned a, unsigned b)
{
    return a < b ? a : b;
}
static unsigned umax(unsigned a, unsigned b)
{
    return a > b ? a : b;
}
static long long llmin_(long long a, long long b)
{
    return a < b ? a : b;
}
static unsigned long long ullmax_(unsigned long long a, unsigned long long b)
{
    return a > b ? a : b;
}
static int iabs(int a) /* abs.s32: |INT_MIN| is INT_MIN */
{
    return a == INT_MIN ? INT_MIN : (a < 0 ? -a : a);
}
static long long llabs_(long long a)
{
    return a == LLONG_MIN ? LLONG_MIN : (a < 0 ? -a : a);
}
static int mulhi(int a, int b)
{
    return (int)(((long long)a * b) >> 32);
}
static unsigned umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static long long mul64hi(long long a, long long b)
{
    return (long long)(((__int128)a * b) >> 64);
}
static unsigned long long umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static int sext24(unsigned v)
{
    return (int)(v << 8) >> 8;
}
static int mul24(int a, int b) /* low 32 bits of the 48-bit product of 24-bit values */
{
    return (int)(unsigned)((long long)sext24((unsigned)a) * sext24((unsigned)b));
}
static unsigned umul24(unsigned a, unsigned b)
{
    return (unsigned)((unsigned long long)(a & 0xffffff) * (b & 0xffffff));
}
static int popc32(unsigned v)
{
    return __builtin_popcount(v);
}
static int popc64(unsigned long long v)
{
    return __builtin_popcountll(v);
}
static int clz32(int v)
{
    return v == 0 ? 32 : __builtin_clz((unsigned)v);
}
static int clz64(long long v)
{
    return v == 0 ? 64 : __builtin_clzll((unsigned long long)v);
}
static int ffs32(int v)
{
    return v == 0 ? 0 : __builtin_ctz((unsigned)v) + 1;
}
static int ffs64(long long v)
{
    return v == 0 ? 0 : __builtin_ctzll((unsigned long long)v) + 1;
}
static unsigned brev32(unsigned v)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((v >> i) & 1u) << (31 - i);
    return r;
}
static unsigned long long brev64(unsigned long long v)
{
    return (unsigned long long)brev32((unsigned)v) << 32 | brev32((unsigned)(v >> 32));
}
/* __byte_perm: bytes 0-3 of x and 4-7 of y; result byte n is the byte that
 * the low 3 bits of selector nibble n name. */
static unsigned byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long bytes = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int n = 0; n < 4; n++)
        r |= (unsigned)((bytes >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return r;
}
/* prmt.b32 (generic form): nibble bit 3 replicates the selected byte's sign. */
static unsigned prmt(unsigned a, unsigned b, unsigned c)
{
    unsigned long long bytes = (unsigned long long)b << 32 | a;
    unsigned r = 0;
    for (int n = 0; n < 4; n++) {
        unsigned ctl = (c >> (4 * n)) & 0xf;
        unsigned byte = (unsigned)(bytes >> (8 * (ctl & 7))) & 0xff;
        if (ctl & 8)
            byte = byte & 0x80 ? 0xff : 0;
        r |= byte << (8 * n);
    }
    return r;
}
/* shf: the 64-bit {hi, lo} shifted by n (wrap: n & 31; clamp: min(n, 32)). */
static unsigned funnel_l(unsigned lo, unsigned hi, unsigned n)
{
    return (unsigned)((((unsigned long long)hi << 32 | lo) << n) >> 32);
}
static unsigned funnel_r(unsigned lo, unsigned hi, unsigned n)
{
    return (unsigned)((((unsigned long long)hi << 32 | lo) >> n) & 0xffffffffu);
}
static unsigned funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{
    return funnel_l(lo, hi, s & 31);
}
static unsigned funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{
    return s >= 32 ? lo : funnel_l(lo, hi, s);
}
static unsigned funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{
    return funnel_r(lo, hi, s & 31);
}
static unsigned funnelshift_rc(unsigned lo, unsigned hi, unsigned s)
{
    return s >= 32 ? hi : funnel_r(lo, hi, s);
}
static unsigned sad(int a, int b, unsigned c)
{
    return (unsigned)(a > b ? (long long)a - b : (long long)b - a) + c;
}
static unsigned usad(unsigned a, unsigned b, unsigned c)
{
    return (a > b ? a - b : b - a) + c;
}
static int hadd(int a, int b)
{
    return (int)(((long long)a + b) >> 1);
}
static int rhadd(int a, int b)
{
    return (int)(((long long)a + b + 1) >> 1);
}
static unsigned uhadd(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a + b) >> 1);
}
static unsigned urhadd(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
static int dp4a(int a, int b, int c)
{
    int d = c;
    for (int k = 0; k < 4; k++)
        d = (int)((unsigned)d +
                  (unsigned)((int)(signed char)(a >> (8 * k)) * (int)(signed char)(b >> (8 * k))));
    return d;
}
static unsigned udp4a(unsigned a, unsigned b, unsigned c)
{
    for (int k = 0; k < 4; k++)
        c += ((a >> (8 * k)) & 0xff) * ((b >> (8 * k)) & 0xff);
    return c;
}

/* PTX's shifts: amounts of the width or more give 0 (or the sign). */
static unsigned shl32(unsigned a, unsigned b)
{
    return b >= 32 ? 0 : a << b;
}
static unsigned shr_u32(unsigned a, unsigned b)
{
    return b >= 32 ? 0 : a >> b;
}
static int shr_s32(int a, unsigned b)
{
    return a >> (b >= 32 ? 31 : b);
}
static unsigned long long shl64(unsigned long long a, unsigned b)
{
    return b >= 64 ? 0 : a << b;
}
static unsigned long long shr_u64(unsigned long long a, unsigned b)
{
    return b >= 64 ? 0 : a >> b;
}
static long long shr_s64(long long a, unsigned b)
{
    return a >> (b >= 64 ? 63 : b);
}

/* bfe and bfi, from the PTX ISA's pseudocode, bit by bit. */
static unsigned long long bfe(unsigned long long a, unsigned b, unsigned c, int bits, int is_signed)
{
    unsigned msb = (unsigned)bits - 1, pos = b & 0xff, len = c & 0xff;
    unsigned sbit = 0;
    if (is_signed && len != 0) {
        unsigned top = pos + len - 1 < msb ? pos + len - 1 : msb;
        sbit = (unsigned)(a >> top) & 1;
    }
    unsigned long long d = 0;
    for (unsigned i = 0; i <= msb; i++) {
        unsigned bit = i < len && pos + i <= msb ? (unsigned)(a >> (pos + i)) & 1 : sbit;
        d |= (unsigned long long)bit << i;
    }
    return d;
}
static unsigned bfe_u32(unsigned a, unsigned b, unsigned c)
{
    return (unsigned)bfe(a, b, c, 32, 0);
}
static int bfe_s32(int a, unsigned b, unsigned c)
{
    return (int)(unsigned)bfe((unsigned)a, b, c, 32, 1);
}
static unsigned long long bfe_u64(unsigned long long a, unsigned b, unsigned c)
{
    return bfe(a, b, c, 64, 0);
}
static long long bfe_s64(long long a, unsigned b, unsigned c)
{
    return (long long)bfe((unsigned long long)a, b, c, 64, 1);
}
static unsigned long long bfi(unsigned long long a, unsigned long long b, unsigned c, unsigned d,
                              int bits)
{
    unsigned msb = (unsigned)bits - 1, pos = c & 0xff, len = d & 0xff;
    unsigned long long f = b;
    for (unsigned i = 0; i < len && pos + i <= msb; i++)
        f = (f & ~(1ull << (pos + i))) | ((a >> i) & 1) << (pos + i);
    return f;
}
static unsigned bfi_b32(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return (unsigned)bfi(a, b, c, d, 32);
}
static unsigned long long bfi_b64(unsigned long long a, unsigned long long b, unsigned c,
                                  unsigned d)
{
    return bfi(a, b, c, d, 64);
}

/* The kernel's side of the PTX helpers above: the instructions themselves. */
static const char device_helpers[] =
    "#define INT_MIN (-2147483647 - 1)\n"
    "#define LLONG_MIN (-9223372036854775807ll - 1)\n"
    "typedef unsigned long long ull;\n"
    "__device__ unsigned shl32(unsigned a, unsigned b)\n"
    "{ unsigned d; asm(\"shl.b32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b)); return d; }\n"
    "__device__ unsigned shr_u32(unsigned a, unsigned b)\n"
    "{ unsigned d; asm(\"shr.u32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b)); return d; }\n"
    "__device__ int shr_s32(int a, unsigned b)\n"
    "{ int d; asm(\"shr.s32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b)); return d; }\n"
    "__device__ ull shl64(ull a, unsigned b)\n"
    "{ ull d; asm(\"shl.b64 %0, %1, %2;\" : \"=l\"(d) : \"l\"(a), \"r\"(b)); return d; }\n"
    "__device__ ull shr_u64(ull a, unsigned b)\n"
    "{ ull d; asm(\"shr.u64 %0, %1, %2;\" : \"=l\"(d) : \"l\"(a), \"r\"(b)); return d; }\n"
    "__device__ long long shr_s64(long long a, unsigned b)\n"
    "{ long long d; asm(\"shr.s64 %0, %1, %2;\" : \"=l\"(d) : \"l\"(a), \"r\"(b)); return d; }\n"
    "__device__ unsigned bfe_u32(unsigned a, unsigned b, unsigned c)\n"
    "{ unsigned d; asm(\"bfe.u32 %0, %1, %2, %3;\" : \"=r\"(d) : \"r\"(a), \"r\"(b), \"r\"(c));\n"
    "  return d; }\n"
    "__device__ int bfe_s32(int a, unsigned b, unsigned c)\n"
    "{ int d; asm(\"bfe.s32 %0, %1, %2, %3;\" : \"=r\"(d) : \"r\"(a), \"r\"(b), \"r\"(c));\n"
    "  return d; }\n"
    "__device__ ull bfe_u64(ull a, unsigned b, unsigned c)\n"
    "{ ull d; asm(\"bfe.u64 %0, %1, %2, %3;\" : \"=l\"(d) : \"l\"(a), \"r\"(b), \"r\"(c));\n"
    "  return d; }\n"
    "__device__ long long bfe_s64(long long a, unsigned b, unsigned c)\n"
    "{ long long d; asm(\"bfe.s64 %0, %1, %2, %3;\" : \"=l\"(d) : \"l\"(a), \"r\"(b), \"r\"(c));\n"
    "  return d; }\n"
    "__device__ unsigned bfi_b32(unsigned a, unsigned b, unsigned c, unsigned d)\n"
    "{ unsigned f; asm(\"bfi.b32 %0, %1, %2, %3, %4;\" : \"=r\"(f)\n"
    "  : \"r\"(a), \"r\"(b), \"r\"(c), \"r\"(d)); return f; }\n"
    "__device__ ull bfi_b64(ull a, ull b, unsigned c, unsigned d)\n"
    "{ ull f; asm(\"bfi.b64 %0, %1, %2, %3, %4;\" : \"=l\"(f)\n"
    "  : \"l\"(a), \"l\"(b), \"r\"(c), \"r\"(d)); return f; }\n"
    "__device__ unsigned bmsk_clamp(unsigned a, unsigned b)\n"
    "{ unsigned d; asm(\"bmsk.clamp.b32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b)); return d; "
    "}\n"
    "__device__ unsigned bmsk_wrap(unsigned a, unsigned b)\n"
    "{ unsigned d; asm(\"bmsk.wrap.b32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b)); return d; "
    "}\n"
    "__device__ unsigned prmt(unsigned a, unsigned b, unsigned c)\n"
    "{ unsigned d; asm(\"prmt.b32 %0, %1, %2, %3;\" : \"=r\"(d) : \"r\"(a), \"r\"(b), \"r\"(c));\n"
    "  return d; }\n";

/* bmsk, from the PTX ISA's pseudocode: a mask of b bits from bit a. */
static unsigned bmsk(unsigned a, unsigned b, int clamp)
{
    unsigned a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    unsigned mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    int overflow = sum >= 32;
    if (clamp && a >= 32) {
        overflow = 1;
        mask0 = 0;
    }
    if (clamp && b >= 32)
        overflow = 1;
    if (overflow)
        mask1 = 0;
    else if (b1 == 0)
        mask1 = ~0u;
    return mask0 & ~mask1;
}
static unsigned bmsk_clamp(unsigned a, unsigned b)
{
    return bmsk(a, b, 1);
}
static unsigned bmsk_wrap(unsigned a, unsigned b)
{
    return bmsk(a, b, 0);
}

/* __fns, from the PTX ISA's pseudocode of fns. */
static unsigned fns(unsigned mask, unsigned base, int offset)
{
    if (offset == 0)
        return (mask >> base & 1) ? base : 0xffffffffu;
    int pos = (int)base, inc = offset > 0 ? 1 : -1;
    int count = (offset > 0 ? offset : -offset) - 1;
    for (; pos >= 0 && pos < 32; pos += inc)
        if (mask >> pos & 1) {
            if (count == 0)
                return (unsigned)pos;
            count--;
        }
    return 0xffffffffu;
}

/* The operations: X(CUDA expression, host expression). In both, x y are
 * int, ux uy unsigned, X Y long long, UX UY unsigned long long, s an
 * unsigned shift amount or selector, and c8 c16 u8v u16v were loaded from
 * signed char, short, unsigned char and unsigned short arrays. */
/* clang-format off */
#define INT_OPS(OP)                                                                                \
    OP(ux + uy, ux + uy)                                                                           \
    OP(ux - uy, ux - uy)                                                                           \
    OP(ux * uy, ux * uy)                                                                           \
    OP(-ux, -ux)                                                                                   \
    OP(~x, ~x)                                                                                     \
    OP(x & y, x & y)                                                                               \
    OP(x | y, x | y)                                                                               \
    OP(x ^ y, x ^ y)                                                                               \
    OP(!x, !x)                                                                                     \
    OP(x && y, x && y)                                                                             \
    OP((long long)x * y, (long long)x * y)                                                         \
    OP((ull)ux * uy, (unsigned long long)ux * uy)                                                  \
    OP(y == 0 || (x == INT_MIN && y == -1) ? 0 : x / y,                                            \
      y == 0 || (x == INT_MIN && y == -1) ? 0 : x / y)                                             \
    OP(y == 0 || (x == INT_MIN && y == -1) ? 0 : x % y,                                            \
      y == 0 || (x == INT_MIN && y == -1) ? 0 : x % y)                                             \
    OP(uy == 0 ? 0u : ux / uy, uy == 0 ? 0u : ux / uy)                                             \
    OP(uy == 0 ? 0u : ux % uy, uy == 0 ? 0u : ux % uy)                                             \
    OP(x / 7, x / 7)                                                                               \
    OP(x % -3, x % -3)                                                                             \
    OP(ux / 10u, ux / 10u)                                                                         \
    OP(x / 16, x / 16)                                                                             \
    OP(x % 16, x % 16)                                                                             \
    OP(x < y, x < y)                                                                               \
    OP(x <= y, x <= y)                                                                             \
    OP(ux < uy, ux < uy)                                                                           \
    OP((x > y) - (x < y), (x > y) - (x < y))                                                       \
    OP(x >> (s & 31), x >> (s & 31))                                                               \
    OP(ux >> (s & 31), ux >> (s & 31))                                                             \
    OP(ux << (s & 31), ux << (s & 31))                                                             \
    OP(shl32(ux, s), shl32(ux, s))                                                                 \
    OP(shr_u32(ux, s), shr_u32(ux, s))                                                             \
    OP(shr_s32(x, s), shr_s32(x, s))                                                               \
    OP(shl64(UX, s), shl64(UX, s))                                                                 \
    OP(shr_u64(UX, s), shr_u64(UX, s))                                                             \
    OP(shr_s64(X, s), shr_s64(X, s))                                                               \
    OP(min(x, y), imin(x, y))                                                                      \
    OP(max(x, y), imax(x, y))                                                                      \
    OP(min(ux, uy), umin(ux, uy))                                                                  \
    OP(max(ux, uy), umax(ux, uy))                                                                  \
    OP(llmin(X, Y), llmin_(X, Y))                                                                  \
    OP(ullmax(UX, UY), ullmax_(UX, UY))                                                            \
    OP(abs(x), iabs(x))                                                                            \
    OP(llabs(X), llabs_(X))                                                                        \
    OP(__mulhi(x, y), mulhi(x, y))                                                                 \
    OP(__umulhi(ux, uy), umulhi(ux, uy))                                                           \
    OP(__mul64hi(X, Y), mul64hi(X, Y))                                                             \
    OP(__umul64hi(UX, UY), umul64hi(UX, UY))                                                       \
    OP(__mul24(x, y), mul24(x, y))                                                                 \
    OP(__umul24(ux, uy), umul24(ux, uy))                                                           \
    OP(__popc(ux), popc32(ux))                                                                     \
    OP(__popcll(UX), popc64(UX))                                                                   \
    OP(__clz(x), clz32(x))                                                                         \
    OP(__clzll(X), clz64(X))                                                                       \
    OP(__ffs(x), ffs32(x))                                                                         \
    OP(__ffsll(X), ffs64(X))                                                                       \
    OP(__brev(ux), brev32(ux))                                                                     \
    OP(__brevll(UX), brev64(UX))                                                                   \
    OP(__byte_perm(ux, uy, s & 0x7777u), byte_perm(ux, uy, s & 0x7777u))                           \
    OP(prmt(ux, uy, s), prmt(ux, uy, s))                                                           \
    OP(bmsk_clamp(s, uy & 63), bmsk_clamp(s, uy & 63))                                             \
    OP(bmsk_wrap(s, uy), bmsk_wrap(s, uy))                                                         \
    OP(bmsk_clamp(ux & 31, s), bmsk_clamp(ux & 31, s))                                             \
    OP(__fns(ux, s & 31, y % 40), fns(ux, s & 31, y % 40))                                         \
    OP(__fns(ux, s & 31, 0), fns(ux, s & 31, 0))                                                   \
    OP(__funnelshift_l(ux, uy, s), funnelshift_l(ux, uy, s))                                       \
    OP(__funnelshift_lc(ux, uy, s), funnelshift_lc(ux, uy, s))                                     \
    OP(__funnelshift_r(ux, uy, s), funnelshift_r(ux, uy, s))                                       \
    OP(__funnelshift_rc(ux, uy, s), funnelshift_rc(ux, uy, s))                                     \
    OP(bfe_u32(ux, s, s >> 8), bfe_u32(ux, s, s >> 8))                                             \
    OP(bfe_s32(x, s, s >> 8), bfe_s32(x, s, s >> 8))                                               \
    OP(bfe_u64(UX, s, s >> 8), bfe_u64(UX, s, s >> 8))                                             \
    OP(bfe_s64(X, s, s >> 8), bfe_s64(X, s, s >> 8))                                               \
    OP(bfi_b32(ux, uy, s, s >> 8), bfi_b32(ux, uy, s, s >> 8))                                     \
    OP(bfi_b64(UX, UY, s, s >> 8), bfi_b64(UX, UY, s, s >> 8))                                     \
    OP(__sad(x, y, s), sad(x, y, s))                                                               \
    OP(__usad(ux, uy, s), usad(ux, uy, s))                                                         \
    OP(__hadd(x, y), hadd(x, y))                                                                   \
    OP(__rhadd(x, y), rhadd(x, y))                                                                 \
    OP(__uhadd(ux, uy), uhadd(ux, uy))                                                             \
    OP(__urhadd(ux, uy), urhadd(ux, uy))                                                           \
    OP(__dp4a(x, y, (int)s), dp4a(x, y, (int)s))                                                   \
    OP(__dp4a(ux, uy, s), udp4a(ux, uy, s))                                                        \
    OP(UX + UY, UX + UY)                                                                           \
    OP(UX - UY, UX - UY)                                                                           \
    OP(UX * UY, UX * UY)                                                                           \
    OP(Y == 0 || (X == LLONG_MIN && Y == -1) ? 0 : X / Y,                                          \
      Y == 0 || (X == LLONG_MIN && Y == -1) ? 0 : X / Y)                                           \
    OP(Y == 0 || (X == LLONG_MIN && Y == -1) ? 0 : X % Y,                                          \
      Y == 0 || (X == LLONG_MIN && Y == -1) ? 0 : X % Y)                                           \
    OP(UY == 0 ? 0ull : UX / UY, UY == 0 ? 0ull : UX / UY)                                         \
    OP(UY == 0 ? 0ull : UX % UY, UY == 0 ? 0ull : UX % UY)                                         \
    OP(X / 1000000007ll, X / 1000000007ll)                                                         \
    OP(X >> (s & 63), X >> (s & 63))                                                               \
    OP(UX >> (s & 63), UX >> (s & 63))                                                             \
    OP(UX << (s & 63), UX << (s & 63))                                                             \
    OP(X < Y, X < Y)                                                                               \
    OP(UX < UY, UX < UY)                                                                           \
    OP((long long)x, (long long)x)                                                                 \
    OP((ull)ux, (unsigned long long)ux)                                                            \
    OP((int)X, (int)X)                                                                             \
    OP((unsigned)UX, (unsigned)UX)                                                                 \
    OP((signed char)(ux + uy), (signed char)(ux + uy))                                             \
    OP((short)(ux * 3u), (short)(ux * 3u))                                                         \
    OP((unsigned char)(ux * 7u), (unsigned char)(ux * 7u))                                         \
    OP((unsigned short)(ux + 0x1234u), (unsigned short)(ux + 0x1234u))                             \
    OP((int)(signed char)ux, (int)(signed char)ux)                                                 \
    OP((int)(short)ux, (int)(short)ux)                                                             \
    OP((long long)c8, (long long)c8)                                                               \
    OP((long long)c16, (long long)c16)                                                             \
    OP((long long)u8v, (long long)u8v)                                                             \
    OP((long long)u16v, (long long)u16v)                                                           \
    OP(c8 * c16, c8 * c16)                                                                         \
    OP(c8 >> 1, c8 >> 1)                                                                           \
    OP(u8v + c8, u8v + c8)                                                                         \
    OP(c16 / (c8 | 1), c16 / (c8 | 1))                                                             \
    OP(c16 % 7, c16 % 7)                                                                           \
    OP((signed char)(c8 + u8v), (signed char)(c8 + u8v))                                           \
    OP((unsigned short)(u16v * u16v), (unsigned short)(u16v * u16v))                               \
    OP(c8 < u8v, c8 < u8v)
/* clang-format on */

#define OP_TEXT(device, host) #device,
static const char *const op_text[] = {INT_OPS(OP_TEXT)};
#define N_OPS ((int)(sizeof op_text / sizeof op_text[0]))

struct inputs {
    int n;
    int *x, *y;
    unsigned *s;
    long long *X, *Y;
    signed char *c8;
    short *c16;
    unsigned char *u8;
    unsigned short *u16;
};

/* The host's results of every operation for element i. */
static void reference(const struct inputs *in, int i, unsigned long long *r)
{
    int x = in->x[i], y = in->y[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y, s = in->s[i];
    long long X = in->X[i], Y = in->Y[i];
    unsigned long long UX = (unsigned long long)X, UY = (unsigned long long)Y;
    signed char c8 = in->c8[i];
    short c16 = in->c16[i];
    unsigned char u8v = in->u8[i];
    unsigned short u16v = in->u16[i];
    int k = 0;
#define OP_HOST(device, host) r[k++] = (unsigned long long)(host);
    INT_OPS(OP_HOST)
#undef OP_HOST
}

/* A kernel computing the operations first..last-1 into out[k * n + i]. */
static char *int_kernel_source(int first, int last)
{
    size_t size = sizeof device_helpers + 4096;
    for (int k = first; k < last; k++)
        size += strlen(op_text[k]) + 64;
    char *src = malloc(size);
    if (src == NULL)
        return NULL;
    int used = snprintf(src, size,
                        "%s"
                        "extern \"C\" __global__ void int_ops(const int *a, const int *b,\n"
                        "    const unsigned *sh, const long long *A, const long long *B,\n"
                        "    const signed char *s8, const short *s16, const unsigned char *u8,\n"
                        "    const unsigned short *u16, ull *out, int n)\n"
                        "{\n"
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "    if (i >= n) return;\n"
                        "    int x = a[i], y = b[i];\n"
                        "    unsigned ux = x, uy = y, s = sh[i];\n"
                        "    long long X = A[i], Y = B[i];\n"
                        "    ull UX = X, UY = Y;\n"
                        "    signed char c8 = s8[i];\n"
                        "    short c16 = s16[i];\n"
                        "    unsigned char u8v = u8[i];\n"
                        "    unsigned short u16v = u16[i];\n"
                        "    (void)x; (void)y; (void)ux; (void)uy; (void)s; (void)X; (void)Y;\n"
                        "    (void)UX; (void)UY; (void)c8; (void)c16; (void)u8v; (void)u16v;\n",
                        device_helpers);
    for (int k = first; k < last; k++)
        used += snprintf(src + used, size - (size_t)used,
                         "    out[(size_t)%d * n + i] = (ull)(%s);\n", k, op_text[k]);
    snprintf(src + used, size - (size_t)used, "}\n");
    return src;
}

/* Loads and runs the kernel of operations first..last-1; 0 when it did not
 * load (the loader's log has been printed), -1 when it failed to run. */
static int run_ops(int first, int last, void **args, unsigned blocks)
{
    char *source = int_kernel_source(first, last);
    CUmodule module;
    CUfunction f;
    if (source == NULL)
        return -1;
    CUresult rc = gpu_test_load_source(&module, source, "int_ops.cu");
    free(source);
    if (rc != CUDA_SUCCESS)
        return 0;
    int ok = CHECK_CU(cuModuleGetFunction(&f, module, "int_ops")) &&
             gpu_test_run(f, blocks, THREADS, args);
    CHECK_CU(cuModuleUnload(module));
    return ok ? 1 : -1;
}

/* ---------------------------------------------------------------- inputs */

static const int edges32[] = {
    0,
    1,
    -1,
    2,
    -2,
    3,
    -3,
    7,
    -7,
    16,
    -16,
    31,
    32,
    33,
    63,
    64,
    127,
    128,
    -128,
    -129,
    255,
    256,
    0x7fff,
    0x8000,
    -0x8000,
    0xffff,
    0x10000,
    0x00ffffff,
    0x01000000,
    INT_MAX,
    INT_MIN,
    INT_MAX - 1,
    INT_MIN + 1,
    0x55555555,
    (int)0xaaaaaaaa,
    0x12345678,
    (int)0x80000001,
    (int)0xfffffffe,
};
#define N_EDGES32 (sizeof edges32 / sizeof edges32[0])

static const long long edges64[] = {
    0,
    1,
    -1,
    2,
    -3,
    LLONG_MAX,
    LLONG_MIN,
    LLONG_MAX - 1,
    LLONG_MIN + 1,
    0xffffffffll,
    0x100000000ll,
    -0x100000000ll,
    0x7fffffffll,
    -0x80000000ll,
    0x5555555555555555ll,
    (long long)0xaaaaaaaaaaaaaaaaull,
    0x123456789abcdef0ll,
    1000000007ll,
    -1000000007ll,
    (long long)0x8000000000000001ull,
};
#define N_EDGES64 (sizeof edges64 / sizeof edges64[0])

static const unsigned shift_edges[] = {
    0,   1,   7,   8,   15,  16,     31,    32,     33,     63,     64,          65,
    127, 128, 255, 256, 257, 0x1f1f, 0x820, 0x2018, 0x4020, 0x3f01, 0xffffffffu, 0x80000000u};
#define N_SHIFT_EDGES (sizeof shift_edges / sizeof shift_edges[0])

static int make_inputs(struct inputs *in)
{
    int cap = (int)(N_EDGES32 * N_EDGES32) + N_RANDOM;
    in->x = malloc(cap * sizeof *in->x);
    in->y = malloc(cap * sizeof *in->y);
    in->s = malloc(cap * sizeof *in->s);
    in->X = malloc(cap * sizeof *in->X);
    in->Y = malloc(cap * sizeof *in->Y);
    in->c8 = malloc(cap * sizeof *in->c8);
    in->c16 = malloc(cap * sizeof *in->c16);
    in->u8 = malloc(cap * sizeof *in->u8);
    in->u16 = malloc(cap * sizeof *in->u16);
    if (!in->x || !in->y || !in->s || !in->X || !in->Y || !in->c8 || !in->c16 || !in->u8 ||
        !in->u16)
        return 0;
    int n = 0;
    for (size_t i = 0; i < N_EDGES32; i++)
        for (size_t j = 0; j < N_EDGES32; j++, n++) {
            in->x[n] = edges32[i];
            in->y[n] = edges32[j];
            in->X[n] = edges64[(i * N_EDGES32 + j) % N_EDGES64];
            in->Y[n] = edges64[(i + j * 7) % N_EDGES64];
            in->s[n] = shift_edges[(i * 3 + j) % N_SHIFT_EDGES];
        }
    for (int i = 0; i < N_RANDOM; i++, n++) {
        uint64_t r = gpu_test_rng();
        switch (i % 4) {
        case 0: /* anything */
            in->x[n] = (int)(uint32_t)r;
            in->y[n] = (int)(uint32_t)(r >> 32);
            in->X[n] = (long long)gpu_test_rng();
            in->Y[n] = (long long)gpu_test_rng();
            in->s[n] = (uint32_t)gpu_test_rng();
            break;
        case 1: /* small values: division and modulo of negatives */
            in->x[n] = (int)(r % 2001) - 1000;
            in->y[n] = (int)((r >> 16) % 41) - 20;
            in->X[n] = (long long)(gpu_test_rng() % 2000001) - 1000000;
            in->Y[n] = (long long)(gpu_test_rng() % 201) - 100;
            in->s[n] = (uint32_t)(gpu_test_rng() % 70);
            break;
        case 2: /* one operand an edge, shift amounts with lengths in the second byte */
            in->x[n] = edges32[r % N_EDGES32];
            in->y[n] = (int)(uint32_t)(r >> 32);
            in->X[n] = edges64[(r >> 8) % N_EDGES64];
            in->Y[n] = (long long)gpu_test_rng();
            in->s[n] = (uint32_t)(gpu_test_rng() % 70) | (uint32_t)(gpu_test_rng() % 70) << 8;
            break;
        default: /* 64-bit values that fit 32 bits, divisors of every size */
            in->x[n] = (int)(uint32_t)r;
            in->y[n] = (int)((uint32_t)(r >> 32) >> (r % 31));
            in->X[n] = (long long)(int32_t)gpu_test_rng();
            in->Y[n] = (long long)(gpu_test_rng() >> (gpu_test_rng() % 63));
            in->s[n] = (uint32_t)gpu_test_rng() & 0xffff;
            break;
        }
    }
    for (int i = 0; i < n; i++) {
        uint32_t r = (uint32_t)gpu_test_rng();
        /* the low bytes of x, but also every byte value */
        in->c8[i] = (signed char)(i % 2 ? (uint8_t)in->x[i] : (uint8_t)r);
        in->c16[i] = (short)(i % 2 ? (uint16_t)in->y[i] : (uint16_t)(r >> 8));
        in->u8[i] = (unsigned char)(r >> 24);
        in->u16[i] = (unsigned short)(i % 3 ? (uint16_t)in->x[i] : (uint16_t)(r >> 4));
    }
    in->n = n;
    return 1;
}

static void free_inputs(struct inputs *in)
{
    free(in->x);
    free(in->y);
    free(in->s);
    free(in->X);
    free(in->Y);
    free(in->c8);
    free(in->c16);
    free(in->u8);
    free(in->u16);
}

/* ------------------------------------------------------------- the test */

static void check_ops(const struct inputs *in, const unsigned long long *out, const int *loaded)
{
    int n = in->n;
    unsigned long long *want = malloc((size_t)n * N_OPS * sizeof *want);
    unsigned long long r[N_OPS];
    if (!CHECK(want != NULL))
        return;
    for (int i = 0; i < n; i++) {
        reference(in, i, r);
        for (int k = 0; k < N_OPS; k++)
            want[(size_t)k * n + i] = r[k];
    }
    for (int k = 0; k < N_OPS; k++) {
        int wrong = 0;
        if (!loaded[k])
            continue; /* already counted as a failure */
        for (int i = 0; i < n; i++) {
            unsigned long long got = out[(size_t)k * n + i], w = want[(size_t)k * n + i];
            if (got == w)
                continue;
            if (wrong++ < SHOW)
                fprintf(stderr,
                        "  %s with x=%d (0x%x) y=%d (0x%x) s=0x%x X=0x%llx Y=0x%llx c8=%d c16=%d "
                        "u8=%u u16=%u\n    gave 0x%llx, expected 0x%llx\n",
                        op_text[k], in->x[i], (unsigned)in->x[i], in->y[i], (unsigned)in->y[i],
                        in->s[i], (unsigned long long)in->X[i], (unsigned long long)in->Y[i],
                        in->c8[i], in->c16[i], in->u8[i], in->u16[i], got, w);
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results wrong\n", op_text[k], wrong, n);
        CHECK(wrong == 0);
    }
    free(want);
}

/* All operations in one kernel; when the loader refuses it, each in a
 * kernel of its own, so that one unimplemented instruction fails only the
 * operations that use it. */
static void test_ops(void)
{
    struct inputs in;
    memset(&in, 0, sizeof in);
    if (!CHECK(make_inputs(&in))) {
        free_inputs(&in);
        return;
    }
    int n = in.n;
    CUdeviceptr d[9] = {
        gpu_test_upload(in.x, n * sizeof *in.x),     gpu_test_upload(in.y, n * sizeof *in.y),
        gpu_test_upload(in.s, n * sizeof *in.s),     gpu_test_upload(in.X, n * sizeof *in.X),
        gpu_test_upload(in.Y, n * sizeof *in.Y),     gpu_test_upload(in.c8, n * sizeof *in.c8),
        gpu_test_upload(in.c16, n * sizeof *in.c16), gpu_test_upload(in.u8, n * sizeof *in.u8),
        gpu_test_upload(in.u16, n * sizeof *in.u16),
    };
    size_t out_bytes = (size_t)n * N_OPS * sizeof(unsigned long long);
    CUdeviceptr dout = gpu_test_upload(NULL, out_bytes);
    unsigned long long *out = malloc(out_bytes);
    void *args[] = {&d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7], &d[8], &dout, &n};
    unsigned blocks = (unsigned)(n + THREADS - 1) / THREADS;
    int loaded[N_OPS];
    for (int k = 0; k < N_OPS; k++)
        loaded[k] = 1;
    int ran = run_ops(0, N_OPS, args, blocks);
    if (ran == 0) {
        fprintf(stderr, "  the kernel of all %d operations did not load; one by one:\n", N_OPS);
        ran = 1;
        for (int k = 0; k < N_OPS; k++) {
            int one = run_ops(k, k + 1, args, blocks);
            loaded[k] = one == 1;
            if (one == 0)
                fprintf(stderr, "  FAILED to load: %s\n", op_text[k]);
            CHECK(one == 1);
        }
    }
    if (CHECK(out != NULL) && ran == 1 && gpu_test_download(out, dout, out_bytes))
        check_ops(&in, out, loaded);
    for (int k = 0; k < 9; k++)
        cuMemFree(d[k]);
    free(out);
    free_inputs(&in);
}

/* __dp2a_lo/__dp2a_hi (dp2a): a's two half-words times two of b's bytes. */
static int dp2a(int a, int b, int c, int hi, int is_signed)
{
    int d = c;
    for (int k = 0; k < 2; k++) {
        int va = is_signed ? (short)(a >> (16 * k)) : (int)((unsigned)a >> (16 * k) & 0xffff);
        int shift = 8 * (k + (hi ? 2 : 0));
        int vb = is_signed ? (signed char)(b >> shift) : (int)((unsigned)b >> shift & 0xff);
        d = (int)((unsigned)d + (unsigned)(va * vb));
    }
    return d;
}

static void test_dp2a(void)
{
    static const char source[] =
        "extern \"C\" __global__ void dp2a(const int *a, const int *b, const int *c, int *out)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    out[4 * i] = __dp2a_lo(a[i], b[i], c[i]);\n"
        "    out[4 * i + 1] = __dp2a_hi(a[i], b[i], c[i]);\n"
        "    out[4 * i + 2] = __dp2a_lo((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);\n"
        "    out[4 * i + 3] = __dp2a_hi((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);\n"
        "}\n";
    enum { N = 1024 };
    static int a[N], b[N], c[N], out[4 * N], want[4 * N];
    for (int i = 0; i < N; i++) {
        a[i] = i < (int)N_EDGES32 ? edges32[i] : (int)(uint32_t)gpu_test_rng();
        b[i] = (int)(uint32_t)gpu_test_rng();
        c[i] = i % 2 ? (int)(uint32_t)gpu_test_rng() : (int)(gpu_test_rng() % 100);
        for (int k = 0; k < 4; k++)
            want[4 * i + k] = dp2a(a[i], b[i], c[i], k & 1, k < 2);
    }
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, source, "dp2a.cu")))
        return;
    CUdeviceptr da = gpu_test_upload(a, sizeof a), db = gpu_test_upload(b, sizeof b);
    CUdeviceptr dc = gpu_test_upload(c, sizeof c), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&da, &db, &dc, &dout};
    if (CHECK_CU(cuModuleGetFunction(&f, module, "dp2a")) && gpu_test_run(f, N / 128, 128, args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, 4 * N);
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
    CHECK_CU(cuModuleUnload(module));
}

/* Byte and half-word stores next to each other: each thread writes only its
 * own element, so a store wider than its type would clobber a neighbour. */
static void test_narrow_stores(void)
{
    static const char source[] =
        "extern \"C\" __global__ void narrow(const int *x, signed char *s8, unsigned char *u8,\n"
        "    short *s16, unsigned short *u16, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        "    int v = x[i];\n"
        "    s8[i] = (signed char)(v * 3);\n"
        "    u8[n - 1 - i] = (unsigned char)(v >> 5);\n"
        "    s16[i] = (short)(v - 40000);\n"
        "    u16[(i * 7) % n] = (unsigned short)(v ^ 0xbeef);\n"
        "}\n";
    enum { N = 4099 }; /* odd, so the last elements are not word-aligned ends */
    static int x[N];
    static signed char s8[N], want_s8[N];
    static unsigned char u8[N], want_u8[N];
    static short s16[N], want_s16[N];
    static unsigned short u16[N], want_u16[N];
    for (int i = 0; i < N; i++)
        x[i] = (int)(uint32_t)gpu_test_rng();
    for (int i = 0; i < N; i++) {
        want_s8[i] = (signed char)((unsigned)x[i] * 3u);
        want_u8[N - 1 - i] = (unsigned char)(x[i] >> 5);
        want_s16[i] = (short)((unsigned)x[i] - 40000u);
        want_u16[(i * 7) % N] = (unsigned short)(x[i] ^ 0xbeef);
    }
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, source, "narrow.cu")))
        return;
    int n = N;
    CUdeviceptr dx = gpu_test_upload(x, sizeof x);
    CUdeviceptr d8 = gpu_test_upload(NULL, sizeof s8), du8 = gpu_test_upload(NULL, sizeof u8);
    CUdeviceptr d16 = gpu_test_upload(NULL, sizeof s16), du16 = gpu_test_upload(NULL, sizeof u16);
    void *args[] = {&dx, &d8, &du8, &d16, &du16, &n};
    if (CHECK_CU(cuModuleGetFunction(&f, module, "narrow")) &&
        gpu_test_run(f, (N + 127) / 128, 128, args) && gpu_test_download(s8, d8, sizeof s8) &&
        gpu_test_download(u8, du8, sizeof u8) && gpu_test_download(s16, d16, sizeof s16) &&
        gpu_test_download(u16, du16, sizeof u16)) {
        CHECK_SAME(s8, want_s8, N);
        CHECK_SAME(u8, want_u8, N);
        CHECK_SAME(s16, want_s16, N);
        CHECK_SAME(u16, want_u16, N);
    }
    cuMemFree(dx);
    CHECK_CU(cuModuleUnload(module));
}

int main(void)
{
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    test_ops();
    test_dp2a();
    test_narrow_stores();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
