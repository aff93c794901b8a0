/*
 * The corpus: every PTX module nvcc makes of the CUDA files in tests/corpus
 * must load.
 *
 * The corpus is sample-like CUDA written here (warp intrinsics, shared
 * memory layouts, atomics, function pointers, asynchronous copies,
 * cooperative groups, textures, half precision...), compiled by the
 * Makefile with nvcc -arch=sm_90 -ptx into BUILD/corpus/ (not NVRTC: nvcc
 * is what most third-party code goes through). This program loads each
 * module, prints "loaded" with its kernels' count or "refused" with the
 * loader's log, and counts a failure for each refusal: a valid program
 * the virtual GPU refuses is a correct student's kernel graded against
 * them. What the kernels compute is checked by the test programs of their
 * areas; this one is about the loader's coverage.
 *
 * The folder is BUILD/corpus, found from this program's own path
 * (BUILD/tests/gpu/test_corpus), or KGRADE_CORPUS_DIR.
 */
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>

#include "gpu_test.h"

#define PTX_MAX_BYTES (16u << 20)

/* The corpus folder: KGRADE_CORPUS_DIR, else ../../corpus from here. */
static int corpus_dir(char *out, size_t size)
{
    const char *set = getenv("KGRADE_CORPUS_DIR");
    if (set)
        return snprintf(out, size, "%s", set) < (int)size;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    return snprintf(out, size, "%s/../../corpus", dirname(self)) < (int)size;
}

/* The whole file, NUL-terminated, or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = malloc(PTX_MAX_BYTES + 1);
    size_t n = text ? fread(text, 1, PTX_MAX_BYTES, f) : 0;
    int complete = text && feof(f) && !ferror(f);
    fclose(f);
    if (!complete) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && strcmp(name + n - s, suffix) == 0;
}

/* Looks up every kernel the PTX declares (".entry NAME(") in the loaded
 * module and returns how many it found. */
static int kernels_found(CUmodule module, const char *ptx)
{
    int found = 0;
    for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
        char name[256];
        if (sscanf(p, ".entry %255[A-Za-z0-9_$]", name) != 1)
            continue;
        CUfunction f;
        if (CHECK_CU(cuModuleGetFunction(&f, module, name)))
            found++;
    }
    return found;
}

/* Loads one module and says how it went. */
static void load_one(const char *dir, const char *name)
{
    char path[PATH_MAX], error_log[GPU_TEST_LOG_BYTES] = "";
    int length = snprintf(path, sizeof path, "%s/%s", dir, name);
    char *ptx = length < (int)sizeof path ? read_text(path) : NULL;
    if (!CHECK(ptx != NULL))
        return;
    CUmodule module;
    CUresult rc = gpu_test_load_ptx_log(&module, ptx, error_log, sizeof error_log);
    if (rc != CUDA_SUCCESS) {
        printf("  refused  %-28s %s: %s\n", name, gpu_test_error_name(rc), error_log);
        CHECK(rc == CUDA_SUCCESS);
        free(ptx);
        return;
    }
    int kernels = kernels_found(module, ptx);
    printf("  loaded   %-28s %d kernel%s\n", name, kernels, kernels == 1 ? "" : "s");
    CHECK(kernels > 0);
    CHECK_CU(cuModuleUnload(module));
    free(ptx);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    char dir[PATH_MAX];
    CUcontext context;
    if (!CHECK(corpus_dir(dir, sizeof dir)) || !gpu_test_start(&context))
        return gpu_test_summary();
    DIR *d = opendir(dir);
    if (!d) {
        printf("no corpus at %s (make builds it with nvcc)\n", dir);
        CHECK(d != NULL);
        return gpu_test_summary();
    }
    char *names[256];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < sizeof names / sizeof *names;)
        if (has_suffix(e->d_name, ".ptx"))
            names[count++] = strdup(e->d_name);
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    CHECK(count > 0);
    for (size_t i = 0; i < count; i++) {
        load_one(dir, names[i]);
        free(names[i]);
    }
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
