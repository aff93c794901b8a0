/*
 * Unit tests of gpu_wait: a real GPU's wait, with a driver faked by its
 * event entry points (no machine of ours has a GPU): work that ends (then
 * synchronized, which flushes printf), a kernel's fault, a kernel that
 * never ends (left, marked stuck, in about its budget), and the virtual
 * GPU's and the reference's plain waits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/gpu_wait.h"
#include "grader/timing_stats.h"

#include <string.h>

static int queries_until_done; /* -1: never */
static CUresult result_when_done;
static int queries, synchronizations;

static CUresult fake_query(CUevent event)
{
    (void)event;
    queries++;
    if (queries_until_done < 0 || queries < queries_until_done)
        return CUDA_ERROR_NOT_READY;
    return result_when_done;
}

static CUresult fake_synchronize(CUevent event)
{
    (void)event;
    synchronizations++;
    return CUDA_SUCCESS;
}

static struct cuda_api fake_gpu(int until, CUresult result)
{
    struct cuda_api api;
    memset(&api, 0, sizeof api);
    api.cuEventQuery = fake_query;
    api.cuEventSynchronize = fake_synchronize;
    queries_until_done = until;
    result_when_done = result;
    queries = synchronizations = 0;
    return api;
}

static void work_that_ends_is_waited_for(void **state)
{
    (void)state;
    struct cuda_api api = fake_gpu(1000, CUDA_SUCCESS);
    assert_int_equal(gpu_wait(&api, NULL, 5000), CUDA_SUCCESS);
    assert_int_equal(queries, 1000);
    assert_int_equal(synchronizations, 1); /* which flushes the kernels' printf */
    assert_false(api.stuck);
}

static void a_fault_is_returned(void **state)
{
    (void)state;
    struct cuda_api api = fake_gpu(3, CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(gpu_wait(&api, NULL, 5000), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_false(api.stuck);
}

static void a_kernel_that_never_ends_is_left_at_its_budget(void **state)
{
    (void)state;
    struct cuda_api api = fake_gpu(-1, CUDA_SUCCESS);
    double started = timing_now_seconds();
    assert_int_equal(gpu_wait(&api, NULL, 50), CUDA_ERROR_LAUNCH_TIMEOUT);
    double waited_ms = (timing_now_seconds() - started) * 1e3;
    assert_true(api.stuck);
    assert_true(api.stuck_after_ms > 50);
    assert_true(waited_ms >= 50 && waited_ms < 5000); /* it stopped waiting */
}

static void the_virtual_gpu_and_the_reference_synchronize(void **state)
{
    (void)state;
    struct cuda_api api = fake_gpu(-1, CUDA_SUCCESS);
    api.emulated = true;
    assert_int_equal(gpu_wait(&api, NULL, 50), CUDA_SUCCESS);
    api.emulated = false;
    assert_int_equal(gpu_wait(&api, NULL, 0), CUDA_SUCCESS);
    assert_int_equal(synchronizations, 2);
    assert_int_equal(queries, 0);
    assert_false(api.stuck);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(work_that_ends_is_waited_for),
        cmocka_unit_test(a_fault_is_returned),
        cmocka_unit_test(a_kernel_that_never_ends_is_left_at_its_budget),
        cmocka_unit_test(the_virtual_gpu_and_the_reference_synchronize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
