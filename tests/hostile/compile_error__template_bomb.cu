// A template-instantiation bomb: each level instantiates two of the next,
// 2^N instantiations, stopped by the compiler's depth limit or the sandbox's
// time and memory limits.
template <int N> struct Bomb {
    static constexpr long value = Bomb<N - 1>::value + Bomb<N - 2>::value + Bomb<N - 3>::value;
    typedef Bomb<N - 1> a;
    typedef Bomb<N + 1000000> b;
};
template <> struct Bomb<0> { static constexpr long value = 1; };
constexpr long boom = Bomb<100000>::value;
__global__ void vector_add(const float *a, const float *b, float *c, int n) { c[0] = boom; }
