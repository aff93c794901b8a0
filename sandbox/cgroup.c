/*
 * The job's cgroups: its memory limit (cgroup v2 memory.max where the
 * memory controller is on the v2 hierarchy, else the v1 memory controller)
 * and its task limit (the pids controller), so the kernel enforces both on
 * the whole process tree and says afterwards whether the memory limit
 * killed it. What cannot be set up is left out; the child then falls back
 * to RLIMIT_DATA for memory.
 */
#include "sandbox_internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define V1_ROOT    "/sys/fs/cgroup"
#define GROUP_NAME "kgrade-sandbox"

static bool write_text(const char *dir, const char *file, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%.4000s/%s", dir, file);
    FILE *f = fopen(path, "we");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static bool write_number(const char *dir, const char *file, unsigned long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", value);
    return write_text(dir, file, text);
}

/* The folders of jobs whose kgrade died before it could remove them
 * (job-PID-N with no process PID): their tasks are gone, so they go too. */
static void remove_orphans(const char *group)
{
    DIR *d = opendir(group);
    struct dirent *entry;
    while (d && (entry = readdir(d)) != NULL) {
        int pid;
        unsigned n;
        char path[PATH_MAX];
        if (sscanf(entry->d_name, "job-%d-%u", &pid, &n) != 2 || pid <= 0 || kill(pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        snprintf(path, sizeof path, "%.3800s/%.255s", group, entry->d_name);
        rmdir(path);
    }
    if (d)
        closedir(d);
}

/* A fresh folder under `parent` for this job: parent/kgrade-sandbox/job-PID-N. */
static bool make_job_dir(const char *parent, char *dir, size_t size)
{
    static unsigned counter;
    char group[PATH_MAX];
    snprintf(group, sizeof group, "%.3900s/%s", parent, GROUP_NAME);
    if (mkdir(group, 0755) != 0 && errno != EEXIST)
        return false;
    remove_orphans(group);
    snprintf(dir, size, "%.3950s/job-%d-%u", group, (int)getpid(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    return mkdir(dir, 0755) == 0;
}

/* The v2 folder this process is in, when v2 is mounted at /sys/fs/cgroup. */
static bool v2_own_dir(char *dir, size_t size)
{
    char line[PATH_MAX];
    FILE *f = fopen("/proc/self/cgroup", "re");
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(dir, size, "%s%.3900s", V1_ROOT, line + 3);
            found = true;
        }
    if (f)
        fclose(f);
    return found && access(V1_ROOT "/cgroup.controllers", F_OK) == 0;
}

static void create_v2(struct job_cgroup *cg, const struct sandbox_limits *limits)
{
    char own[PATH_MAX], dir[PATH_MAX];
    if (!v2_own_dir(own, sizeof own) || !make_job_dir(own, dir, sizeof dir))
        return;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%.3900s/%s", own, GROUP_NAME);
    write_text(parent, "cgroup.subtree_control", "+memory +pids");
    if (write_number(dir, "memory.max", limits->memory_bytes)) {
        write_text(dir, "memory.swap.max", "0");
        cg->memory = SANDBOX_MEMORY_CGROUP_V2;
        snprintf(cg->memory_dir, sizeof cg->memory_dir, "%s", dir);
    }
    if (limits->tasks > 0 && write_number(dir, "pids.max", (unsigned long long)limits->tasks))
        snprintf(cg->tasks_dir, sizeof cg->tasks_dir, "%s", dir);
    if (!cg->memory_dir[0] && !cg->tasks_dir[0])
        rmdir(dir);
}

static void create_v1(struct job_cgroup *cg, const struct sandbox_limits *limits)
{
    char dir[PATH_MAX];
    if (!cg->memory_dir[0] && make_job_dir(V1_ROOT "/memory", dir, sizeof dir)) {
        if (write_number(dir, "memory.limit_in_bytes", limits->memory_bytes)) {
            write_number(dir, "memory.memsw.limit_in_bytes", limits->memory_bytes);
            cg->memory = SANDBOX_MEMORY_CGROUP_V1;
            snprintf(cg->memory_dir, sizeof cg->memory_dir, "%s", dir);
        } else {
            rmdir(dir);
        }
    }
    if (!cg->tasks_dir[0] && limits->tasks > 0 && make_job_dir(V1_ROOT "/pids", dir, sizeof dir)) {
        if (write_number(dir, "pids.max", (unsigned long long)limits->tasks))
            snprintf(cg->tasks_dir, sizeof cg->tasks_dir, "%s", dir);
        else
            rmdir(dir);
    }
}

void cgroup_create(struct job_cgroup *cg, const struct sandbox_limits *limits)
{
    memset(cg, 0, sizeof *cg);
    create_v2(cg, limits);
    create_v1(cg, limits);
}

void cgroup_enter(const struct job_cgroup *cg, int pid)
{
    if (cg->memory_dir[0])
        write_number(cg->memory_dir, "cgroup.procs", (unsigned long long)pid);
    if (cg->tasks_dir[0] && strcmp(cg->tasks_dir, cg->memory_dir) != 0)
        write_number(cg->tasks_dir, "cgroup.procs", (unsigned long long)pid);
}

/* The value of `key` in a "key value" file; 0 when absent. */
static unsigned long long read_key(const char *dir, const char *file, const char *key)
{
    char path[PATH_MAX + 64], name[64];
    unsigned long long value, found = 0;
    snprintf(path, sizeof path, "%.4000s/%s", dir, file);
    FILE *f = fopen(path, "re");
    while (f && fscanf(f, "%63s %llu", name, &value) == 2)
        if (strcmp(name, key) == 0)
            found = value;
    if (f)
        fclose(f);
    return found;
}

bool cgroup_out_of_memory(const struct job_cgroup *cg)
{
    if (cg->memory == SANDBOX_MEMORY_CGROUP_V2)
        return read_key(cg->memory_dir, "memory.events", "oom_kill") > 0;
    if (cg->memory == SANDBOX_MEMORY_CGROUP_V1)
        return read_key(cg->memory_dir, "memory.oom_control", "oom_kill") > 0;
    return false;
}

/* rmdir, retried briefly: the kernel frees a dead job's tasks asynchronously. */
static void remove_dir(char *dir)
{
    const struct timespec pause = {0, 2 * 1000 * 1000};
    for (int attempt = 0; dir[0] && attempt < 500; attempt++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            break;
        nanosleep(&pause, NULL);
    }
    dir[0] = '\0';
}

void cgroup_remove(struct job_cgroup *cg)
{
    if (strcmp(cg->tasks_dir, cg->memory_dir) == 0)
        cg->tasks_dir[0] = '\0';
    remove_dir(cg->memory_dir);
    remove_dir(cg->tasks_dir);
}
