/*
 * Unit tests of the grader's driver loading: the virtual GPU by path, the
 * refusal of a real GPU where there is none (as on every machine of ours),
 * the fallback of auto, clear errors, and a kernel run through the table of
 * entry points. Run from the repository's root (tests/run-tests.sh does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/cuda_api.h"
#include "grader/grader.h"

#include <stdlib.h>
#include <string.h>

#define EMULATOR "build/emulator/libcuda.so.1"

static void the_virtual_gpu_loads_by_path(void **state)
{
    (void)state;
    struct cuda_api api;
    char error[512] = "";
    assert_true(cuda_api_load(&api, CUDA_DEVICE_EMULATOR, EMULATOR, error, sizeof error));
    assert_true(api.emulated);
    assert_non_null(strstr(api.device_name, "emulated"));
    assert_int_equal(api.cc_major, 9);
    assert_true(api.driver_version >= 13000);
    assert_non_null(api.kgemu_last_fault);
    assert_non_null(api.kgemu_last_counters);
    assert_non_null(api.kgemu_set_registers);
    assert_non_null(api.kgemu_set_time_budget);
    char text[256];
    cuda_api_describe(&api, CUDA_ERROR_ILLEGAL_ADDRESS, text, sizeof text);
    assert_non_null(strstr(text, "CUDA_ERROR_ILLEGAL_ADDRESS: "));
    cuda_api_unload(&api);
    assert_null(api.library);
}

static void a_real_gpu_is_never_the_virtual_one(void **state)
{
    (void)state;
    struct cuda_api api;
    char error[512] = "";
    if (cuda_api_load(&api, CUDA_DEVICE_REAL, EMULATOR, error, sizeof error)) {
        assert_false(api.emulated); /* a machine with a GPU */
        cuda_api_unload(&api);
        return;
    }
    assert_non_null(strstr(error, "no CUDA GPU is usable here"));
    assert_non_null(strstr(error, "--device emulator"));
}

/* KGRADE_CUDA_DRIVER names the driver to load: here the virtual GPU, which
 * a real GPU's load refuses by name (so the path was the one loaded). */
static void the_driver_can_be_named_by_its_path(void **state)
{
    (void)state;
    struct cuda_api api;
    char error[512] = "";
    setenv(GRADER_CUDA_DRIVER, EMULATOR, 1);
    assert_false(cuda_api_load(&api, CUDA_DEVICE_REAL, EMULATOR, error, sizeof error));
    assert_non_null(strstr(error, "is kgrade's virtual GPU, not a GPU driver"));
    setenv(GRADER_CUDA_DRIVER, "/nonexistent/libcuda.so.1", 1);
    assert_false(cuda_api_load(&api, CUDA_DEVICE_REAL, EMULATOR, error, sizeof error));
    assert_non_null(strstr(error, "cannot load /nonexistent/libcuda.so.1"));
    unsetenv(GRADER_CUDA_DRIVER);
}

static void auto_falls_back_to_the_virtual_gpu(void **state)
{
    (void)state;
    struct cuda_api api;
    char error[512] = "";
    assert_true(cuda_api_load(&api, CUDA_DEVICE_AUTO, EMULATOR, error, sizeof error));
    assert_non_null(api.cuLaunchKernel);
    cuda_api_unload(&api);
}

static void a_missing_virtual_gpu_says_what_to_do(void **state)
{
    (void)state;
    struct cuda_api api;
    char error[512] = "";
    assert_false(cuda_api_load(&api, CUDA_DEVICE_EMULATOR, "/nonexistent/libcuda.so.1", error,
                               sizeof error));
    assert_non_null(strstr(error, "/nonexistent/libcuda.so.1"));
    assert_non_null(strstr(error, "run make"));
    assert_false(cuda_api_load(&api, CUDA_DEVICE_EMULATOR, NULL, error, sizeof error));
    assert_non_null(strstr(error, "its path is unknown"));
}

static void the_emulator_path_is_beside_the_binary(void **state)
{
    (void)state;
    char path[4096];
    assert_true(cuda_api_emulator_path(path, sizeof path));
    assert_non_null(strstr(path, "/tests/unit/emulator/libcuda.so.1"));
    assert_false(cuda_api_emulator_path(path, 8));
}

/* The table's entry points run a kernel end to end. */
static void a_kernel_runs_through_the_table(void **state)
{
    (void)state;
    static const char source[] = "extern \"C\" __global__ void twice(int *a)\n"
                                 "{ a[threadIdx.x] *= 2; }\n";
    struct cuda_api api;
    char error[512];
    assert_true(cuda_api_load(&api, CUDA_DEVICE_EMULATOR, EMULATOR, error, sizeof error));
    struct grader_compile_result r;
    assert_int_equal(grader_compile(source, sizeof source - 1, NULL, &r), GRADER_COMPILE_OK);
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction f;
    CUdeviceptr d;
    int host[64];
    for (int i = 0; i < 64; i++)
        host[i] = i;
    assert_int_equal(api.cuDeviceGet(&device, 0), CUDA_SUCCESS);
    assert_int_equal(api.cuCtxCreate(&context, NULL, 0, device), CUDA_SUCCESS);
    assert_int_equal(api.cuModuleLoadDataEx(&module, r.ptx, 0, NULL, NULL), CUDA_SUCCESS);
    assert_int_equal(api.cuModuleGetFunction(&f, module, "twice"), CUDA_SUCCESS);
    assert_int_equal(api.kgemu_set_registers(f, r.kernels[0].registers), CUDA_SUCCESS);
    assert_int_equal(api.cuMemAlloc(&d, sizeof host), CUDA_SUCCESS);
    assert_int_equal(api.cuMemcpyHtoD(d, host, sizeof host), CUDA_SUCCESS);
    void *args[] = {&d};
    assert_int_equal(api.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    assert_int_equal(api.cuMemcpyDtoH(host, d, sizeof host), CUDA_SUCCESS);
    for (int i = 0; i < 64; i++)
        assert_int_equal(host[i], 2 * i);
    struct kgemu_counters c;
    assert_int_equal(api.kgemu_last_counters(&c), 1);
    assert_int_equal(c.registers_exact, 1);
    assert_true(c.modeled_ms > 0);
    api.cuMemFree(d);
    api.cuModuleUnload(module);
    api.cuCtxDestroy(context);
    grader_compile_result_free(&r);
    cuda_api_unload(&api);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_virtual_gpu_loads_by_path),
        cmocka_unit_test(a_real_gpu_is_never_the_virtual_one),
        cmocka_unit_test(the_driver_can_be_named_by_its_path),
        cmocka_unit_test(auto_falls_back_to_the_virtual_gpu),
        cmocka_unit_test(a_missing_virtual_gpu_says_what_to_do),
        cmocka_unit_test(the_emulator_path_is_beside_the_binary),
        cmocka_unit_test(a_kernel_runs_through_the_table),
    };
    return cmocka_run_group_tests_name("cuda_api", tests, NULL, NULL);
}
