/*
 * A library for the sandbox's tests that a job names
 * (sandbox_job.libraries) and loads, as the grading job names the virtual
 * GPU: it needs libkgrade_needed.so, found beside it through its RUNPATH
 * ($ORIGIN), which the sandbox must show the job too.
 */
int kgrade_needed_answer(void);
int kgrade_named_answer(void);

int kgrade_named_answer(void)
{
    return kgrade_needed_answer();
}
