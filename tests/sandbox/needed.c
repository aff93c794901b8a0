/*
 * A library for the sandbox's tests that only another one needs
 * (tests/sandbox/named.c): the test never loads it itself, as kgrade never
 * loads LLVM, which the virtual GPU needs.
 */
int kgrade_needed_answer(void);

int kgrade_needed_answer(void)
{
    return 42;
}
